//go:build linux && amd64 && cgo

package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"edgechat/inference/ort/loop"
	"edgechat/inference/sample"
	"edgechat/internal/cputime"
)

// twinSide is one graph of a decode comparison: the app's optimized copy (no ops), or a twin
// of it whose nodes of these types run custom operators (opTwin).
type twinSide struct {
	name string
	ops  []string
}

// attnSides and bothSides are the graphs of --attn-twin and --both-twin, the copy first: every
// ratio is against it.
var (
	attnSides = []twinSide{{"GroupQueryAttention", nil}, {"attnop", []string{"GroupQueryAttention"}}}
	bothSides = []twinSide{
		{"ONNX Runtime", nil},
		{"q4.c", []string{"MatMulNBits"}},
		{"attnop", []string{"GroupQueryAttention"}},
		{"q4.c+attnop", []string{"MatMulNBits", "GroupQueryAttention"}},
	}
)

// decodeTwins runs the app's optimized copy (graph; float32 or int8 cache) against its twins,
// decode steps only: the copy runs the --prefill prompt once, each twin gets a copy of its cache
// (loop.CopyKV: the prompt stays on MatMulNBits and GroupQueryAttention, the steps run the
// custom operators), and then each side in turn takes decode greedy steps from that cache,
// --rounds times, each side first in turn. Before that, checkTwins runs every side's own prompt
// path and steps against the --ref float twin (or the copy).
func decodeTwins(graph string, sides []twinSide, decode int) error {
	paths := make([]string, len(sides))
	for i, s := range sides {
		paths[i] = graph
		if len(s.ops) == 0 {
			continue
		}
		p, n, err := opTwin(graph, s.ops...)
		if err != nil {
			return err
		}
		defer os.Remove(p)
		paths[i] = p
		fmt.Printf("%-20s twin: nodes on the custom operators %v\n", s.name, n)
	}
	fmt.Printf("%s: %d-token prompt, %d greedy steps a side and round, %d rounds, %d threads, spinning %v\n",
		graph, *prefill, decode, *rounds, *threads, *spin)
	loops, err := openTwins(sides, paths, *prefill+decode+1, *attnProfile)
	defer closeAll(loops)
	if err != nil {
		return err
	}
	ids := make([]int, *prefill)
	for i := range ids {
		ids[i] = 100 + i%1000
	}
	if *prefill <= 1000 { // attn.c's prompt path reads the cache once per prompt row
		if err := checkTwins(sides, loops, ids, decode); err != nil {
			return err
		}
	}
	first, err := promptAndCopy(loops, ids)
	if err != nil {
		return err
	}
	// --attn-short: a second set of sessions, buffers of the short context's size, its cache
	// the prompt's first rows (a cache only shrinks: the long set cannot go back to P rows).
	var short []*loop.Loop
	shortFirst := 0
	if *attnShort > 0 {
		if *attnShort >= *prefill {
			return fmt.Errorf("--attn-short %d: not shorter than --prefill %d", *attnShort, *prefill)
		}
		short, err = openTwins(sides, paths, *attnShort+decode+1, "")
		defer closeAll(short)
		if err != nil {
			return err
		}
		if shortFirst, err = promptAndCopy(short, ids[:*attnShort]); err != nil {
			return err
		}
	}
	n := len(sides)
	wall, cpuT := make([][]float64, n), make([][]float64, n)
	shortWall, shortCPU := make([][]float64, n), make([][]float64, n) // --attn-short
	tokens := make([][]int, n)
	for r := range *rounds + 1 { // round 0 warms up
		for j := range n {
			i := (j + r) % n
			w, c, toks, err := greedySteps(loops[i], *prefill, first, decode)
			if err != nil {
				return fmt.Errorf("%s: %w", sides[i].name, err)
			}
			tokens[i] = toks
			var ws, cs float64
			if *attnShort > 0 { // the same side from the short context, right after
				if ws, cs, _, err = greedySteps(short[i], *attnShort, shortFirst, decode); err != nil {
					return fmt.Errorf("%s: %w", sides[i].name, err)
				}
			}
			if r > 0 {
				wall[i] = append(wall[i], w)
				cpuT[i] = append(cpuT[i], c)
				shortWall[i] = append(shortWall[i], ws)
				shortCPU[i] = append(shortCPU[i], cs)
			}
		}
	}
	if *attnShort > 0 {
		for i, s := range sides {
			fmt.Printf("  %-20s decode step after %d tokens %6.2f ms CPU (median), after %d %6.2f: decode at %d ÷ at %d %.3f× (median of the rounds' ratios, CPU)\n",
				s.name, *attnShort, 1e3*median(shortCPU[i]), *prefill, 1e3*median(cpuT[i]), *prefill, *attnShort, pairedRatio(shortCPU[i], cpuT[i]))
		}
	}
	if *attnShort > 0 {
		for i, s := range sides[1:] {
			fmt.Printf("  %s/%s decode step after %d tokens: wall %.3f× (best), %.3f× (median of paired rounds); CPU %.3f× (median of paired rounds)\n",
				s.name, sides[0].name, *attnShort, slices.Min(shortWall[i+1])/slices.Min(shortWall[0]),
				pairedRatio(shortWall[i+1], shortWall[0]), pairedRatio(shortCPU[i+1], shortCPU[0]))
		}
	}
	for i, s := range sides {
		fmt.Printf("  %-20s decode step %6.2f ms wall (best; median %6.2f), %6.2f ms CPU (median)\n",
			s.name, 1e3*slices.Min(wall[i]), 1e3*median(wall[i]), 1e3*median(cpuT[i]))
	}
	for i, s := range sides[1:] {
		i++
		fmt.Printf("  %s/%s decode step: wall %.3f× (best), %.3f× (median of paired rounds); CPU %.3f× (median of paired rounds); greedy tokens: the first %d of %d agree\n",
			s.name, sides[0].name, slices.Min(wall[i])/slices.Min(wall[0]), pairedRatio(wall[i], wall[0]), pairedRatio(cpuT[i], cpuT[0]),
			agree(tokens[0], tokens[i]), len(tokens[0]))
	}
	return nil
}

