// Command kvcalib makes and checks the int8 (or, with --bits 4, 4-bit) KV cache copy of a
// decoder graph: it writes the GroupQueryAttention copy the app runs (onnx/optimize with the
// decoder's rewrites, rotary inside), runs it with a float32 cache over a calibration text
// (optimize.KVCalibrationText) to find each channel's largest value, writes the quantized
// copy with scales of that × --margin,
// and compares the two: greedy tokens after a prompt and after --history tokens of context (the
// first divergence, and the share of teacher-forced picks that agree, telling near ties apart).
// It prints both copies' paths for tools/cpubench.
//
//	go run ./inference/ort/kvcalib --graph DIR/onnx/model_q4.onnx --cache /tmp/kv8
//
// It lives under inference/ort because it drives ONNX Runtime sessions directly.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"edgechat/inference/ort/decoder"
	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
	"edgechat/inference/sample"
	"edgechat/onnx/optimize"
	"edgechat/tokenizer"
)

var (
	graph   = flag.String("graph", "", "the decoder graph as published (.onnx)")
	tokDir  = flag.String("tokenizer", "", "folder with tokenizer.json (default: the graph's folder or its parent)")
	cache   = flag.String("cache", "", "folder for the copies (required)")
	margin  = flag.Float64("margin", 1.25, "scale = channel maximum × margin / 127 (/ 7 with --bits 4)")
	bits    = flag.Int("bits", 8, "cache bits: 8 (int8) or 4 (two values a byte)")
	check   = flag.Int("check", 32, "greedy tokens compared")
	history = flag.Int("history", 3000, "tokens of context before the long-context comparison (0: none)")
	threads = flag.Int("threads", 2, "intra-op threads")
	calibN  = flag.Int("calib-tokens", 512, "calibrate on at most this many tokens of the text (the app takes 512)")
	prompt  = flag.String("prompt", "<|im_start|>user\nWhy is the sky blue?<|im_end|>\n<|im_start|>assistant\n", "prompt of the short comparison")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kvcalib:", err)
		os.Exit(1)
	}
}

