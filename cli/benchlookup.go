package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"edgechat/inference"
	"edgechat/reply"
)

// lookupCase is one workload of `bench --lookup`: a raw prompt and greedy decoding of it,
// with prompt lookup off and on.
type lookupCase struct {
	Name   string `json:"name"`
	Prompt string `json:"-"`
	// Best of the rounds, each way.
	PlainTPS  float64 `json:"plain_decode_tokens_per_s"`
	LookupTPS float64 `json:"lookup_decode_tokens_per_s"`
	Speedup   float64 `json:"speedup"`
	Tokens    int     `json:"tokens"`
	// Runs are the decoder's forward passes after the prompt with lookup (plain decoding
	// takes Tokens-1).
	Runs           int     `json:"lookup_runs"`
	AcceptanceRate float64 `json:"acceptance_rate"`
	Same           bool    `json:"same_tokens"` // lookup gave plain decoding's tokens
}

// benchLookup measures prompt-lookup decoding against plain decoding on the same engine:
// "continue" decodes n tokens after prompt; "reuse" asks again after the first answer, as a
// later turn that repeats an earlier one does (prompt, its greedy continuation, prompt). The
// two ways alternate over the rounds and each keeps its best.
func benchLookup(ctx context.Context, cfg inference.Config, prompt string, n, rounds int) ([]lookupCase, error) {
	cfg.OneShot = true
	eng, err := inference.New(cfg)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	run := func(p string, noLookup bool) (*reply.Summary, string, error) {
		req := reply.Request{Prompt: &reply.Prompt{Text: p}, MaxTokens: n, NoLookup: noLookup, Sampling: reply.Sampling{Temperature: new(float64)}}
		evs, err := eng.Generate(ctx, req)
		if err != nil {
			return nil, "", err
		}
		c := reply.Collect(ctx, evs)
		if c.Summary.Err != nil {
			return nil, "", c.Summary.Err
		}
		return c.Summary, c.Text, nil
	}
	_, first, err := run(prompt, true)
	if err != nil {
		return nil, err
	}
	cases := []lookupCase{{Name: "continue", Prompt: prompt}, {Name: "reuse", Prompt: prompt + first + "\n" + prompt}}
	for i := range cases {
		c := &cases[i]
		c.Same = true
		for range rounds {
			plain, _, err := run(c.Prompt, true)
			if err != nil {
				return nil, err
			}
			look, _, err := run(c.Prompt, false)
			if err != nil {
				return nil, err
			}
			c.Same = c.Same && slices.Equal(plain.IDs, look.IDs)
			c.PlainTPS, c.LookupTPS = max(c.PlainTPS, plain.DecodeTPS), max(c.LookupTPS, look.DecodeTPS)
			c.Tokens = look.GeneratedTokens
			if look.Lookup != nil {
				c.Runs, c.AcceptanceRate = look.Lookup.Runs, look.Lookup.AcceptanceRate()
			}
		}
		if c.PlainTPS > 0 {
			c.Speedup = c.LookupTPS / c.PlainTPS
		}
	}
	return cases, nil
}

func printLookup(w io.Writer, cases []lookupCase, rounds int) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	fmt.Fprintf(tw, "\nPrompt lookup (greedy, best of %d rounds)\tplain\tlookup\tspeedup\tdecoder runs\taccepted\tsame tokens\n", rounds)
	for _, c := range cases {
		fmt.Fprintf(tw, "%s, %d tokens\t%.1f tokens/s\t%.1f tokens/s\t%.2f×\t%d of %d\t%.0f%%\t%v\n",
			c.Name, c.Tokens, c.PlainTPS, c.LookupTPS, c.Speedup, c.Runs, max(c.Tokens-1, 0), 100*c.AcceptanceRate, c.Same)
	}
}
