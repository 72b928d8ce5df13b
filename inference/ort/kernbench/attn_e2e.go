//go:build linux && amd64 && cgo

package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"edgechat/inference/ort/loop"
	"edgechat/inference/sample"
)

// attnEndToEnd runs the app's optimized copy (graph; float32 or int8 cache) against its twin
// whose GroupQueryAttention nodes run customop/attn.c, decode steps only: the copy runs the
// --prefill prompt once, the twin gets a copy of its cache (loop.CopyKV), and then each side
// in turn takes --decode greedy steps from that cache, --rounds times. The twin also runs the
// prompt itself once (attn.c's prompt path) to compare the logits after it.
func attnEndToEnd(graph string, decode int) error {
	twin, n, err := opTwin(graph, "GroupQueryAttention")
	if err != nil {
		return err
	}
	defer os.Remove(twin)
	fmt.Printf("%s: %d GroupQueryAttention nodes on attn.c in the twin; %d-token prompt, %d greedy steps a round, %d threads, spinning %v\n",
		graph, n, *prefill, decode, *threads, *spin)
	names := [2]string{"GroupQueryAttention", "attn.c"}
	base, withOps := twinOptions(decode)
	var loops [2]*loop.Loop
	for i, p := range []string{graph, twin} {
		o := base
		if i == 1 {
			o = withOps
		}
		if *attnProfile != "" { // ONNX Runtime's per-node trace of each side
			o.Profile = fmt.Sprintf("%s-%d", *attnProfile, i)
		}
		if loops[i], err = loop.Open(p, o); err != nil {
			return fmt.Errorf("open %s: %w", p, err)
		}
		defer loops[i].Close()
	}
	ids := make([]int, *prefill)
	for i := range ids {
		ids[i] = 100 + i%1000
	}
	if *prefill <= 1000 {
		fmt.Printf("  attn.c's prompt path against GroupQueryAttention's:")
		if err := compareLogits(loops, ids); err != nil {
			return err
		}
	}
	loops[0].Truncate(0)
	logits, err := loops[0].Step(ids)
	if err != nil {
		return err
	}
	first := sample.Argmax(logits[len(logits)-loops[0].Vocab():])
	if err := loops[1].CopyKV(loops[0]); err != nil {
		return err
	}
	// --attn-short: a second pair of sessions, buffers of the short context's size, its cache
	// the prompt's first rows (a cache only shrinks: the long pair cannot go back to P rows).
	var short [2]*loop.Loop
	shortFirst := 0
	if *attnShort > 0 {
		if *attnShort >= *prefill {
			return fmt.Errorf("--attn-short %d: not shorter than --prefill %d", *attnShort, *prefill)
		}
		for i, p := range []string{graph, twin} {
			o := base
			if i == 1 {
				o = withOps
			}
			o.MaxTokens = *attnShort + decode + 1
			if short[i], err = loop.Open(p, o); err != nil {
				return fmt.Errorf("open %s: %w", p, err)
			}
			defer short[i].Close()
		}
		lg, err := short[0].Step(ids[:*attnShort])
		if err != nil {
			return err
		}
		shortFirst = sample.Argmax(lg[len(lg)-short[0].Vocab():])
		if err := short[1].CopyKV(short[0]); err != nil {
			return err
		}
	}
	var wall, cpuT [2][]float64
	var shortCPU [2][]float64 // --attn-short: each round's step from the short context, CPU
	var tokens [2][]int
	// steps times n greedy steps of loop l from the first at cached tokens, fed token next.
	steps := func(l *loop.Loop, at, next, n int) (w, c float64, toks []int, err error) {
		l.Truncate(at)
		toks = []int{next}
		w0, c0 := nowCPU()
		for range n {
			lg, err := l.Step([]int{next})
			if err != nil {
				return 0, 0, nil, err
			}
			next = sample.Argmax(lg)
			toks = append(toks, next)
		}
		w, c = sinceCPU(w0, c0)
		return w / float64(n), c / float64(n), toks, nil
	}
	for r := range *rounds + 1 { // round 0 warms up
		for j := range 2 {
			i := (j + r) % 2
			w, c, toks, err := steps(loops[i], *prefill, first, decode)
			if err != nil {
				return fmt.Errorf("%s: %w", names[i], err)
			}
			tokens[i] = toks
			var cs float64
			if *attnShort > 0 { // the same side from the short context, right after
				if _, cs, _, err = steps(short[i], *attnShort, shortFirst, decode); err != nil {
					return fmt.Errorf("%s: %w", names[i], err)
				}
			}
			if r > 0 {
				wall[i] = append(wall[i], w)
				cpuT[i] = append(cpuT[i], c)
				shortCPU[i] = append(shortCPU[i], cs)
			}
		}
	}
	if *attnShort > 0 {
		for i := range 2 {
			fmt.Printf("  %-20s decode step after %d tokens %6.2f ms CPU (median), after %d %6.2f: decode at %d ÷ at %d %.3f× (median of the rounds' ratios, CPU)\n",
				names[i], *attnShort, 1e3*median(shortCPU[i]), *prefill, 1e3*median(cpuT[i]), *prefill, *attnShort, pairedRatio(shortCPU[i], cpuT[i]))
		}
	}
	for i := range 2 {
		fmt.Printf("  %-20s decode step %6.2f ms wall (best; median %6.2f), %6.2f ms CPU (median)\n",
			names[i], 1e3*slices.Min(wall[i]), 1e3*median(wall[i]), 1e3*median(cpuT[i]))
	}
	fmt.Printf("  attn.c/GroupQueryAttention decode step: wall %.3f× (best), %.3f× (median of paired rounds); CPU %.3f× (median of paired rounds)\n",
		slices.Min(wall[1])/slices.Min(wall[0]), pairedRatio(wall[1], wall[0]), pairedRatio(cpuT[1], cpuT[0]))
	same := 0
	for same < min(len(tokens[0]), len(tokens[1])) && tokens[0][same] == tokens[1][same] {
		same++
	}
	fmt.Printf("  greedy tokens: the first %d of %d agree\n", same, len(tokens[0]))
	return nil
}

// nowCPU and sinceCPU time a span in wall-clock and process CPU seconds.
func nowCPU() (time.Time, time.Duration) { return time.Now(), cpuTime() }

func sinceCPU(w time.Time, c time.Duration) (wall, cpu float64) {
	return time.Since(w).Seconds(), (cpuTime() - c).Seconds()
}
