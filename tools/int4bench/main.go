// Command int4bench measures what makes an int4 decoder fast on ONNX Runtime, on the bare
// loop (inference/ort/loop) so that only the graph and session options change: MatMulNBits
// accuracy level 4, the LM head on the last row, spin-waiting, decode cost against context,
// and T(k+1)/T(1), the cost of verifying k drafted tokens in one run.
//
//	go run ./tools/int4bench --model /tmp/q/onnx/model_q4.onnx [--threads 2] [--rounds 3]
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
	"edgechat/inference/sample"
	"edgechat/internal/paths"
	"edgechat/onnx/optimize"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "int4bench:", err)
		os.Exit(1)
	}
}

var (
	model   = flag.String("model", "", "int4 decoder graph (.onnx)")
	threads = flag.Int("threads", 2, "intra-op threads")
	rounds  = flag.Int("rounds", 3, "interleaved rounds; the best of each is reported")
	prompt  = flag.Int("prompt", 428, "prompt tokens")
	decode  = flag.Int("decode", 64, "greedy tokens")
	only    = flag.String("only", "", "run one part: variants, agreement, spin, context, verify")
	shared  = flag.Bool("shared-kv", false, "one KV buffer bound as past and present (GroupQueryAttention graphs: --quant genai-int4)")
	cache   = flag.String("cache", filepath.Join(paths.CacheDir(), "bench"), "where the optimized copies go")
)

