package pdftext

import (
	"strings"
	"testing"
)

// TestNastaliqLines: Nastaliq's words, drawn on a slope (LibreOffice's Awami Nastaliq type
// sample), read as one line with their spaces where the text has them.
func TestNastaliqLines(t *testing.T) {
	arabic := "1 begincodespacerange <00> <FF> endcodespacerange 8 beginbfchar <20> <0020> " +
		"<41> <0628> <42> <062A> <43> <0633> <44> <0645> <45> <0627> <48> <06C1> <4B> <06A9> endbfchar"
	// the space 250 wide, ہ (H) 600, Z (a piece without advance) 0
	w := strings.Repeat("500 ", 256)
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 0 /LastChar 255 /Widths [" +
		w[:4*' '] + "250 " + w[4*' '+4:4*'H'] + "600 " + w[4*'H'+4:4*'Z'] + "0 " + w[4*'Z'+4:] + "] /ToUnicode 6 0 R >>"
	tests := []struct{ name, content, want string }{
		{"a word's first letters drawn high on its right",
			"1 0 0 1 72 700 Tm (AB) Tj 1 0 0 1 82 706 Tm (CD) Tj 1 0 0 1 92 700 Tm (E) Tj", "امستب"},
		{"a line above is no piece of the line below",
			"1 0 0 1 72 706 Tm (AB) Tj 1 0 0 1 72 700 Tm (CD) Tj", "تب\nمس"},
		{"a space drawn within the word's last letter, which reaches under it (each glyph an ActualText span)",
			"1 0 0 1 66 700 Tm /Span << /ActualText <FEFF06A9> >> BDC (K) Tj EMC 1 0 0 1 72 700 Tm /Span << /ActualText <FEFF06C1> >> BDC (H) Tj EMC " +
				"1 0 0 1 74 700 Tm /Span << /ActualText <FEFF0020> >> BDC ( ) Tj EMC 1 0 0 1 79 700 Tm /Span << /ActualText <FEFF0627> >> BDC (E) Tj EMC", "اہ ک"},
		{"a letter's span drawn right to left, a piece without advance first, starts at its leftmost glyph",
			"1 0 0 1 72 700 Tm (AB) Tj /Span << /ActualText <FEFF0627> >> BDC 1 0 0 1 87 700 Tm (Z) Tj 1 0 0 1 82 700 Tm (E) Tj EMC", "اتب"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := Read(pdfWith(font, arabic, "BT /F1 10 Tf "+tt.content+" ET"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(pages[0].Text); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
