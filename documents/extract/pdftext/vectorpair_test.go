package pdftext

import "testing"

// TestVectorOverPair: \vec over two letters (\vec{AB}) centres its arrow over the pair, its
// middle near the first letter's end; it reads after the pair ("AB⃗"), where combined with
// the letter under its middle it read "A⃗B" (lshort-zh-cn, lshort-persian).
func TestVectorOverPair(t *testing.T) {
	// "^" is the arrow (U+20D7); every glyph 5 points wide at 10 points
	const cmap = "1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <5E> <20D7> endbfchar"
	tests := []struct{ name, content, want string }{
		{"the arrow over a pair, its middle half a point left of theirs",
			// drawn first, then the letters back under it, as TeX draws \vec{AB}
			"BT /F1 10 Tf 1 0 0 1 92 700 Tm (x) Tj 1 0 0 1 102 700 Tm (^) Tj 1 0 0 1 100 700 Tm (AB) Tj 1 0 0 1 113 700 Tm (y) Tj ET",
			"x AB⃗ y"},
		{"an arrow over one letter, the next touching it, stays on its letter",
			// \vec{a}b: the arrow's middle 0.7 points left of a's
			"BT /F1 10 Tf 1 0 0 1 99.3 700 Tm (^) Tj 1 0 0 1 100 700 Tm (ab) Tj ET",
			"a⃗b"},
		{"an arrow over the middle letter of three",
			"BT /F1 10 Tf 1 0 0 1 104.8 700 Tm (^) Tj 1 0 0 1 100 700 Tm (abc) Tj ET",
			"ab⃗c"},
		{"an arrow skewed right over a letter before a subscript",
			// lshort-zh-cn's \vec{x}_0: the arrow 1.5 points right of x's middle
			"BT /F1 10 Tf 1 0 0 1 101.5 700 Tm (^) Tj 1 0 0 1 100 700 Tm (x) Tj /F1 7 Tf 1 0 0 1 105 698 Tm (0) Tj ET",
			"x⃗0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAs(t, tt.name, pdfWith(simpleFont("/ToUnicode 6 0 R"), cmap, tt.content), tt.want)
		})
	}
}
