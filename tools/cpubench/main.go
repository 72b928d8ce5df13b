// Command cpubench compares decoder graphs by the CPU time a prefill and a decode step take,
// not only their wall-clock time: on a machine shared with other jobs, wall-clock figures
// swing by tens of percent, while the CPU time this process spends (with spin-waiting off,
// and most steadily with one thread) tracks the work a graph asks for. Graphs run through the
// bare loop (inference/ort/loop) on one shared KV buffer, in turn, each first in turn, after
// a warm-up round; it also says when their greedy tokens differ.
//
//	go run ./tools/cpubench --prompt 428 --decode 32 base=/path/a.onnx new=/path/b.onnx
//
// The app's copies with and without EdgeChat's kernels (attention, int4 products) are graphs of
// their own in the graph cache (edgechat bench --attn-kernel=off / --matmul-kernel=off writes
// the other); a copy on the kernels registers them.
//
// A graph named as name=path.onnx,flash keeps ONNX Runtime's flash attention path for its
// quantized KV cache (loop.Options.QuantFlash); the same graph without ,flash runs the plain
// path, as the app does.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"edgechat/inference/ort/decoder"
	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
	"edgechat/internal/cputime"
)

var (
	prompt  = flag.Int("prompt", 428, "prompt tokens")
	decode  = flag.Int("decode", 32, "decode steps")
	rounds  = flag.Int("rounds", 3, "rounds")
	threads = flag.Int("threads", 1, "threads")
	chunk   = flag.Int("chunk", 0, "prefill in runs of this many tokens (0: one run)")
	decOnly = flag.Bool("decode-only", false, "prefill each graph once, untimed, and time only the decode steps after it each round (the cache cut back to the prompt): decoding after a long history without paying its prefill every round")
)

// cpu is the CPU time (user and system) this process has spent.

func main() {
	flag.Parse()
	graphs := flag.Args() // name=path
	if len(graphs) == 0 {
		fmt.Fprintln(os.Stderr, "cpubench: name graphs to compare as name=path.onnx")
		os.Exit(2)
	}
	if _, err := env.Init(""); err != nil {
		fmt.Fprintln(os.Stderr, "cpubench:", err)
		os.Exit(1)
	}
	type g struct {
		name                 string
		l                    *loop.Loop
		pre, dec, preW, decW time.Duration
	}
	var gs []*g
	for _, a := range graphs {
		name, path, _ := strings.Cut(a, "=")
		path, flash := strings.CutSuffix(path, ",flash") // a quantized cache on ONNX Runtime's flash path
		setup, err := decoder.KernelSetup(path)          // an app's copy may run attention and products on EdgeChat's kernels
		if err != nil {
			fmt.Fprintln(os.Stderr, name, err)
			os.Exit(1)
		}
		l, err := loop.Open(path, loop.Options{Threads: *threads, MaxTokens: *prompt + *decode + 2, SharedKV: true, QuantFlash: flash, Setup: setup,
			Config: map[string]string{"session.intra_op.allow_spinning": "0"}})
		if err != nil {
			fmt.Fprintln(os.Stderr, name, err)
			os.Exit(1)
		}
		gs = append(gs, &g{name: name, l: l})
	}
	ids := make([]int, *prompt)
	for i := range ids {
		ids[i] = 100 + (i*7919)%5000
	}
	var first []int
	for r := 0; r < *rounds+1; r++ {
		for j := range gs {
			x := gs[(j+r)%len(gs)]
			c0, w0 := cputime.Used(), time.Now()
			var next []int
			var err error
			if *decOnly && r > 0 { // the prompt's rows are still cached: its last token again
				x.l.Truncate(len(ids) - 1)
				next, err = x.l.Forward(ids[len(ids)-1:], 1)
			} else if x.l.Truncate(0); *chunk > 0 {
				for i := 0; i < len(ids); i += *chunk {
					next, err = x.l.Forward(ids[i:min(i+*chunk, len(ids))], 1)
				}
			} else {
				next, err = x.l.Forward(ids, 1)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "cpubench:", x.name, err)
				os.Exit(1)
			}
			c1, w1 := cputime.Used(), time.Now()
			toks := []int{next[0]}
			for range *decode {
				if next, err = x.l.Forward(next[len(next)-1:], 1); err != nil {
					fmt.Fprintln(os.Stderr, "cpubench:", x.name, err)
					os.Exit(1)
				}
				toks = append(toks, next[0])
			}
			c2, w2 := cputime.Used(), time.Now()
			if r > 0 { // round 0 warms up
				x.pre += c1 - c0
				x.dec += c2 - c1
				x.preW += w1.Sub(w0)
				x.decW += w2.Sub(w1)
			}
			if first == nil {
				first = toks
			} else if r == 0 && fmt.Sprint(first) != fmt.Sprint(toks) {
				at := 0
				for at < min(len(toks), len(first)) && toks[at] == first[at] {
					at++
				}
				fmt.Printf("  %s: greedy tokens differ from %s's from token %d: %v vs %v\n", x.name, gs[0].name, at, toks[at:min(at+8, len(toks))], first[at:min(at+8, len(first))])
			}
		}
	}
	n := float64(*rounds)
	base := gs[0]
	pre := fmt.Sprintf("prefill %d", *prompt)
	if *decOnly { // the timed "prefill" ran the prompt's last token again
		pre = fmt.Sprintf("1 token at %d", *prompt-1)
	}
	for _, x := range gs {
		fmt.Printf("%-8s %s: cpu %7.1f ms (%.3f×) wall %7.1f ms | decode: cpu %6.2f ms/token (%.3f×) wall %6.2f ms/token\n", x.name, pre,
			x.pre.Seconds()*1000/n, x.pre.Seconds()/base.pre.Seconds(), x.preW.Seconds()*1000/n,
			x.dec.Seconds()*1000/n/float64(*decode), x.dec.Seconds()/base.dec.Seconds(), x.decW.Seconds()*1000/n/float64(*decode))
	}
}
