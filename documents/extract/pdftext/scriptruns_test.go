package pdftext

import "testing"

// TestScriptRuns: a superscript and a subscript hung at one point on their base read one
// after the other, each run whole (elk's spacegroup.pdf, pdfTeX: D^{19}_{4h} read "D149h",
// D^{22}_{2h} "D22h2", the runs' glyphs interleaved by x).
func TestScriptRuns(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"a subscript under a superscript from one start reads after it",
			// 10-point D, 7-point scripts 3.6 above and 2.7 under its baseline, both at its end
			"BT /F1 10 Tf 72 700 Td (x D) Tj /F1 7 Tf 15 3.6 Td (19) Tj 0 -6.3 Td (4h) Tj /F1 10 Tf 20 2.7 Td (P) Tj ET",
			"x D194h P"},
		{"a subscript longer than its superscript, the next word at its end",
			"BT /F1 10 Tf 72 700 Td (D) Tj /F1 7 Tf 5 3.6 Td (2) Tj 0 -6.3 Td (2h) Tj /F1 10 Tf 7 2.7 Td (P) Tj ET",
			"D22hP"},
		{"a subscript starting before its superscript keeps its place",
			// an italic base's S_k^new: k half a point back (pdftotext: "Sknew(N)")
			"BT /F1 10 Tf 72 700 Td (initialize S) Tj /F1 7 Tf 60.5 3 Td (new) Tj -0.5 -5 Td (k) Tj /F1 10 Tf 11 2 Td ((N)) Tj ET",
			"initialize Sknew(N)"},
		{"a later subscript on the run's baseline is no part of the run",
			"BT /F1 10 Tf 72 700 Td (D) Tj /F1 7 Tf 5 3.6 Td (1) Tj 0 -6.3 Td (4) Tj /F1 10 Tf 4 2.7 Td ( x) Tj /F1 7 Tf 10 -2.7 Td (2) Tj ET",
			"D14 x2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAs(t, tt.name, pdfWith(simpleFont(""), "", tt.content), tt.want)
		})
	}
}
