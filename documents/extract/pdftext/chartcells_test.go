package pdftext

import "testing"

// TestChartCells: a chart's glyph that overflows its cell, a little closer to the next
// cell's first glyph than the chart's gaps, no space between, stays a word of its own
// (GentiumPlus-features.pdf: "ț" and "ǋ" read "țǋ").
func TestChartCells(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"an overflowing glyph before the next cell",
			// 10-point glyphs 5 points wide: "a b c" with 2-point gaps around each space
			// (a space 500 units wide taken back by 300), then "d" 2.5 points after "c",
			// then " e f"
			"BT /F1 10 Tf 72 700 Td [(a ) 300 (b ) 300 (c) -250 (d ) 300 (e ) 300 (f)] TJ ET",
			"a b c d e f"},
		{"a letter-spaced line without drawn spaces is still one word",
			"BT /F1 10 Tf 72 700 Td [(a) -300 (b) -300 (c) -300 (d) -900 (e)] TJ ET",
			"abcd e"},
		{"a letter-spaced heading with a space between its words",
			"BT /F1 10 Tf 72 700 Td [(a) -300 (b) -300 (c ) -300 (d) -300 (e)] TJ ET",
			"abc de"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAs(t, tt.name, pdfWith(simpleFont(""), "", tt.content), tt.want)
		})
	}
}
