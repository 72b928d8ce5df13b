// Command opprofile shows where ONNX Runtime spends a prefill and a decode: it runs a graph
// through the bare loop (internal/ortloop) with profiling on and prints the kernel time per
// operator type, most first (--decode 0 for the prefill alone).
//
//	go run ./tools/opprofile --model ~/.cache/edgechat/graphs/optimized/<hash>/model_q4.onnx --prompt 428
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"edgechat/inference/ortenv"
	"edgechat/internal/ortloop"
)

var (
	model   = flag.String("model", "", "decoder graph (.onnx)")
	prompt  = flag.Int("prompt", 428, "prompt tokens")
	decode  = flag.Int("decode", 32, "decode steps")
	threads = flag.Int("threads", 2, "intra-op threads")
	nodes   = flag.Bool("nodes", false, "by node instead of by operator type")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "opprofile:", err)
		os.Exit(1)
	}
}

// event is one entry of ONNX Runtime's profile (Chrome trace format).
type event struct {
	Cat  string `json:"cat"`
	Name string `json:"name"`
	Dur  int64  `json:"dur"` // µs
	Args struct {
		OpName string `json:"op_name"`
	} `json:"args"`
}

func run() error {
	if *model == "" {
		return errors.New("--model is required")
	}
	if _, err := ortenv.Init(""); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "opprofile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	l, err := ortloop.Open(*model, ortloop.Options{Threads: *threads, MaxTokens: *prompt + *decode + 1, Profile: filepath.Join(dir, "p")})
	if err != nil {
		return err
	}
	ids := make([]int, *prompt)
	for i := range ids {
		ids[i] = 100 + i%1000
	}
	if _, err := l.Greedy(ids, *decode); err != nil {
		l.Close()
		return err
	}
	if err := l.Close(); err != nil {
		return err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "p*.json"))
	if len(files) == 0 {
		return errors.New("ONNX Runtime wrote no profile")
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return err
	}
	var events []event
	if err := json.Unmarshal(b, &events); err != nil {
		return err
	}
	total := map[string]int64{}
	for _, e := range events {
		if e.Cat == "Node" && strings.HasSuffix(e.Name, "_kernel_time") {
			key := e.Args.OpName
			if *nodes {
				key += " " + strings.TrimSuffix(e.Name, "_kernel_time")
			}
			total[key] += e.Dur
		}
	}
	type row struct {
		op string
		us int64
	}
	var rows []row
	var sum int64
	for k, v := range total {
		rows, sum = append(rows, row{k, v}), sum+v
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(b.us, a.us) })
	fmt.Printf("prefill %d tokens + %d decode steps, %d threads: %.1f ms in kernels\n", *prompt, *decode, *threads, float64(sum)/1000)
	for _, r := range rows {
		fmt.Printf("%-60s %9.1f ms %5.1f%%\n", r.op, float64(r.us)/1000, 100*float64(r.us)/float64(sum))
	}
	return nil
}
