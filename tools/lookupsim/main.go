// Command lookupsim measures prompt-lookup drafting offline: it records a model's greedy
// continuations once (bare ONNX Runtime loop), then replays the drafter against them, so
// drafting policies compare in decoder runs and in run cost (1 + c·k for a run checking k
// drafted tokens) without timing noise, beside the bound of an oracle that drafts the longest
// piece of the context equal to what the model will say next, and of two half-oracles that
// know only how far a draft will be kept (see knownLength).
//
//	go run ./tools/lookupsim --model ../shared/models/stories260K/onnx/model.onnx
//
// Prompts are windows of --ids (default: stories260K's reference story); the workloads are
// those of `edgechat bench --lookup`: continue, reuse (prompt, answer, prompt) and quote (a
// passage, then its first half again).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"edgechat/inference/lookup"
	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
)

var (
	model    = flag.String("model", "", "decoder graph (.onnx)")
	idsFlag  = flag.String("ids", "1,403,407,261,378,432,383,286,261,376,298,315,421,395,317,426,338,401,396,267,337,410,408,419,292,411,322,265,282,295,433,426,385,328,432,358,394,261,370,432,352,266,268,388,426", "reference token ids the prompts are cut from (the first is BOS)")
	prompts  = flag.Int("prompts", 12, "prompts: windows of up to 8 ids ending along the reference")
	tokens   = flag.Int("tokens", 400, "greedy tokens of a continuation")
	newline  = flag.Int("newline", 13, "the id that separates turns in reuse and quote")
	rowCosts = flag.String("row-cost", "0.05,0.13", "row costs c to replay at, comma-separated")
	maxDraft = flag.Int("max-draft", 15, "oracle's longest draft")
	maxN     = flag.Int("max-ngram", 5, "drafter's longest suffix match")
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "lookupsim:", err)
		os.Exit(1)
	}
}

// seq is a prompt and the model's greedy reply to it.
type seq struct {
	workload      int
	prompt, truth []int
}

var workloads = []string{"continue", "reuse", "quote"}

func run() error {
	flag.Parse()
	if *model == "" {
		return errors.New("--model is required")
	}
	ref, err := parseInts(*idsFlag)
	if err != nil || len(ref) < 2 {
		return fmt.Errorf("--ids: %v", err)
	}
	var costs []float64
	for _, s := range strings.Split(*rowCosts, ",") {
		c, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || c <= 0 {
			return fmt.Errorf("--row-cost %q: want positive numbers", s)
		}
		costs = append(costs, c)
	}
	if _, err := env.Init(""); err != nil {
		return err
	}
	l, err := loop.Open(*model, loop.Options{Threads: 2, MaxTokens: 2*(*tokens) + 64})
	if err != nil {
		return err
	}
	defer l.Close()
	greedy := func(p []int, n int) ([]int, error) {
		l.Truncate(0)
		r, err := lookup.Greedy(l, p, n, func(int) bool { return false }, nil)
		return r.Tokens, err
	}
	var seqs []seq
	for i := range *prompts {
		end := 2 + i*(len(ref)-2) / *prompts
		p := append([]int{ref[0]}, ref[max(1, end-8):end]...)
		first, err := greedy(p, *tokens)
		if err != nil {
			return err
		}
		seqs = append(seqs, seq{0, p, first})
		half := min(len(first), 120)
		reuse := slices.Concat(p, first[:half], []int{*newline}, p[1:])
		quote := slices.Concat(p, first[:min(len(first), 200)], []int{*newline}, p[1:], first[:min(len(first), 100)])
		for w, prompt := range map[int][]int{1: reuse, 2: quote} {
			truth, err := greedy(prompt, 120)
			if err != nil {
				return err
			}
			seqs = append(seqs, seq{w, prompt, truth})
		}
	}
	fmt.Printf("%s: %d prompts, continue %d tokens, reuse and quote 120\n", *model, *prompts, *tokens)
	fmt.Printf("%-28s", "")
	for _, w := range workloads {
		fmt.Printf("  %-26s", w)
	}
	fmt.Println()
	for _, c := range costs {
		row(fmt.Sprintf("drafter, c = %g", c), seqs, true, func(s seq) (int, float64) {
			return replay(s, lookup.New(lookup.Options{RowCost: c, MaxNGram: *maxN}), c)
		})
	}
	row(fmt.Sprintf("oracle, k ≤ %d", *maxDraft), seqs, false, func(s seq) (int, float64) { return oracle(s, *maxDraft), 0 })
	row("drafter's match, k known", seqs, false, func(s seq) (int, float64) { return knownLength(s, *maxDraft, false), 0 })
	row("best suffix match, k known", seqs, false, func(s seq) (int, float64) { return knownLength(s, *maxDraft, true), 0 })
	return nil
}

