package tokenizer

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestMergesOrder checks that a BPE model builds the same whatever the order of its vocab,
// merges and continuing_subword_prefix in the file (real files put the vocab first), and that
// a merge of a token missing from the vocab, or a broken merge, fails clearly.
func TestMergesOrder(t *testing.T) {
	const vocab = `"vocab": {"a": 0, "##b": 1, "ab": 2, "b": 3, "a##b": 4}`
	tests := []struct {
		name, model string
		want        []int
		err         string
	}{
		{"vocab first", `"continuing_subword_prefix": "##", ` + vocab + `, "merges": [["a", "##b"]]`, []int{2}, ""},
		{"merges first", `"continuing_subword_prefix": "##", "merges": [["a", "##b"]], ` + vocab, []int{2}, ""},
		{"prefix last", vocab + `, "merges": [["a", "##b"]], "continuing_subword_prefix": "##"`, []int{2}, ""},
		{"no prefix", vocab + `, "merges": ["a ##b"]`, []int{0, 3}, ""},
		{"vocab again", vocab + `, "merges": [["a", "##b"]], "continuing_subword_prefix": "##", "vocab": {"a": 0, "##b": 1, "ab": 7, "b": 3}`, []int{7}, ""},
		{"missing token", vocab + `, "merges": [["a", "##b"], ["ab", "c"]]`, nil, `merge 1 ("ab", "c") uses a token missing from the vocab`},
		{"missing merged", vocab + `, "merges": [["b", "a"]]`, nil, `merge 0 ("b", "a") makes "ba", missing from the vocab`},
		{"broken", vocab + `, "merges": [["a", "##b"], ["b"]]`, nil, `merge "b" has 1 parts, want 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk, err := parse([]byte(`{"model": {"type": "BPE", ` + tt.model + `}}`))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tk.Encode("ab"); !slices.Equal(got, tt.want) {
				t.Errorf("Encode(ab) = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestMergesDuplicate checks that of two merges of the same pair the later one's rank counts,
// as in the reference, whether the table is filled one merge at a time (few merges) or
// region by region (many).
func TestMergesDuplicate(t *testing.T) {
	for _, filler := range []int{0, 5000} {
		vocab := []string{`"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4`}
		merges := []string{`["b", "c"]`, `["a", "b"]`}
		for i := range filler {
			id := 5 + 3*i
			vocab = append(vocab, fmt.Sprintf(`"p%d": %d, "q%d": %d, "p%dq%d": %d`, i, id, i, id+1, i, i, id+2))
			merges = append(merges, fmt.Sprintf(`["p%d", "q%d"]`, i, i))
		}
		merges = append(merges, `["b", "c"]`) // now after "a b": "abc" is ab c
		tk, err := parse([]byte(`{"model": {"type": "BPE", "vocab": {` + strings.Join(vocab, ", ") +
			`}, "merges": [` + strings.Join(merges, ", ") + `]}}`))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tk.Encode("abc"), []int{3, 2}; !slices.Equal(got, want) {
			t.Errorf("%d other merges: Encode(abc) = %v, want %v", filler, got, want)
		}
	}
}
