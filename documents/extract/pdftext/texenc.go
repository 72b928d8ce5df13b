package pdftext

import (
	"strconv"
	"strings"
)

// TeX's bitmap fonts. dvips and pdfTeX put TeX's PK fonts into PDFs as Type 3 fonts whose
// glyphs are named by their codes ("a28"), with no ToUnicode map; codes from 32 to 126 are
// ASCII's letters and read as such, but below 32 stand the font encoding's ligatures, dotless
// letters and accents, and in the Cork (T1) encoding of the EC fonts above 127 its accented
// letters. pdftotext leaves those out or reads them as Latin-1 ("signi cance", "signicance"
// for "significance"). texBitmapCodes reads them by the encoding the codes in use show.

// ot1Low are the glyph names of codes 0–31 in TeX's OT1 encoding (Computer Modern).
var ot1Low = [32]string{
	"Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega",
	"ff", "fi", "fl", "ffi", "ffl", "dotlessi", "dotlessj", "grave", "acute", "caron", "breve",
	"macron", "ring", "cedilla", "germandbls", "ae", "oe", "oslash", "AE", "OE", "Oslash",
}

// t1Names are the glyph names of TeX's T1 (Cork) encoding where it is not ASCII.
var t1Names = func() (n [256]string) {
	copy(n[:], []string{
		"grave", "acute", "circumflex", "tilde", "dieresis", "hungarumlaut", "ring", "caron",
		"breve", "macron", "dotaccent", "cedilla", "ogonek", "quotesinglbase", "guilsinglleft",
		"guilsinglright", "quotedblleft", "quotedblright", "quotedblbase", "guillemotleft",
		"guillemotright", "endash", "emdash", "", "", "dotlessi", "dotlessj", "ff", "fi", "fl",
		"ffi", "ffl",
	})
	copy(n[128:], []string{
		"Abreve", "Aogonek", "Cacute", "Ccaron", "Dcaron", "Ecaron", "Eogonek", "Gbreve",
		"Lacute", "Lcaron", "Lslash", "Nacute", "Ncaron", "Eng", "Ohungarumlaut", "Racute",
		"Rcaron", "Sacute", "Scaron", "Scedilla", "Tcaron", "Tcommaaccent", "Uhungarumlaut",
		"Uring", "Ydieresis", "Zacute", "Zcaron", "Zdotaccent", "IJ", "Idotaccent", "dcroat",
		"section", "abreve", "aogonek", "cacute", "ccaron", "dcaron", "ecaron", "eogonek",
		"gbreve", "lacute", "lcaron", "lslash", "nacute", "ncaron", "eng", "ohungarumlaut",
		"racute", "rcaron", "sacute", "scaron", "scedilla", "tcaron", "tcommaaccent",
		"uhungarumlaut", "uring", "ydieresis", "zacute", "zcaron", "zdotaccent", "ij",
		"exclamdown", "questiondown", "sterling",
	})
	// 192–255 are Latin-1's letters but for these
	for c, name := range map[int]string{215: "OE", 223: "germandbls", 247: "oe", 255: "germandbls"} {
		n[c] = name
	}
	return n
}()

// texBitmapCodes sets the text of a Type 3 font's codes below 32 (and, in the T1 encoding,
// above 127) when all its glyphs are named by their codes ("a28", "a7") and drawn by its
// CharProcs (procs: the glyph names it draws; the subset in use). The encoding is T1 when a
// code above 127 is drawn, or the T1 ligatures' codes (27–31) are and OT1's (11–15) are
// not; else OT1.
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
	if !used(0, 255) {
		return // no glyph drawn that the names give: the codes in use are not known
	}
	t1 := used(128, 255) || used(27, 31) && !used(11, 15)
	for c := range names {
		if !drawn[c] {
			continue
		}
		switch {
		case t1 && (c < 32 || c >= 128) && t1Names[c] != "":
			t[c] = glyphText(t1Names[c])
		case t1 && c >= 192:
			t[c] = string(rune(c)) // Latin-1
		case !t1 && c < 32:
			t[c] = glyphText(ot1Low[c])
		}
	}
}
