//go:build unix

// Command spinidle measures what ONNX Runtime's spin-waiting costs and gains: decode speed and
// CPU use while decoding, and the CPU the process burns in the 3 s after the last run.
//
//	go run ./tools/spinidle --model /tmp/q4 --spin 1 --stop 1
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"edgechat/inference"
	"edgechat/inference/ort/decoder"
	"edgechat/inference/ort/env"
	"edgechat/internal/cputime"
)

var (
	model   = flag.String("model", "", "model folder")
	spin    = flag.String("spin", "1", "session.intra_op.allow_spinning")
	stop    = flag.String("stop", "1", "session.force_spinning_stop")
	threads = flag.Int("threads", 2, "intra-op threads")
	tokens  = flag.Int("tokens", 32, "tokens to decode")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "spinidle:", err)
		os.Exit(1)
	}
}

func run() error {
	if _, err := env.Init(""); err != nil {
		return err
	}
	opts := map[string]string{"session.intra_op.allow_spinning": *spin, "session.force_spinning_stop": *stop}
	m, err := inference.LoadModel(*model, inference.LoadOptions{EP: inference.EP{Name: "cpu", Threads: *threads, Options: opts}}, decoder.Open)
	if err != nil {
		return err
	}
	defer m.Close()
	ctx, d := context.Background(), m.Decoder()
	if _, err := d.Forward(ctx, m.Tokenizer.Encode("Hello there, this is a test of spinning threads")); err != nil {
		return err
	}
	t0, c0 := time.Now(), cputime.Used()
	for range *tokens {
		if _, err := d.Forward(ctx, []int{42}); err != nil {
			return err
		}
	}
	wall := time.Since(t0).Seconds()
	fmt.Printf("spin=%s stop=%s: decode %.1f tokens/s, %.2f CPU-seconds per second\n", *spin, *stop, float64(*tokens)/wall, (cputime.Used()-c0).Seconds()/wall)
	c1 := cputime.Used()
	time.Sleep(3 * time.Second)
	fmt.Printf("the 3 s after the last run: %.3f CPU-seconds\n", (cputime.Used() - c1).Seconds())
	return nil
}
