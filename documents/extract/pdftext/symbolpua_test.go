package pdftext

import "testing"

// TestSymbolFontName: which base names are the Symbol font's, whose ToUnicode entries in
// the Private Use Area read as its codes.
func TestSymbolFontName(t *testing.T) {
	for _, tc := range []struct {
		base string
		want bool
	}{
		{"Symbol", true},
		{"SymbolMT", true},
		{"JFBJJA+SymbolMT", true},
		{"SymbolMT,Bold", true},
		{"Symbol-Identity-H", true},
		{"SymbolPS", false},
		{"SymbolSigns", false},
		{"Wingdings-Regular", false},
		{"ABC+Symbol", false}, // a tag is six letters
	} {
		if got := symbolFontName(tc.base); got != tc.want {
			t.Errorf("symbolFontName(%q) = %v, want %v", tc.base, got, tc.want)
		}
	}
}
