package pdftext

import (
	"fmt"
	"strconv"
	"testing"
)

// bitmapFontText is the text texBitmapCodes gives a Type 3 font that draws the codes of
// widths (a code's advance), each glyph named glyph(code); winAnsi: each code read first as
// WinAnsiEncoding's, as applyDifferences leaves numeric names.
func bitmapFontText(widths map[int]float64, glyph func(code int) string, winAnsi bool) encoding {
	var names [256]string
	var procs []string
	var enc encoding
	var width [256]float64
	for c, w := range widths {
		names[c] = glyph(c)
		procs = append(procs, names[c])
		width[c] = w
		if winAnsi {
			enc[c] = winAnsiEncoding[c]
		}
	}
	texBitmapCodes(&enc, &names, procs, &width)
	return enc
}

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
			widths := map[int]float64{}
			for _, c := range []byte(tt.drawn) {
				widths[int(c)] = 0.5
			}
			enc := bitmapFontText(widths, func(c int) string { return "a" + strconv.Itoa(c) }, true)
			if got := enc[tt.code]; got != tt.want {
				t.Errorf("code %d: got %q, want %q", tt.code, got, tt.want)
			}
		})
	}
}

// TestCodeNamedLigatures: the ligatures of a TeX bitmap font read whichever way its producer
// names a glyph by its code: "a12" (dvips), "#0C" (Acrobat Distiller) or base 36 from 360,
// "AR" for 27 (ESP Ghostscript); a font whose names are not its codes is no such font.
func TestCodeNamedLigatures(t *testing.T) {
	base36 := func(c int) string {
		const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		v := c + 360
		return string([]byte{digits[v/36], digits[v%36]})
	}
	tests := []struct {
		name  string
		glyph func(c int) string // the name of code c's glyph
		lig   int                // the ligature's code: 12 (OT1's fi) or 28 (T1's fi)
		want  string
	}{
		{"dvips' a12", func(c int) string { return "a" + strconv.Itoa(c) }, 12, "fi"},
		{"Distiller's #0C", func(c int) string { return fmt.Sprintf("#%02X", c) }, 12, "fi"},
		{"Ghostscript's base 36, OT1", base36, 12, "fi"},
		{"Ghostscript's base 36, T1", base36, 28, "fi"},
		{"names one off their codes", func(c int) string { return base36(c + 1) }, 12, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := bitmapFontText(map[int]float64{'f': 0.306, 'i': 0.278, 'x': 0.528, tt.lig: 0.556}, tt.glyph, false)
			if got := enc[tt.lig]; got != tt.want {
				t.Errorf("code %d named %q: got %q, want %q", tt.lig, tt.glyph(tt.lig), got, tt.want)
			}
		})
	}
}
