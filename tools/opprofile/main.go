// Command opprofile shows where ONNX Runtime spends a prefill and a decode: it runs a graph
// through the bare loop (inference/ort/loop) with profiling on and prints the kernel time per
// operator type, most first, for the prefill and for the decode steps after it apart
// (--decode 0 for the prefill alone).
//
//	go run ./tools/opprofile --model ~/.cache/edgechat/graphs/optimized/<hash>/model_q4.onnx --prompt 428
package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"edgechat/inference/ort/decoder"
	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

var (
	model   = flag.String("model", "", "decoder graph (.onnx)")
	prompt  = flag.Int("prompt", 428, "prompt tokens")
	decode  = flag.Int("decode", 32, "decode steps")
	threads = flag.Int("threads", 2, "intra-op threads")
	nodes   = flag.Bool("nodes", false, "by node instead of by operator type")
	warmup  = flag.Int("warmup", 1, "unprofiled rounds first (the first run of a session pays one-off costs)")
	chunk   = flag.Int("chunk", 0, "prefill in runs of this many tokens, as the engine does (0: one run)")
	shared  = flag.String("shared-kv", "auto", "bind one KV buffer as past and present, as the app runs GroupQueryAttention copies: on, off, or auto (on for EdgeChat's GroupQueryAttention copies)")
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
	Ts   int64  `json:"ts"`  // µs from the session's start
	Dur  int64  `json:"dur"` // µs
	Args struct {
		OpName string `json:"op_name"`
	} `json:"args"`
}

func run() error {
	if *model == "" {
		return errors.New("--model is required")
	}
	if _, err := env.Init(""); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "opprofile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sharedKV, err := sharedBuffer(*model, *shared)
	if err != nil {
		return err
	}
	setup, err := decoder.KernelSetup(*model) // an app's copy may run attention and products on EdgeChat's kernels
	if err != nil {
		return err
	}
	l, err := loop.Open(*model, loop.Options{Threads: *threads, MaxTokens: *prompt + *decode + 1, Profile: filepath.Join(dir, "p"), SharedKV: sharedKV, Setup: setup})
	if err != nil {
		return err
	}
	ids := make([]int, *prompt)
	for i := range ids {
		ids[i] = 100 + i%1000
	}
	var wall time.Duration
	for range *warmup + 1 {
		start := time.Now()
		if err := greedy(l, ids); err != nil {
			l.Close()
			return err
		}
		wall = time.Since(start)
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
	prefillFrom, decodeFrom := profiledFrom(events, len(ids))
	prefill, prefillRuns := tally(events, prefillFrom, decodeFrom)
	if *decode == 0 {
		printTable(fmt.Sprintf("prefill %d tokens, %d threads", *prompt, *threads), prefill, prefillRuns, wall)
		return nil
	}
	printTable(fmt.Sprintf("prefill %d tokens (then %d decode steps), %d threads", *prompt, *decode, *threads), prefill, prefillRuns, 0)
	dec, decRuns := tally(events, decodeFrom, math.MaxInt64)
	fmt.Println()
	printTable(fmt.Sprintf("%d decode steps after %d tokens, %d threads (%.2f ms a step in model_run)", *decode, *prompt, *threads, float64(decRuns)/1000/float64(*decode)), dec, decRuns, wall)
	return nil
}

// tally sums the kernel time per operator type (or node, with --nodes) of the events that
// start in [from, to), and the time of the runs that do.
func tally(events []event, from, to int64) (map[string]int64, int64) {
	total := map[string]int64{}
	var runs int64
	for _, e := range events {
		if e.Ts < from || e.Ts >= to {
			continue
		}
		if e.Cat == "Session" && e.Name == "model_run" {
			runs += e.Dur
		}
		if e.Cat == "Node" && strings.HasSuffix(e.Name, "_kernel_time") {
			key := e.Args.OpName
			if *nodes {
				key += " " + strings.TrimSuffix(e.Name, "_kernel_time")
			}
			total[key] += e.Dur
		}
	}
	return total, runs
}

// printTable prints a tally, most time first, under a title with its totals (and the whole
// round's wall-clock time when wall > 0).
func printTable(title string, total map[string]int64, runs int64, wall time.Duration) {
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
	fmt.Printf("%s: %.1f ms in kernels, %.1f ms in model_run", title, float64(sum)/1000, float64(runs)/1000)
	if wall > 0 {
		fmt.Printf(" (the round: %.1f ms)", float64(wall.Microseconds())/1000)
	}
	fmt.Println()
	for _, r := range rows {
		fmt.Printf("%-60s %9.1f ms %5.1f%%\n", r.op, float64(r.us)/1000, 100*float64(r.us)/float64(max(sum, 1)))
	}
}

// greedy prefills ids (in runs of --chunk tokens) and decodes --decode tokens greedily.
func greedy(l *loop.Loop, ids []int) error {
	if *chunk <= 0 || *chunk >= len(ids) {
		_, err := l.Greedy(ids, *decode)
		return err
	}
	l.Truncate(0)
	var next []int
	for i := 0; i < len(ids); i += *chunk {
		var err error
		if next, err = l.Forward(ids[i:min(i+*chunk, len(ids))], 1); err != nil {
			return err
		}
	}
	for range *decode {
		var err error
		if next, err = l.Forward(next[len(next)-1:], 1); err != nil {
			return err
		}
	}
	return nil
}

// profiledFrom is the start of the last round's first run and of its first decode run
// (math.MaxInt64 without decoding): the warm-up rounds' kernels are left out by time, as every
// round makes the same number of runs.
func profiledFrom(events []event, prompt int) (prefillAt, decodeAt int64) {
	var runs []int64
	for _, e := range events {
		if e.Cat == "Session" && e.Name == "model_run" {
			runs = append(runs, e.Ts)
		}
	}
	slices.Sort(runs)
	perRound := 1 + *decode
	if *chunk > 0 && *chunk < prompt {
		perRound = (prompt+*chunk-1) / *chunk + *decode
	}
	if len(runs) < perRound {
		return 0, math.MaxInt64
	}
	decodeAt = math.MaxInt64
	if *decode > 0 {
		decodeAt = runs[len(runs)-*decode]
	}
	return runs[len(runs)-perRound], decodeAt
}

// sharedBuffer decides --shared-kv: "auto" is on for a graph whose attention EdgeChat rewrote
// to GroupQueryAttention (without one shared buffer, every step clears and copies the whole
// cache, which the profile would charge to GroupQueryAttention).
func sharedBuffer(model, flag string) (bool, error) {
	switch flag {
	case "on":
		return true, nil
	case "off":
		return false, nil
	case "auto":
		info, err := proto.ReadInfo(model)
		if err != nil {
			return false, err
		}
		return info.Metadata[optimize.MetaAttention] != "", nil
	}
	return false, fmt.Errorf("--shared-kv is on, off or auto, not %q", flag)
}
