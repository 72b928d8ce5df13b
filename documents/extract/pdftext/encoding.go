package pdftext

import (
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// An encoding maps a simple font's one-byte codes to glyph texts.
type encoding [256]string

// standardHigh is Adobe StandardEncoding from 0xA1 up (below, it is ASCII but for the
// quotes at 0x27 and 0x60).
var standardHigh = map[byte]string{
	0xA1: "exclamdown", 0xA2: "cent", 0xA3: "sterling", 0xA4: "fraction", 0xA5: "yen",
	0xA6: "florin", 0xA7: "section", 0xA8: "currency", 0xA9: "quotesingle",
	0xAA: "quotedblleft", 0xAB: "guillemotleft", 0xAC: "guilsinglleft", 0xAD: "guilsinglright",
	0xAE: "fi", 0xAF: "fl", 0xB1: "endash", 0xB2: "dagger", 0xB3: "daggerdbl",
	0xB4: "periodcentered", 0xB6: "paragraph", 0xB7: "bullet", 0xB8: "quotesinglbase",
	0xB9: "quotedblbase", 0xBA: "quotedblright", 0xBB: "guillemotright", 0xBC: "ellipsis",
	0xBD: "perthousand", 0xBF: "questiondown", 0xC1: "grave", 0xC2: "acute",
	0xC3: "circumflex", 0xC4: "tilde", 0xC5: "macron", 0xC6: "breve", 0xC7: "dotaccent",
	0xC8: "dieresis", 0xCA: "ring", 0xCB: "cedilla", 0xCD: "hungarumlaut", 0xCE: "ogonek",
	0xCF: "caron", 0xD0: "emdash", 0xE1: "AE", 0xE3: "ordfeminine", 0xE8: "Lslash",
	0xE9: "Oslash", 0xEA: "OE", 0xEB: "ordmasculine", 0xF1: "ae", 0xF5: "dotlessi",
	0xF8: "lslash", 0xF9: "oslash", 0xFA: "oe", 0xFB: "germandbls",
}

// symbolNames are the Symbol font's own encoding where it is not ASCII (Adobe's Symbol AFM;
// the pieces of large brackets and integrals are the Adobe Glyph List's private-use code
// points, as pdftotext prints them).
var symbolNames = map[byte]string{
	0x22: "universal", 0x24: "existential", 0x27: "suchthat", 0x2A: "asteriskmath",
	0x2D: "minus", 0x40: "congruent", 0x5C: "therefore", 0x5E: "perpendicular", 0x60: "radicalex",
	0xA1: "Upsilon1", 0xA2: "minute", 0xA3: "lessequal", 0xA4: "fraction", 0xA5: "infinity",
	0xA6: "florin", 0xA7: "club", 0xA8: "diamond", 0xA9: "heart", 0xAA: "spade",
	0xAB: "arrowboth", 0xAC: "arrowleft", 0xAD: "arrowup", 0xAE: "arrowright", 0xAF: "arrowdown",
	0xB0: "degree", 0xB1: "plusminus", 0xB2: "second", 0xB3: "greaterequal", 0xB4: "multiply",
	0xB5: "proportional", 0xB6: "partialdiff", 0xB7: "bullet", 0xB8: "divide", 0xB9: "notequal",
	0xBA: "equivalence", 0xBB: "approxequal", 0xBC: "ellipsis", 0xC0: "aleph", 0xC5: "circleplus",
	0xC6: "emptyset", 0xC7: "intersection", 0xC8: "union", 0xCE: "element", 0xCF: "notelement",
	0xD0: "angle", 0xD1: "gradient", 0xD5: "product", 0xD6: "radical", 0xD7: "dotmath",
	0xD8: "logicalnot", 0xD9: "logicaland", 0xDA: "logicalor", 0xDB: "arrowdblboth",
	0xDC: "arrowdblleft", 0xDE: "arrowdblright", 0xE0: "lozenge", 0xE5: "summation",
	0xF2: "integral", 0x7E: "similar", 0xA0: "Euro", 0xBD: "arrowvertex", 0xBE: "arrowhorizex",
	0xBF: "carriagereturn", 0xC1: "Ifraktur", 0xC2: "Rfraktur", 0xC3: "weierstrass",
	0xC4: "circlemultiply", 0xC9: "propersuperset", 0xCA: "reflexsuperset", 0xCB: "notsubset",
	0xCC: "propersubset", 0xCD: "reflexsubset", 0xD2: "registerserif", 0xD3: "copyrightserif",
	0xD4: "trademarkserif", 0xDD: "arrowdblup", 0xDF: "arrowdbldown", 0xE1: "angleleft",
	0xE2: "registersans", 0xE3: "copyrightsans", 0xE4: "trademarksans", 0xE6: "parenlefttp",
	0xE7: "parenleftex", 0xE8: "parenleftbt", 0xE9: "bracketlefttp", 0xEA: "bracketleftex",
	0xEB: "bracketleftbt", 0xEC: "bracelefttp", 0xED: "braceleftmid", 0xEE: "braceleftbt",
	0xEF: "braceex", 0xF1: "angleright", 0xF3: "integraltp", 0xF4: "integralex",
	0xF5: "integralbt", 0xF6: "parenrighttp", 0xF7: "parenrightex", 0xF8: "parenrightbt",
	0xF9: "bracketrighttp", 0xFA: "bracketrightex", 0xFB: "bracketrightbt", 0xFC: "bracerighttp",
	0xFD: "bracerightmid", 0xFE: "bracerightbt",
}

// symbolLetters are the Symbol font's Greek letters at the Latin letters' codes.
const symbolLetters = "Alpha Beta Chi Delta Epsilon Phi Gamma Eta Iota theta1 Kappa Lambda Mu Nu Omicron Pi Theta Rho Sigma Tau Upsilon sigma1 Omega Xi Psi Zeta"

// Base encodings by name.
var (
	standardEncoding = func() *encoding {
		var e encoding
		for c := 0x20; c < 0x7F; c++ {
			e[c] = string(rune(c))
		}
		e[0x27], e[0x60] = "\u2019", "\u2018"
		for c, n := range standardHigh {
			e[c] = glyphText(n)
		}
		return &e
	}()
	winAnsiEncoding  = byteEncoding(charmap.Windows1252)
	winAnsiNamed     = winAnsi()
	macRomanEncoding = byteEncoding(charmap.Macintosh)
	symbolEncoding   = func() *encoding {
		var e encoding
		for c := 0x20; c < 0x7F; c++ {
			e[c] = string(rune(c))
		}
		for i, n := range strings.Fields(symbolLetters) {
			e['A'+i] = glyphText(n)
			e['a'+i] = glyphText(strings.ToLower(n[:1]) + n[1:])
		}
		e['j'], e['v'], e['J'], e['V'] = glyphText("phi1"), glyphText("omega1"), glyphText("theta1"), glyphText("sigma1")
		for c, n := range symbolNames {
			e[c] = glyphText(n)
		}
		return &e
	}()
)

func byteEncoding(cm *charmap.Charmap) *encoding {
	var e encoding
	for c := 0x20; c < 256; c++ {
		if r := cm.DecodeByte(byte(c)); r != 0xFFFD && r >= 0x20 && (r < 0x7F || r > 0x9F) {
			e[c] = string(r)
		}
	}
	return &e
}

// winAnsiBullets are WinAnsiEncoding's codes that Windows-1252 leaves unused: the PDF
// reference (Appendix D, note 5) maps each unused code above 040 to the bullet, and
// renderers draw a bullet there (libharu's encoding_list.pdf draws its code chart so).
var winAnsiBullets = []byte{0x7F, 0x81, 0x8D, 0x8F, 0x90, 0x9D}

// winAnsi is WinAnsiEncoding as a font names it (its Encoding or BaseEncoding):
// Windows-1252, the bullet at the unused codes and the hyphen at 0xAD, which renderers
// draw and pdftotext reads as "-". Where EdgeChat reads codes as
// Windows-1252 without the font naming the encoding (glyphs named arbitrarily, a
// TrueType font without one) the unused codes stay unread: TeX fonts put their own
// glyphs there, which pdftotext does not read as bullets either.
func winAnsi() *encoding {
	e := byteEncoding(charmap.Windows1252)
	for _, c := range winAnsiBullets {
		e[c] = glyphText("bullet")
	}
	e[0xAD] = "-" // the hyphen's second code (note 4 there), not Windows-1252's soft hyphen
	return e
}

// baseEncoding is the encoding called name, nil when it has none by that name.
func baseEncoding(name string) *encoding {
	switch name {
	case "WinAnsiEncoding":
		return winAnsiNamed
	case "MacRomanEncoding":
		return macRomanEncoding
	case "StandardEncoding":
		return standardEncoding
	case "MacExpertEncoding", "PDFDocEncoding":
		return standardEncoding
	}
	return nil
}
