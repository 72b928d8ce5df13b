package tokenizer

import "testing"

// TestHead checks the start of the normalized text that keeps original offset 0 (Metaspace's
// prepend_scheme first), as the Rust library's offsets give it; the golden variants t5_first
// and t5_bert_first check the same against the reference.
func TestHead(t *testing.T) {
	t5, err := parse(readReal(t, "t5"))
	if err != nil {
		t.Fatal(err)
	}
	bert := normalizer{bertStep{clean: true, chinese: true, strip: true, lower: true}}
	tests := []struct {
		name string
		n    normalizer
		in   string
		want int
	}{
		{"plain", nil, "abc", 1},
		{"expansion", t5.norm, "½ab", len("1⁄2")},                          // all of "1⁄2" stands for "½"
		{"grapheme replaced whole", t5.norm, "½\u064bab", 1},               // "1" only: "⁄2" take the mark's offsets
		{"removed at the start", t5.norm, "\x01\uff96\uff81", len("ヨ")},    // the removal is lost: ヨ takes offset 0
		{"Chinese padding", bert, "中文", len(" 中 ")},                        // the spaces take 中's offsets
		{"leading mark stripped", bert, "\u032aabc", 0},                    // the start moves on
		{"accent stripped", bert, "Éa", 1},                                 // É → e
		{"prepend", normalizer{prependStep{prefix: "▁"}}, "ab", len("▁a")}, // the prefix takes a's offsets
	}
	for _, tt := range tests {
		norm, keeps := tt.n.applyFirst(tt.in)
		if got := tt.n.head(tt.in, keeps); got != tt.want {
			t.Errorf("%s: head(%q) = %d (of %q), want %d", tt.name, tt.in, got, norm, tt.want)
		}
	}
}
