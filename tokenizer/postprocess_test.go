package tokenizer

import (
	"slices"
	"testing"
)

// TestEncodePairEmptySecond: a pair whose second text is empty is still a pair, as in the
// reference — BERT's [CLS] a [SEP] [SEP], the last [SEP] of type 1 — not a alone.
func TestEncodePairEmptySecond(t *testing.T) {
	tk := load(t, "real_bert")
	cls, _ := tk.TokenID("[CLS]")
	sep, _ := tk.TokenID("[SEP]")
	hello := tk.Encode("hello")
	e := tk.EncodePair("hello", "")
	wantIDs := slices.Concat([]int{cls}, hello, []int{sep, sep})
	wantTypes := make([]int, len(wantIDs))
	wantTypes[len(wantTypes)-1] = 1
	if !slices.Equal(e.IDs, wantIDs) || !slices.Equal(e.TypeIDs, wantTypes) {
		t.Errorf("EncodePair(hello, \"\") = %v types %v, want %v types %v", e.IDs, e.TypeIDs, wantIDs, wantTypes)
	}
}
