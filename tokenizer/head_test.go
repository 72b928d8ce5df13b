package tokenizer

import (
	"testing"

	"golang.org/x/text/unicode/norm"
)

// TestHead checks the start of the normalized text that keeps original offset 0 (Metaspace's
// prepend_scheme first), as the Rust library's offsets give it; the golden variants t5_first,
// t5_bert_first, t5_nfd_first and t5_nfkc_first check the same against the reference.
func TestHead(t *testing.T) {
	t5, err := parse(readReal(t, "t5"))
	if err != nil {
		t.Fatal(err)
	}
	bert := normalizer{bertStep{clean: true, chinese: true, strip: true, lower: true}}
	nfd := normalizer{formStep{norm.NFD, "NFD"}}
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
		// Canonical ordering moves marks but not offsets: the output's characters take the
		// input's offsets in turn, an inserted one (a decomposition's second) those before it.
		{"marks reordered", nfd, "\u0301\u0f73x", len("\u0f71\u0f72")}, // ཱི́ → ཱ ི ́: ཱ replaces ́, ི is inserted
		{"decomposition split", nfd, "\u0f73\u0f71a", len("\u0f71")},   // ཱཱི → ཱ ཱ ི: the second ཱ replaces ཱི
		{"composed", normalizer{formStep{norm.NFC, "NFC"}}, "e\u0301b", len("é")},
	}
	for _, tt := range tests {
		norm, keeps := tt.n.applyFirst(tt.in)
		if got := tt.n.head(tt.in, keeps); got != tt.want {
			t.Errorf("%s: head(%q) = %d (of %q), want %d", tt.name, tt.in, got, norm, tt.want)
		}
	}
}
