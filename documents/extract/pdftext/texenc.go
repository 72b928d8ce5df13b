package pdftext

import (
	"strconv"
	"strings"
)

// TeX's bitmap fonts. dvips and pdfTeX put TeX's PK fonts into PDFs as Type 3 fonts whose
// glyphs are named by their codes ("a28"; Ghostscript, distilling dvips' PostScript, names
// them by the code's byte, "\x0c"), with no ToUnicode map or one for the letters only;
// codes from 32 to 126 are ASCII's letters and read as such, and in the Cork (T1) encoding
// of the EC fonts 192–255 are Latin-1's letters, but the ligatures ff fi fl ffi ffl stand at
// 27–31 (T1) or 11–15 (OT1, the CM fonts), which pdftotext leaves out, reads as a space or
// prints as control characters ("signi cance", "signicance", "coe\x0ecient").
// texBitmapCodes reads them where the codes in use show a T1 text font, or where the
// glyphs' widths show ligatures. Where they do not, those codes stay without text: OT1's
// ligatures' codes are Greek letters in the math italic font, T1's 27–31 are σ τ υ φ χ there,
// and œ ø Æ Œ Ø in OT1's text fonts.

// codeName reads the glyph names other producers give a bitmap glyph for its code: the code
// in hex after a "#" ("#0C" for 12; Acrobat Distiller, the "#" itself escaped in the file,
// "/#230C"), or in two base-36 digits counting from 360 ("AR" for 27, "CP" for 97; ESP
// Ghostscript). Unread, graphviz's lefty guide read every fi as nothing ("specied";
// pdftotext "speci ed") and libg2's manual its ff ("buer"; pdftotext "bu\x1ber").
func codeName(n string) (int, bool) {
	if len(n) == 3 && n[0] == '#' {
		v, ok := unhex2(n[1], n[2])
		return int(v), ok
	}
	if len(n) != 2 {
		return 0, false
	}
	v := 0
	for _, d := range []byte(n) {
		switch {
		case '0' <= d && d <= '9':
			v = v*36 + int(d-'0')
		case 'A' <= d && d <= 'Z':
			v = v*36 + int(d-'A') + 10
		default:
			return 0, false
		}
	}
	return v - 360, v >= 360
}

// texLigatures are the glyph names of codes 27–31 in TeX's T1 encoding, 11–15 in OT1.
var texLigatures = [5]string{"ff", "fi", "fl", "ffi", "ffl"}

// t1Punctuation is the text of T1's quotes, guillemets and dashes below 32 (13–22), which
// a font that shows itself a T1 text font by its ligatures or letters draws for TeX's
// quote ligatures and its dashes (-- and ---). Left out, king's manual ("a “kinetic
// image,” … objects — points") read "a kinetic image, … objects points". 25 and 26, the
// dotless i and j, stay: TeX draws accents over them; 23 is a mark of no width.
var t1Punctuation = map[int]string{
	13: "‚", 14: "‹", 15: "›", 16: "“", 17: "”", 18: "„", 19: "«", 20: "»", 21: "–", 22: "—",
}

