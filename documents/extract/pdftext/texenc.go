package pdftext

import (
	"strconv"
	"strings"
)

// TeX's bitmap fonts. dvips and pdfTeX put TeX's PK fonts into PDFs as Type 3 fonts whose
// glyphs are named by their codes ("a28"), with no ToUnicode map; codes from 32 to 126 are
// ASCII's letters and read as such, and in the Cork (T1) encoding of the EC fonts 192–255
// are Latin-1's letters, but the ligatures ff fi fl ffi ffl stand at 27–31, which pdftotext
// leaves out or reads as a space ("signi cance", "signicance" for "significance").
// texBitmapCodes reads them where the codes in use show a T1 text font. Other fonts' codes
// below 32 (OT1's ligatures at 11–15 are Greek letters in the math italic font, T1's at
// 27–31 are σ τ υ φ χ there) stay without text.

// t1Ligatures are the glyph names of codes 27–31 in TeX's T1 encoding.
var t1Ligatures = [5]string{"ff", "fi", "fl", "ffi", "ffl"}

// texBitmapCodes sets the text of a Type 3 font's codes 27–31 to T1's ligatures when all
// its glyphs are named by their codes ("a28", "a7"), and its CharProcs (procs: the glyph
// names it draws, the subset in use) draw a letter of T1's upper half (192–255: the EC
// fonts' accented letters, which neither the math fonts nor OT1 fonts have) and none of
// 11–15 (OT1's ligatures, T1's accents and quotes, which a T1 text rarely draws).
func texBitmapCodes(t *encoding, names *[256]string, procs []string) {
	var drawn [256]bool
	byName := map[string]int{}
	for c, n := range names {
		if n == "" {
			continue
		}
		digits := strings.TrimLeft(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
		if v, err := strconv.Atoi(digits); err != nil || v != c || len(digits) == len(n) || len(n)-len(digits) > 3 || glyphText(n) != "" {
			return // glyph names, or codes named otherwise: not a bitmap font of TeX's
		}
		byName[n] = c
	}
	for _, p := range procs {
		if c, ok := byName[p]; ok {
			drawn[c] = true
		}
	}
	used := func(lo, hi int) bool {
		for c := lo; c <= hi; c++ {
			if drawn[c] {
				return true
			}
		}
		return false
	}
	if !used(192, 255) || used(11, 15) {
		return
	}
	for c := 27; c <= 31; c++ {
		if drawn[c] {
			t[c] = t1Ligatures[c-27]
		}
	}
}
