// Command lookupbench measures prompt-lookup decoding against plain greedy decoding on the
// bare ONNX Runtime loop: decode tokens/s and decoder runs, the same tokens required.
//
//	go run ./tools/lookupbench --model ../shared/models/stories260K/onnx/model.onnx --prompt-ids 1,403,407,261,378 --tokens 400
//	go run ./tools/lookupbench --model /tmp/q/onnx/model_q4.onnx --rewrite --tokens 128   # int4: optimized copy with logits_to_keep
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"edgechat/inference/lookup"
	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
	"edgechat/internal/paths"
	"edgechat/onnx/optimize"
)

var (
	model   = flag.String("model", "", "decoder graph (.onnx)")
	idsFlag = flag.String("prompt-ids", "", "prompt token ids, comma-separated")
	rewrite = flag.Bool("rewrite", false, "prompt: a 200-token passage, then the same passage again up to its middle (a rewrite or quote the model may continue)")
	tokens  = flag.Int("tokens", 128, "greedy tokens")
	threads = flag.Int("threads", 2, "intra-op threads")
	rounds  = flag.Int("rounds", 3, "interleaved rounds; best of each reported")
	eos     = flag.Int("eos", -1, "stop token (-1: none)")
	keep    = flag.Bool("keep", true, "run the optimized copy with logits_to_keep (only the rows verification needs) and accuracy level 4")
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "lookupbench:", err)
		os.Exit(1)
	}
}

func run() error {
	flag.Parse()
	if *model == "" {
		return errors.New("--model is required")
	}
	if _, err := env.Init(""); err != nil {
		return err
	}
	prompt, err := promptIDs()
	if err != nil {
		return err
	}
	path := *model
	if *keep {
		if path, _, err = optimize.Cached(*model, filepath.Join(paths.CacheDir(), "bench"), optimize.Options{AccuracyLevel: 4, LastRows: true, KeepInput: true}); err != nil {
			return err
		}
	}
	l, err := loop.Open(path, loop.Options{Threads: *threads, MaxTokens: len(prompt) + *tokens + 16, Config: map[string]string{"session.intra_op.allow_spinning": "0"}})
	if err != nil {
		return err
	}
	defer l.Close()
	stop := func(id int) bool { return id == *eos }
	var best [2]float64
	var res [2]lookup.Result
	var st lookup.Stats
	for range *rounds {
		for i, on := range []bool{false, true} {
			var d *lookup.Drafter
			if on {
				d = lookup.New(lookup.Options{})
			}
			l.Truncate(0)
			start := time.Now()
			// Time the prompt separately: the figure is decode tokens/s.
			r, err := lookup.Greedy(timed{l, &start, len(prompt)}, prompt, *tokens, stop, d)
			if err != nil {
				return err
			}
			tps := float64(len(r.Tokens)-1) / time.Since(start).Seconds()
			best[i] = max(best[i], tps)
			res[i] = r
			if on {
				st = d.Stats
			}
		}
	}
	if !slices.Equal(res[0].Tokens, res[1].Tokens) {
		return fmt.Errorf("lookup changed the reply:\nplain  %v\nlookup %v", res[0].Tokens, res[1].Tokens)
	}
	fmt.Printf("%s: %d prompt + %d tokens, %d threads, best of %d\n", filepath.Base(*model), len(prompt), len(res[0].Tokens), *threads, *rounds)
	fmt.Printf("plain  %.1f tokens/s, %d decoder runs\n", best[0], res[0].Forwards)
	fmt.Printf("lookup %.1f tokens/s, %d decoder runs (%.2f× fewer), %d/%d drafted tokens accepted (%.0f%%), %d matches skipped: %.2f× plain's speed\n",
		best[1], res[1].Forwards, float64(res[0].Forwards)/float64(res[1].Forwards), st.Accepted, st.Drafted, 100*st.AcceptanceRate(), st.Skipped, best[1]/best[0])
	return nil
}

// timed restarts the clock after the prompt's run, so only decoding is timed.
type timed struct {
	*loop.Loop
	start  *time.Time
	prompt int
}

func (t timed) Forward(ids []int, rows int) ([]int, error) {
	p, err := t.Loop.Forward(ids, rows)
	if t.Loop.Len() == t.prompt {
		*t.start = time.Now()
	}
	return p, err
}

func promptIDs() ([]int, error) {
	if *rewrite {
		passage := make([]int, 200)
		for i := range passage {
			passage[i] = 1000 + (i*7919)%5000 // distinct-looking ids, no short cycles
		}
		return append(slices.Clone(passage), passage[:100]...), nil
	}
	var out []int
	for _, s := range strings.Split(*idsFlag, ",") {
		id, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("--prompt-ids: %w", err)
		}
		out = append(out, id)
	}
	return out, nil
}