// texBitmapCodes sets the text of a Type 3 font's ligature codes when all its glyphs are
// named by their codes ("a28", "a7", or the code's byte; code 0 by any name that is no
// glyph's), and its CharProcs (procs: the
// glyph names it draws, the subset in use) show which: codes 27–31 as T1's ligatures when it
// draws a letter of T1's upper half (192–255: the EC fonts' accented letters, which neither
// the math fonts nor OT1 fonts have) and none of 11–15 (OT1's ligatures, T1's accents and
// quotes, which a T1 text rarely draws), or when their widths (width, a code's advance) are
// those of ligatures, by ligatureWidths; else codes 11–15 as OT1's ligatures, by their
// widths; with T1's ligatures, T1's quotes and dashes (t1Punctuation). A ToUnicode map
// that gives a code text still wins over these.
func texBitmapCodes(t *encoding, names *[256]string, procs []string, width *[256]float64) {
	var drawn [256]bool
	byName := map[string]int{}
	for c, n := range names {
		if n == "" || n == ".notdef" { // Ghostscript names the codes between those in use so
			continue
		}
		if len(n) == 1 && int(n[0]) == c {
			byName[n] = c
			continue
		}
		if v, ok := codeName(n); ok && v == c {
			byName[n] = c
			continue
		}
		if c == 0 && glyphText(n) == "" {
			// Code 0 cannot be named by its byte: Ghostscript names it "BnZr" (OT1's Γ in
			// cmr, drawn in any paper with a Γ; a CEBAF preprint's dvips fonts, 2008)
			byName[n] = c
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
	if !used('A', 'Z') && !used('a', 'z') && used(128, 255) {
		ts1Symbols(t, &drawn)
		return
	}
	first := 0
	switch {
	case !used(11, 15) && (used(192, 255) || ligatureWidths(&drawn, width, 27)):
		first = 27 // T1
	case ligatureWidths(&drawn, width, 11):
		first = 11 // OT1
	default:
		return
	}
	for c := first; c < first+len(texLigatures); c++ {
		if drawn[c] {
			t[c] = texLigatures[c-first]
		}
	}
	if first != 27 {
		return
	}
	for c, s := range t1Punctuation {
		if drawn[c] {
			t[c] = s
		}
	}
}

// ts1Upper is the text of the TS1 (textcomp) encoding's codes 128–191, where LaTeX's
// text symbols stand (\textbullet at 136, \textdegree at 176, \texteuro at 191); 131,
// \textgravedbl, and 171, \textcopyleft, have no character of their own. Of the upper
// half's rest only 214 and 246 are drawn, × and ÷.
var ts1Upper = [64]string{
	"˘", "ˇ", "˝", "", "†", "‡", "‖", "‰", "•", "℃", "$", "¢", "ƒ", "₡", "₩", "₦",
	"G\u20D2", "₱", "₤", "℞", "‽", "⸘", "₫", "™", "‱", "¶", "฿", "№", "⁒", "℮", "◦", "℠",
	"⁅", "⁆", "¢", "£", "¤", "¥", "¦", "§", "¨", "©", "ª", "", "¬", "℗", "®", "¯",
	"°", "±", "²", "³", "´", "µ", "¶", "·", "※", "¹", "º", "√", "¼", "½", "¾", "€",
}

// ts1Symbols sets the text of the drawn codes above 127 of a TeX bitmap font that draws no
// letter there and some code above 127: a TS1 font (tcrm), of LaTeX's text symbols. The
// text fonts (T1) draw letters; OT1's and the math fonts' codes end at 127. Read by
// WinAnsi, itemize's bullet at 136 was "ˆ" (dlt-viewer's and gyoto's manuals). Its lower
// half keeps ASCII's reading: the digits (old style) and punctuation there are ASCII's.
func ts1Symbols(t *encoding, drawn *[256]bool) {
	for c := 128; c < 256; c++ {
		switch {
		case !drawn[c]:
		case c < 192:
			t[c] = ts1Upper[c-128]
		case c == 214:
			t[c] = "×"
		case c == 246:
			t[c] = "÷"
		default:
			t[c] = ""
		}
	}
}

// ligatureWidths says whether the drawn codes first…first+4 (27 in T1, 11 in OT1) advance
// as ff fi fl ffi ffl do: each as far as its letters together less a little (TeX's fonts
// set a ligature's width so; ecrm1000's
// fi is 0.556 em where f and i are 0.306 and 0.278), at most 0.18 of an f a joint, with at
// least one of ff, fi, fl among them. The Greek letters of the math italic font there, and
// OT1's œ ø Æ Œ Ø, are narrower or wider than that (cmr10's ø is 0.5 em: 0.27 of an f less
// than f and i). The letters must be drawn too, or nothing is known.
func ligatureWidths(drawn *[256]bool, width *[256]float64, first int) bool {
	two := false
	for c := first; c < first+len(texLigatures); c++ {
		if !drawn[c] {
			continue
		}
		sum, f := 0.0, width['f']
		for _, l := range []byte(texLigatures[c-first]) {
			if !drawn[l] || width[l] <= 0 {
				return false
			}
			sum += width[l]
		}
		joints := float64(len(texLigatures[c-first]) - 1)
		if w := width[c]; w > sum+0.02*f || w < sum-0.18*f*joints {
			return false
		}
		two = two || joints == 1
	}
	return two
}
