// Command fakehub serves a model folder as a Hugging Face Hub repository on loopback (the
// revision and tree APIs, resolve with a redirect to a "CDN" port, Range), for screenshots,
// demos and measurements: point HF_ENDPOINT at the URL it prints.
//
//	go run ./tools/fakehub --dir /tmp/m --repo onnx-community/Qwen3-0.6B-ONNX [--rate 2000000] [--stall-at 8000000]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"edgechat/internal/testkit/fakehub"
)

func main() {
	dir := flag.String("dir", "", "model folder to serve (required)")
	repo := flag.String("repo", "onnx-community/Qwen3-0.6B-ONNX", "repository name ORG/NAME")
	commit := flag.String("commit", "0123456789abcdef0123456789abcdef01234567", "commit sha to report")
	rate := flag.Int64("rate", 0, "send at most this many bytes per second per file (0 = as fast as possible)")
	stallAt := flag.Int64("stall-at", 0, "stop sending each file at this many bytes and hold the connection open until the client gives up (0 = never)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "fakehub: --dir is required: the model folder to serve")
		os.Exit(2)
	}
	r, err := fakehub.RepoFromDir(*repo, *commit, *dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakehub:", err)
		os.Exit(1)
	}
	s := fakehub.Start(r)
	defer s.Close()
	if *rate > 0 {
		s.AddFault(fakehub.Fault{Kind: fakehub.Slow, Rate: *rate})
	}
	if *stallAt > 0 {
		s.AddFault(fakehub.Fault{Kind: fakehub.Stall, At: *stallAt})
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"url": s.URL, "repo": *repo, "commit": *commit})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	fmt.Fprintf(os.Stderr, "fakehub: sent %d bytes in %d file requests\n", s.BytesSent.Load(), s.Requests.Load())
}