func run() error {
	if *graph == "" || *cache == "" {
		return fmt.Errorf("--graph and --cache are required")
	}
	if _, err := env.Init(""); err != nil {
		return err
	}
	tok, err := loadTokenizer()
	if err != nil {
		return err
	}
	calib := tok.EncodeSpecial(optimize.KVCalibrationText)
	calib = calib[:min(len(calib), *calibN)]
	maxTokens := max(*history, len(calib)) + len(tok.EncodeSpecial(*prompt)) + *check + 16
	gqa, rep, err := optimize.Cached(*graph, *cache, decoder.CPUCopyOptions(*graph, maxTokens))
	if err != nil {
		return err
	}
	if rep.AttentionSkipped != "" {
		return fmt.Errorf("no GroupQueryAttention copy: %s", rep.AttentionSkipped)
	}
	f, err := open(gqa, maxTokens)
	if err != nil {
		return err
	}
	defer f.Close()
	for i := 0; i < len(calib); i += 256 {
		if _, err := f.Step(calib[i:min(i+256, len(calib))]); err != nil {
			return err
		}
	}
	src, err := os.ReadFile(gqa)
	if err != nil {
		return err
	}
	keys, err := optimize.KVKeys(src)
	if err != nil {
		return err
	}
	m := optimize.KVMax{}
	if err := f.EachKVRow(func(name string, head int, row []float32) { m.Add(name, head, row, keys[name]) }); err != nil {
		return err
	}
	kv8, err := optimize.CachedKVBits(gqa, *cache, fmt.Sprintf("kvcalib %d tokens, margin %g", len(calib), *margin), *bits, func() (optimize.KVScales, error) {
		return optimize.ScalesFromMaxBits(m, *margin, *bits), nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("calibrated on %d tokens (margin %.2f)\nfloat32 cache: %s\n%d-bit cache:  %s\n", len(calib), *margin, gqa, *bits, kv8)
	q, err := open(kv8, maxTokens)
	if err != nil {
		return err
	}
	defer q.Close()
	p := tok.EncodeSpecial(*prompt)
	if err := compare("after the prompt", f, q, nil, p); err != nil {
		return err
	}
	if *history > 0 {
		ctx := make([]int, *history)
		for i := range ctx {
			ctx[i] = calib[i%len(calib)] // the calibration chat, over and over
		}
		if err := compare(fmt.Sprintf("after %d tokens of context", *history), f, q, ctx, p); err != nil {
			return err
		}
	}
	return nil
}

func loadTokenizer() (*tokenizer.Pipeline, error) {
	dir := *tokDir
	if dir == "" {
		dir = filepath.Dir(*graph)
		if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
			dir = filepath.Dir(dir)
		}
	}
	return tokenizer.Load(dir)
}

func open(path string, maxTokens int) (*loop.Loop, error) {
	setup, err := decoder.KernelSetup(path) // the copy's attention and products may run on EdgeChat's kernels
	if err != nil {
		return nil, err
	}
	return loop.Open(path, loop.Options{Threads: *threads, MaxTokens: maxTokens, SharedKV: true, Setup: setup})
}

// compare runs context then prompt through both loops, then greedy decoding: float32's free
// run against int8's (where they first differ) and int8's picks on float32's tokens
// (teacher-forced: how many agree).
func compare(what string, f, q *loop.Loop, context, prompt []int) error {
	feed := func(l *loop.Loop, ids []int) ([]float32, error) {
		var logits []float32
		var err error
		for i := 0; i < len(ids); i += 256 {
			if logits, err = l.Step(ids[i:min(i+256, len(ids))]); err != nil {
				return nil, err
			}
		}
		return logits, nil
	}
	all := append(append([]int(nil), context...), prompt...)
	var free [2][]int
	agree := 0
	var lf, lq []float32
	for i, l := range []*loop.Loop{f, q} {
		l.Truncate(0)
		logits, err := feed(l, all)
		if err != nil {
			return err
		}
		if i == 0 {
			lf = logits
		} else {
			lq = logits
		}
	}
	v := f.Vocab()
	// Teacher-forced: both take float32's pick each step. A differing pick is a near tie when
	// float32's top two are closer than the largest logit difference between the caches.
	var worst, scale float64
	ties := 0
	for range *check {
		rf, rq := lf[len(lf)-v:], lq[len(lq)-v:]
		a, b := sample.Argmax(rf), sample.Argmax(rq)
		diff := 0.0
		for i := range rf {
			diff = max(diff, math.Abs(float64(rf[i]-rq[i])))
			scale = max(scale, math.Abs(float64(rf[i])))
		}
		worst = max(worst, diff)
		free[0] = append(free[0], a)
		if a == b {
			agree++
		} else if float64(rf[a]-rf[b]) <= 2*diff {
			ties++
		}
		var err error
		if lf, err = f.Step([]int{a}); err != nil {
			return err
		}
		if lq, err = q.Step([]int{a}); err != nil {
			return err
		}
	}
	// Free run of the int8 cache.
	q.Truncate(0)
	logits, err := feed(q, all)
	if err != nil {
		return err
	}
	for range *check {
		b := sample.Argmax(logits[len(logits)-v:])
		free[1] = append(free[1], b)
		if logits, err = q.Step([]int{b}); err != nil {
			return err
		}
	}
	same := 0
	for same < len(free[0]) && free[0][same] == free[1][same] {
		same++
	}
	fmt.Printf("%s: greedy tokens identical for the first %d of %d; teacher-forced picks agree %d/%d (%d of the others near ties); largest logit difference %.3g of the largest logit\n  float32 %v\n  %d-bit   %v\n",
		what, same, *check, agree, *check, ties, worst/scale, free[0], *bits, free[1])
	return nil
}
