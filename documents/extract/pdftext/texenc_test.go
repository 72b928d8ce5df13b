package pdftext

import (
	"strconv"
	"testing"
)

// TestTS1Symbols: a TeX bitmap font's codes above 127 read as TS1's symbols only where the
// font draws no letter (texBitmapCodes).
func TestTS1Symbols(t *testing.T) {
	tests := []struct {
		name  string
		drawn string // the codes the font draws, each named "a" + its code
		code  byte
		want  string
	}{
		{"a font of symbols alone is TS1: 136 is the bullet", "*\210", 136, "•"},
		{"the degree sign", "\260", 176, "°"},
		{"the multiplication sign, past TS1's 191", "\326", 214, "×"},
		{"a font that draws letters is no TS1 font: 136 keeps the text it had", "ab\210", 136, winAnsiEncoding[136]},
		{"nor one whose codes end at 127", "*+", '*', "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var names [256]string
			var procs []string
			var enc encoding
			var width [256]float64
			for _, c := range []byte(tt.drawn) {
				names[c] = "a" + strconv.Itoa(int(c))
				procs = append(procs, names[c])
				enc[c] = winAnsiEncoding[c] // as applyDifferences leaves numeric names
				width[c] = 0.5
			}
			texBitmapCodes(&enc, &names, procs, &width)
			if got := enc[tt.code]; got != tt.want {
				t.Errorf("code %d: got %q, want %q", tt.code, got, tt.want)
			}
		})
	}
}