// openTwins opens one loop a side, the twins with the custom operators registered; on an
// error it returns the loops opened so far, for closeAll.
func openTwins(sides []twinSide, paths []string, maxTokens int, profile string) ([]*loop.Loop, error) {
	base, withOps := twinOptions(0)
	base.MaxTokens, withOps.MaxTokens = maxTokens, maxTokens
	var loops []*loop.Loop
	for i, s := range sides {
		o := base
		if len(s.ops) > 0 {
			o = withOps
		}
		if profile != "" { // ONNX Runtime's per-node trace of each side
			o.Profile = fmt.Sprintf("%s-%d", profile, i)
		}
		l, err := loop.Open(paths[i], o)
		if err != nil {
			return loops, fmt.Errorf("open %s: %w", paths[i], err)
		}
		loops = append(loops, l)
	}
	return loops, nil
}

func closeAll(loops []*loop.Loop) {
	for _, l := range loops {
		l.Close()
	}
}

// promptAndCopy runs the prompt on the first loop and copies its cache into the others; it
// returns the greedy token after the prompt.
func promptAndCopy(loops []*loop.Loop, ids []int) (int, error) {
	loops[0].Truncate(0)
	logits, err := loops[0].Step(ids)
	if err != nil {
		return 0, err
	}
	first := sample.Argmax(logits[len(logits)-loops[0].Vocab():])
	for _, l := range loops[1:] {
		if err := l.CopyKV(loops[0]); err != nil {
			return 0, err
		}
	}
	return first, nil
}