func run() error {
	flag.Parse()
	if *model == "" {
		return errors.New("--model is required")
	}
	if _, err := env.Init(""); err != nil {
		return err
	}
	if err := loop.Warm(*model); err != nil { // EdgeChat runs drop the weights from the page cache
		return err
	}
	ids := tokens(*prompt)
	parts := map[string]func([]int) error{"variants": variants, "agreement": agreement, "spin": spin, "context": contextCost, "verify": verify}
	for _, name := range []string{"variants", "agreement", "spin", "context", "verify"} {
		if *only == "" || *only == name {
			if err := parts[name](ids); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return nil
}

// tokens is n ids of ordinary-looking Qwen3 text ids, repeating.
func tokens(n int) []int {
	base := []int{785, 27829, 54755, 8473, 279, 42578, 594, 6172, 12557, 10709, 518, 3347, 2355, 11, 1393, 279, 13940, 13469, 279, 2732, 13}
	out := make([]int, n)
	for i := range out {
		out[i] = base[i%len(base)]
	}
	return out
}

func variant(o optimize.Options) (string, error) {
	if o == (optimize.Options{}) {
		return *model, nil
	}
	p, _, err := optimize.Cached(*model, *cache, o)
	return p, err
}

func open(path string, cfg map[string]string, maxTokens int) (*loop.Loop, error) {
	return loop.Open(path, loop.Options{Threads: *threads, Config: cfg, MaxTokens: maxTokens, SharedKV: *shared})
}

type best struct{ ttft, tps float64 }

func (b *best) add(r loop.Result) {
	t := float64(r.TTFT.Microseconds()) / 1000
	if b.ttft == 0 || t < b.ttft {
		b.ttft = t
	}
	b.tps = max(b.tps, r.DecodeTPS)
}

// variants times the four graphs, interleaved round by round.
func variants(ids []int) error {
	names := []string{"as published (accuracy_level unset)", "accuracy_level 4", "LM head on the last row", "accuracy_level 4 + last row"}
	opts := []optimize.Options{{}, {AccuracyLevel: 4}, {LastRows: true}, {AccuracyLevel: 4, LastRows: true}}
	res := make([]best, len(opts))
	var loops []*loop.Loop
	for _, o := range opts {
		p, err := variant(o)
		if err != nil {
			return err
		}
		l, err := open(p, nil, len(ids)+*decode+1)
		if err != nil {
			return err
		}
		defer l.Close()
		loops = append(loops, l)
	}
	for range *rounds {
		for i, l := range loops {
			r, err := l.Greedy(ids, *decode)
			if err != nil {
				return err
			}
			res[i].add(r)
		}
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "Graph (%d prompt, %d greedy tokens, %d threads, best of %d)\tFirst token\tDecode\n", len(ids), *decode, *threads, *rounds)
	for i, n := range names {
		fmt.Fprintf(w, "%s\t%.0f ms\t%.1f tokens/s\n", n, res[i].ttft, res[i].tps)
	}
	return w.Flush()
}

// agreement compares greedy tokens and prefill argmaxes of level unset and level 4 (ONNX
// Runtime issue #29849: int8 compute flips near-tie tokens).
func agreement(ids []int) error {
	p4, err := variant(optimize.Options{AccuracyLevel: 4})
	if err != nil {
		return err
	}
	var rows [2][]int
	var greedy [2][]int
	for i, p := range []string{*model, p4} {
		l, err := open(p, nil, len(ids)+*decode+1)
		if err != nil {
			return err
		}
		logits, err := l.Step(ids)
		if err != nil {
			l.Close()
			return err
		}
		v := l.Vocab()
		for r := range len(ids) {
			rows[i] = append(rows[i], sample.Argmax(logits[r*v:(r+1)*v]))
		}
		g, err := l.Greedy(ids, *decode)
		l.Close()
		if err != nil {
			return err
		}
		greedy[i] = g.IDs
	}
	same := 0
	for r := range rows[0] {
		if rows[0][r] == rows[1][r] {
			same++
		}
	}
	prefix := 0
	for prefix < len(greedy[0]) && greedy[0][prefix] == greedy[1][prefix] {
		prefix++
	}
	fmt.Printf("accuracy_level 4 vs unset: top-1 agreement %d/%d prompt rows (%.1f%%); greedy runs agree on the first %d of %d tokens\n",
		same, len(rows[0]), 100*float64(same)/float64(len(rows[0])), prefix, len(greedy[0]))
	return nil
}

// spin times decoding with and without spin-waiting threads.
func spin(ids []int) error {
	p, err := variant(optimize.Options{AccuracyLevel: 4, LastRows: true})
	if err != nil {
		return err
	}
	res := map[string]*best{"1": {}, "0": {}}
	for range *rounds {
		for _, s := range []string{"1", "0"} {
			l, err := open(p, map[string]string{"session.intra_op.allow_spinning": s}, len(ids)+*decode+1)
			if err != nil {
				return err
			}
			r, err := l.Greedy(ids, *decode)
			l.Close()
			if err != nil {
				return err
			}
			res[s].add(r)
		}
	}
	for _, s := range []string{"1", "0"} {
		fmt.Printf("allow_spinning=%s: first token %.0f ms, decode %.1f tokens/s\n", s, res[s].ttft, res[s].tps)
	}
	return nil
}

// contextCost times decoding after 100, 1,000 and 3,000 tokens of history.
func contextCost([]int) error {
	p, err := variant(optimize.Options{AccuracyLevel: 4, LastRows: true})
	if err != nil {
		return err
	}
	for _, n := range []int{100, 1000, 3000} {
		l, err := open(p, nil, n+*decode+1)
		if err != nil {
			return err
		}
		b := best{}
		for range *rounds {
			r, err := l.Greedy(tokens(n), 32)
			if err != nil {
				l.Close()
				return err
			}
			b.add(r)
		}
		l.Close()
		fmt.Printf("history %5d tokens: decode %.1f tokens/s (prefill %.0f ms)\n", n, b.tps, b.ttft)
	}
	return nil
}

// verify measures T(k+1)/T(1): one run of k+1 new rows (logits for all of them) against one
// of a single row, at a 500-token context, rolled back after each run.
func verify(ids []int) error {
	p, err := variant(optimize.Options{AccuracyLevel: 4, LastRows: true, KeepInput: true})
	if err != nil {
		return err
	}
	l, err := open(p, nil, 600)
	if err != nil {
		return err
	}
	defer l.Close()
	ctx := tokens(500)
	if _, err := l.Step(ctx); err != nil {
		return err
	}
	times := map[int]time.Duration{}
	for range 8 * *rounds {
		for k := 0; k <= 8; k++ {
			l.Keep = k + 1
			start := time.Now()
			if _, err := l.Step(ctx[:k+1]); err != nil {
				return err
			}
			d := time.Since(start)
			l.Truncate(len(ctx))
			if times[k] == 0 || d < times[k] {
				times[k] = d
			}
		}
	}
	ks := make([]int, 0, len(times))
	for k := range times {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	fmt.Printf("T(1) = %.1f ms at 500 tokens of context (best of %d)\n", ms(times[0]), 8**rounds)
	for _, k := range ks[1:] {
		fmt.Printf("k=%d: T(k+1)/T(1) = %.2f (%.1f ms)\n", k, float64(times[k])/float64(times[0]), ms(times[k]))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
