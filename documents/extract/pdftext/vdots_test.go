package pdftext

import "testing"

// TestStackedRepeat: a vertical ellipsis drawn as three dots at one x, 3.7 points apart
// in a 9-point font (dtc-paper.pdf's bitmap fonts), reads one dot a line, as pdftotext
// reads it, not ".." over ".".
func TestStackedRepeat(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"three dots one under the other",
			"BT /F1 9 Tf 1 0 0 1 72 700 Tm (.) Tj 1 0 0 1 72 696.3 Tm (.) Tj 1 0 0 1 72 692.6 Tm (.) Tj ET",
			".\n.\n."},
		{"the dots, then a word under them",
			"BT /F1 9 Tf 1 0 0 1 72 700 Tm (.) Tj 1 0 0 1 72 696.3 Tm (.) Tj 1 0 0 1 72 692.6 Tm (.) Tj 1 0 0 1 72 680 Tm (end) Tj ET",
			".\n.\n.\nend"},
		{"a glyph redrawn a hair off its place is read once",
			// fake bold: the same glyph 0.3 points right and up
			"BT /F1 9 Tf 1 0 0 1 72 700 Tm (a) Tj 1 0 0 1 72.3 700.3 Tm (a) Tj 1 0 0 1 76.5 700 Tm (b) Tj ET",
			"ab"},
		{"a superscript after its letter stays in the line",
			"BT /F1 9 Tf 1 0 0 1 72 700 Tm (x) Tj 1 0 0 1 76.5 703.6 Tm (x) Tj ET",
			"xx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAs(t, tt.name, pdfWith(simpleFont(""), "", tt.content), tt.want)
		})
	}
}