// greedySteps times n greedy steps of l from its first at cached tokens, fed token next: the
// wall-clock and CPU seconds of a step, and the tokens.
func greedySteps(l *loop.Loop, at, next, n int) (w, c float64, toks []int, err error) {
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

// agree is how many tokens a and b share from the start.
func agree(a, b []int) int {
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	return n
}

// checkTwins runs every side's own prompt path and then n steps fed the reference's greedy
// tokens (teacher forcing, so that one flipped token does not end the comparison), the
// reference being the --ref float twin or else the copy (sides[0]). Per side it prints the
// logits' largest difference from the reference's (over their standard deviation) after the
// prompt and over the steps, and the steps whose greedy token differs from the reference's,
// with the reference's gap between its top two logits there: a token flips where the
// difference exceeds that gap. It also prints each prompt's time, one run each.
func checkTwins(sides []twinSide, loops []*loop.Loop, ids []int, n int) error {
	ref, refName, from := loops[0], sides[0].name, 1
	if *refGraph != "" {
		base, _ := twinOptions(n)
		r, err := loop.Open(*refGraph, base)
		if err != nil {
			return fmt.Errorf("open %s: %w", *refGraph, err)
		}
		defer r.Close()
		ref, refName, from = r, "the float twin (--ref)", 0
	}
	fmt.Printf("  check against %s: each side's own prompt, then %d steps fed its greedy tokens\n", refName, n)
	want, gaps, sd, err := refRun(ref, ids, n)
	if err != nil {
		return err
	}
	for i := from; i < len(sides); i++ {
		l := loops[i]
		l.Truncate(0)
		w0, c0 := nowCPU()
		lg, err := l.Step(ids)
		if err != nil {
			return fmt.Errorf("%s: %w", sides[i].name, err)
		}
		w, c := sinceCPU(w0, c0)
		lg = lg[len(lg)-l.Vocab():]
		prompt := maxAbsDiff(lg, want[0].logits)
		worst, worstAt := 0.0, 0
		var flips []string
		for s := 0; s <= n; s++ {
			if s > 0 {
				if lg, err = l.Step([]int{want[s-1].token}); err != nil {
					return fmt.Errorf("%s: %w", sides[i].name, err)
				}
			}
			d := maxAbsDiff(lg, want[s].logits)
			if d > worst {
				worst, worstAt = d, s
			}
			if tok := sample.Argmax(lg); tok != want[s].token {
				flips = append(flips, fmt.Sprintf("step %d (|Δ| %.3g, gap %.3g)", s, d, gaps[s]))
			}
		}
		fmt.Printf("  %-20s prompt %.2f s wall, %.2f s CPU | logits' largest |Δ| after the prompt %.3g (%.2g sd), over the steps %.3g (%.2g sd, step %d) | greedy token differs at %d of %d: %v\n",
			sides[i].name, w, c, prompt, prompt/sd, worst, worst/sd, worstAt, len(flips), n+1, flips)
	}
	return nil
}

// refStep is the reference's logits and greedy token after the prompt (step 0) or a step.
type refStep struct {
	logits []float32
	token  int
}

// refRun runs the prompt and n greedy steps on the reference, keeping every step's logits; it
// returns them, the gap between the top two logits at each, and the logits' standard deviation
// after the prompt.
func refRun(ref *loop.Loop, ids []int, n int) ([]refStep, []float64, float64, error) {
	ref.Truncate(0)
	lg, err := ref.Step(ids)
	if err != nil {
		return nil, nil, 0, err
	}
	lg = lg[len(lg)-ref.Vocab():]
	var steps []refStep
	var gaps []float64
	for s := 0; s <= n; s++ {
		if s > 0 {
			if lg, err = ref.Step([]int{steps[s-1].token}); err != nil {
				return nil, nil, 0, err
			}
		}
		steps = append(steps, refStep{slices.Clone(lg), sample.Argmax(lg)})
		gaps = append(gaps, topGap(lg))
	}
	return steps, gaps, spread(steps[0].logits), nil
}

// nowCPU and sinceCPU time a span in wall-clock and process CPU seconds.
func nowCPU() (time.Time, time.Duration) { return time.Now(), cputime.Used() }

func sinceCPU(w time.Time, c time.Duration) (wall, cpu float64) {
	return time.Since(w).Seconds(), (cputime.Used() - c).Seconds()
}