// row prints one policy's savings per workload: the plain decoder runs over its runs, and
// over its run cost when withCost.
func row(label string, seqs []seq, withCost bool, runsOf func(seq) (runs int, cost float64)) {
	var plain, runs [3]int
	var cost [3]float64
	for _, s := range seqs {
		r, c := runsOf(s)
		plain[s.workload] += len(s.truth) - 1
		runs[s.workload] += r
		cost[s.workload] += c
	}
	fmt.Printf("%-28s", label)
	for w := range workloads {
		cell := fmt.Sprintf("%.2f× runs", float64(plain[w])/float64(runs[w]))
		if withCost {
			cell += fmt.Sprintf(", %.2f× cost", float64(plain[w])/cost[w])
		}
		fmt.Printf("  %-26s", cell)
	}
	fmt.Println()
}

// replay decodes s.truth with the drafter d through lookup.Greedy, on a model that answers
// with the recorded reply, and returns the decoder runs after the prompt and their cost at
// row cost c.
func replay(s seq, d *lookup.Drafter, c float64) (runs int, cost float64) {
	m := &recorded{text: slices.Concat(s.prompt, s.truth), c: c}
	r, err := lookup.Greedy(m, s.prompt, len(s.truth), func(int) bool { return false }, d)
	if err != nil {
		panic(err) // a recorded model never fails
	}
	return r.Forwards, m.cost - 1 // the prompt's run is not counted
}

// recorded is a lookup.Model that knows its greedy text: the token after each position is
// the text's next one, whatever was fed there, which is all that lookup.Accept reads up to
// the first drafted token that differs.
type recorded struct {
	text    []int
	n       int // tokens in the cache
	c, cost float64
}

func (m *recorded) Forward(ids []int, rows int) ([]int, error) {
	m.n += len(ids)
	m.cost += 1 + m.c*float64(rows-1)
	picks := make([]int, rows)
	for i := range picks {
		picks[i] = -1 // past the recorded reply: a draft reaching its end is never followed
		if next := m.n - rows + i + 1; next < len(m.text) {
			picks[i] = m.text[next]
		}
	}
	return picks, nil
}

func (m *recorded) Truncate(n int) { m.n = min(n, m.n) }

// oracle counts the runs of a drafter that knows the reply: each run drafts the longest
// piece (up to k tokens) of the text so far that equals what comes next.
func oracle(s seq, k int) (runs int) {
	text := append(append([]int{}, s.prompt...), s.truth[0])
	for pos, n := 1, len(s.truth); pos < n; {
		best := 0
		for st := range text {
			m := 0
			for m < k && st+m < len(text) && pos+m < n && text[st+m] == s.truth[pos+m] {
				m++
			}
			best = max(best, m)
		}
		runs++
		take := min(best+1, n-pos)
		text, pos = append(text, s.truth[pos:pos+take]...), pos+take
	}
	return runs
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// knownLength counts the runs of two half-oracles, between the drafter and the oracle: the
// drafter's match (Find) drafted exactly as far as the reply agrees with it; and with
// suffixAll, the best of every earlier occurrence of the text's last 1 to 5 tokens. What
// the drafter loses to the first is its choice of draft lengths; to the second, its choice
// of occurrence as well.
func knownLength(s seq, k int, suffixAll bool) (runs int) {
	text := append(append([]int{}, s.prompt...), s.truth[0])
	for pos, n := 1, len(s.truth); pos < n; {
		best := 0
		if suffixAll {
			L := len(text)
			for m := 1; m <= 5 && m < L; m++ {
				suf := text[L-m:]
				for st := 0; st+m < L; st++ {
					if !slices.Equal(text[st:st+m], suf) {
						continue
					}
					a := 0
					for a < k && st+m+a < L && pos+a < n && text[st+m+a] == s.truth[pos+a] {
						a++
					}
					best = max(best, a)
				}
			}
		} else {
			f := lookup.Find(text, 1, *maxN, k)
			for best < len(f) && pos+best < n && f[best] == s.truth[pos+best] {
				best++
			}
		}
		runs++
		take := min(best+1, n-pos)
		text, pos = append(text, s.truth[pos:pos+take]...), pos+take
	}
	return runs
}
