package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"edgechat/inference"
	"edgechat/reply"
)

// storyOpenings are `bench --lookup`'s default prompts: openings in the style stories260K
// (and any small story model) was trained on, whose greedy continuations repeat phrases.
var storyOpenings = []string{
	"Once upon a time",
	"One day, a little girl named Lily",
	"Tom had a big red ball.",
	"Once upon a time, there was a little dog",
	"The sun was shining and",
	"Mom and Dad took Ben to the park.",
}

// lookupCase is one workload of `bench --lookup`: a raw prompt and greedy decoding of it,
// with prompt lookup off and on; a total sums the cases of one workload.
type lookupCase struct {
	Name   string `json:"name"`
	Prompt string `json:"prompt,omitempty"`
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
	Total          bool    `json:"total,omitempty"`
	// Drafted and accepted tokens, summed into totals.
	drafted, accepted int
	max               int // reply tokens asked for
}

// benchLookup measures prompt-lookup decoding against plain decoding on the same engine, for
// each prompt: "continue" decodes n tokens after it; "reuse" asks again after the first
// answer, as a later turn that repeats an earlier one does (prompt, its greedy continuation,
// prompt); "quote" gives a passage and then its first half again, as a request to quote or
// rewrite a text does (see quoteCase). The two ways alternate over the rounds and each keeps
// its best; with several prompts a total per workload follows (all tokens over all the best
// times).
func benchLookup(ctx context.Context, cfg inference.Config, prompts []string, n, rounds int) ([]lookupCase, error) {
	cfg.OneShot = true
	eng, err := inference.New(cfg)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	run := func(p string, n int, noLookup bool) (*reply.Summary, string, error) {
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
	var cont, reuse, quote []lookupCase
	for _, prompt := range prompts {
		_, first, err := run(prompt, n, true)
		if err != nil {
			return nil, err
		}
		cont = append(cont, lookupCase{Name: "continue", Prompt: prompt, max: n})
		reuse = append(reuse, lookupCase{Name: "reuse", Prompt: prompt + first + "\n" + prompt, max: n})
		sum, passage, err := run(prompt, quotedTokens, true)
		if err != nil {
			return nil, err
		}
		if q, ok := quoteCase(prompt, passage, len(sum.IDs)); ok {
			quote = append(quote, q)
		}
	}
	cases := slices.Concat(cont, reuse, quote)
	for i := range cases {
		c := &cases[i]
		c.Same = true
		for range rounds {
			plain, _, err := run(c.Prompt, c.max, true)
			if err != nil {
				return nil, err
			}
			look, _, err := run(c.Prompt, c.max, false)
			if err != nil {
				return nil, err
			}
			c.Same = c.Same && slices.Equal(plain.IDs, look.IDs)
			c.PlainTPS, c.LookupTPS = max(c.PlainTPS, plain.DecodeTPS), max(c.LookupTPS, look.DecodeTPS)
			c.Tokens = look.GeneratedTokens
			if look.Lookup != nil {
				c.Runs, c.drafted, c.accepted = look.Lookup.Runs, look.Lookup.Drafted, look.Lookup.Accepted
				c.AcceptanceRate = look.Lookup.AcceptanceRate()
			}
		}
		if c.PlainTPS > 0 {
			c.Speedup = c.LookupTPS / c.PlainTPS
		}
	}
	if len(prompts) < 2 {
		return cases, nil
	}
	for at, group := 0, 0; group < 3; group++ {
		k := []int{len(cont), len(reuse), len(quote)}[group]
		if k > 0 {
			cases = append(cases, total(cases[at:at+k]))
		}
		at += k
	}
	return cases, nil
}

// quotedTokens is the length of the passage "quote" repeats: short enough that passage,
// half of it again and the rest of the reply fit a 512-token context.
const quotedTokens = 160

// quoteCase is the "quote" workload: the model's own passage after prompt, then prompt and
// the passage's first half again, so the reply goes on quoting it; the reply may take as
// many tokens as the passage's second half (by its share of the characters).
func quoteCase(prompt, passage string, tokens int) (lookupCase, bool) {
	cut := strings.LastIndexByte(passage[:len(passage)/2], ' ')
	if cut <= 0 || tokens < 8 {
		return lookupCase{}, false
	}
	rest := tokens * (len(passage) - cut) / len(passage)
	return lookupCase{Name: "quote", Prompt: prompt + passage + "\n\n" + prompt + passage[:cut], max: max(rest, 4)}, true
}

// total sums cases of one workload: their tokens over the sum of their best times.
func total(cases []lookupCase) lookupCase {
	t := lookupCase{Name: fmt.Sprintf("%s, %d prompts", cases[0].Name, len(cases)), Same: true, Total: true}
	var plainSec, lookupSec float64
	for _, c := range cases {
		decoded := float64(max(c.Tokens-1, 0))
		if c.PlainTPS <= 0 || c.LookupTPS <= 0 {
			continue
		}
		plainSec, lookupSec = plainSec+decoded/c.PlainTPS, lookupSec+decoded/c.LookupTPS
		t.Tokens, t.Runs = t.Tokens+c.Tokens, t.Runs+c.Runs
		t.drafted, t.accepted = t.drafted+c.drafted, t.accepted+c.accepted
		t.Same = t.Same && c.Same
	}
	decoded := float64(t.Tokens - len(cases))
	if plainSec > 0 && lookupSec > 0 {
		t.PlainTPS, t.LookupTPS = decoded/plainSec, decoded/lookupSec
		t.Speedup = plainSec / lookupSec
	}
	if t.drafted > 0 {
		t.AcceptanceRate = float64(t.accepted) / float64(t.drafted)
	}
	return t
}

func printLookup(w io.Writer, cases []lookupCase, rounds int) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	fmt.Fprintf(tw, "\nPrompt lookup (greedy, best of %d rounds)\tplain\tlookup\tspeedup\tdecoder runs\taccepted\tsame tokens\n", rounds)
	for _, c := range cases {
		name := c.Name
		if !c.Total {
			name = fmt.Sprintf("%s %q", c.Name, label(c.Prompt))
		}
		fmt.Fprintf(tw, "%s, %d tokens\t%.1f tokens/s\t%.1f tokens/s\t%.2f×\t%d of %d\t%.0f%%\t%v\n",
			name, c.Tokens, c.PlainTPS, c.LookupTPS, c.Speedup, c.Runs, max(c.Tokens-1, 0), 100*c.AcceptanceRate, c.Same)
	}
}

// label is a prompt as a table label: its first line, shortened.
func label(s string) string {
	if r := []rune(firstLine(s)); len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return firstLine(s)
}
