package pdftext

import "testing"

// TestVectorAccent: \vec's arrow, drawn before its letter with an advance and moved back
// over it, reads after the letter, as Unicode places a combining mark: cmmi's "vector"
// without ToUnicode (minlog's mlcf.pdf: "∀~x" in pdftotext; EdgeChat left it out, "∀x")
// and a ToUnicode map's U+20D7 (gyoto's GyotoManual.pdf: "(⃗u," in both readers, the
// arrow on the parenthesis).
func TestVectorAccent(t *testing.T) {
	// the arrow (A), then the letter back at its origin: a kern of 500 back over the arrow
	content := "BT /F1 10 Tf 72 700 Td [(R) (A) 500 (x) ( \\() (A) 500 (u,)] TJ ET"
	tests := []struct{ name, font, toUnicode, want string }{
		{"cmmi's vector glyph", simpleFont("/Encoding << /Differences [65 /vector] >>"), "", "Rx⃗ (u⃗,"},
		{"a ToUnicode map's combining arrow", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <41> <20D7> endbfchar", "Rx⃗ (u⃗,"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAs(t, tt.name, pdfWith(tt.font, tt.toUnicode, content), tt.want)
		})
	}
}
