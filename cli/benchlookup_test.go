package cli

import (
	"math"
	"strings"
	"testing"
)

func TestQuoteCase(t *testing.T) {
	for _, tc := range []struct {
		name, passage string
		tokens        int
		ok            bool
		wantTail      string // the prompt ends with the passage up to here
	}{
		{"cut at a space before the middle", "One two three four five six seven eight", 40, true, "One two three four"},
		{"no space before the middle", "Onetwothreefour five", 40, false, ""},
		{"too short to quote", "a b c d", 4, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := quoteCase("Once", tc.passage, tc.tokens)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			want := "Once" + tc.passage + "\n\nOnce" + tc.wantTail
			if c.Prompt != want {
				t.Errorf("prompt %q, want %q", c.Prompt, want)
			}
			rest := len(tc.passage) - len(tc.wantTail)
			if c.max != tc.tokens*rest/len(tc.passage) {
				t.Errorf("max %d tokens, want the second half's share %d", c.max, tc.tokens*rest/len(tc.passage))
			}
		})
	}
}

// TestLookupTotal: a workload's total is its tokens over the sum of its cases' best times,
// not an average of their speedups.
func TestLookupTotal(t *testing.T) {
	cases := []lookupCase{
		{Name: "continue", Tokens: 101, PlainTPS: 100, LookupTPS: 200, Runs: 50, drafted: 80, accepted: 40, Same: true}, // 1 s → 0.5 s
		{Name: "continue", Tokens: 201, PlainTPS: 100, LookupTPS: 100, Runs: 200, drafted: 20, accepted: 0, Same: true}, // 2 s → 2 s
	}
	got := total(cases)
	if want := 3.0 / 2.5; math.Abs(got.Speedup-want) > 1e-9 {
		t.Errorf("speedup %v, want %v", got.Speedup, want)
	}
	if got.Tokens != 302 || got.Runs != 250 || !got.Same || !got.Total || !strings.HasPrefix(got.Name, "continue, 2 prompts") {
		t.Errorf("total %+v", got)
	}
	if math.Abs(got.AcceptanceRate-0.4) > 1e-9 {
		t.Errorf("acceptance %v, want 40 of 100", got.AcceptanceRate)
	}
	cases[1].Same = false
	if total(cases).Same {
		t.Error("a total of cases one of which changed tokens says they are the same")
	}
}
