package tokenizer

import (
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
