package pdftext

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// glyphlist.txt is the Adobe Glyph List 2.0 (BSD-3-Clause, its licence at the top of the
// file), as fontTools carries it: glyph names to Unicode.
//
//go:embed glyphlist.txt
var glyphList string

var (
	aglOnce sync.Once
	agl     map[string]string
)

// extraNames are names fonts use that the list lacks (TeX's among them).
var extraNames = map[string]string{
	"dotlessj": "\u0237", "ff": "ff", "fi": "fi", "fl": "fl", "ffi": "ffi", "ffl": "ffl",
	"st": "st", "longst": "st", "visiblespace": "\u2423", "nbspace": " ", "sfthyphen": "-",
	"hyphenchar": "-", "dieresis.alt": "\u00A8", "Germandbls": "SS", "napostrophe": "\u0149",
	"angbracketleft": "\u27E8", "angbracketright": "\u27E9", "circlecopyrt": "\u00A9",
	"negationslash": "\u0338", "mapsto": "\u21A6", "minusplus": "\u2213",
}

// texMathFontNames are the glyph names of TeX's math italic and symbol fonts (cmmi, cmsy
// and the fonts made like them) that the Adobe Glyph List lacks, as pdfTeX's
// glyphtounicode table gives them. pdfTeX writes no ToUnicode map unless told to, and a
// paper's ℓ, ≪, ⊎, ⌊x⌋ were left out: kreuzberg's "A Course in Machine Learning"
// (pdfTeX 1.40.14) read its loss E[ℓ(y, f(x))] as "E [(y, f (x))]" (pdftotext reads the
// codes: "`(y, f ( x))"). The pieces TeX builds arrows and accents of (the hooks of ↪, the
// tie) are left out; \vec's arrow ("vector") reads as the combining arrow, which
// combineAccents puts after the letter it stands over (minlog's mlcf.pdf: "∀x⃗.⊥ → Rx⃗",
// where the arrow was left out; pdftotext reads the code, "∀~x.⊥ → R~x").
var texMathFontNames = map[string]string{
	"epsilon1": "\u03F5", "pi1": "\u03D6", "rho1": "\u03F1", "lscript": "\u2113",
	"arrowlefttophalf": "\u21BC", "arrowleftbothalf": "\u21BD", "arrowrighttophalf": "\u21C0",
	"arrowrightbothalf": "\u21C1", "triangleright": "\u25B7", "triangleleft": "\u25C1", "star": "\u22C6",
	"flat": "\u266D", "natural": "\u266E", "sharp": "\u266F", "slurbelow": "\u2323", "slurabove": "\u2322",
	"diamondmath": "\u22C4", "circleminus": "\u2296", "circledivide": "\u2298", "circledot": "\u2299",
	"equivasymptotic": "\u224D", "precedesequal": "\u2AAF", "followsequal": "\u2AB0", "lessmuch": "\u226A",
	"greatermuch": "\u226B", "follows": "\u227B", "arrownortheast": "\u2197", "arrowsoutheast": "\u2198",
	"arrownorthwest": "\u2196", "arrowsouthwest": "\u2199", "similarequal": "\u2243", "prime": "\u2032",
	"owner": "\u220B", "triangle": "\u25B3", "triangleinv": "\u25BD", "Rfractur": "\u211C", "Ifractur": "\u2111",
	"latticetop": "\u22A4", "unionmulti": "\u228E", "turnstileleft": "\u22A2", "turnstileright": "\u22A3",
	"floorleft": "\u230A", "floorright": "\u230B", "ceilingleft": "\u2308", "ceilingright": "\u2309",
	"bardbl": "\u2016", "arrowbothv": "\u2195", "arrowdblbothv": "\u21D5", "wreathproduct": "\u2240",
	"coproduct": "\u2210", "unionsq": "\u2294", "intersectionsq": "\u2293", "subsetsqequal": "\u2291",
	"supersetsqequal": "\u2292", "vector": "\u20D7",
}

// mathPiNames are glyph names of Adobe's Mathematical Pi fonts (H and a number), which
// XPP and other publishers' systems set a paper's signs and Greek letters in, embedded
// without a ToUnicode map: pdftotext reads their codes ("Ca21" for Ca²⁺, "n512" for n = 12,
// "203 objective" for 20×), EdgeChat read nothing. These are the ones a 1998 Glia paper
// (pdffigures2's test PDF 3a9202…) shows by its text ("Ca2+", "K+", "n = 12", "250 ± 41 µm",
// "20× or 40×", "18α-glycyrrhetinic"), and the other signs of that row of the font; and
// those a 1999 Developmental Biology paper of XPP's (pdfrw's static_pdfs, bd0ef5…) sets
// in MathematicalPi-One, -Four, Universal-GreekwithMathPi and Universal-NewswithCommPi,
// told by their pages: the prime of "4,4′-" and "N,N′-", µ of "10 µM", the bold plus and
// minus of its headings' "Na⁺/H⁺" and "HCO₃⁻/Cl⁻", and the hydrate's dot of "MgCl₂·6H₂O"
// (pdftotext reads their codes: "4,49-", "mM", "1", "2", "z").
var mathPiNames = map[string]string{
	"H11001": "+", "H11002": "\u2212", "H11003": "\u00D7", "H11005": "=", "H11006": "\u00B1",
	"H11021": "<", "H11022": ">", "H9004": "\u0394", "H9251": "\u03B1",
	"H11032": "\u2032", "H9262": "\u03BC", "H11545": "+", "H11546": "\u2212", "H18528": "\u00B7",
}

// texMathNames are the glyph names of TeX's math extension fonts (cmex, and the fonts made
// like them), which the Adobe Glyph List lacks: the big operators in their text and display
// sizes, and delimiters and radicals in their growing sizes. pdfTeX's glyphtounicode table
// gives them the same characters; without them a formula set with a font without a
// ToUnicode map lost its ∑ and ∫ (pdftotext reads them by their codes: "X", "Z").
var texMathNames = map[string]string{
	"summation": "\u2211", "integral": "\u222B", "contintegral": "\u222E", "product": "\u220F",
	"coproduct": "\u2210", "union": "\u22C3", "intersection": "\u22C2", "unionmulti": "\u2A04",
	"logicaland": "\u22C0", "logicalor": "\u22C1", "circleplus": "\u2A01", "circlemultiply": "\u2A02",
	"circledot": "\u2A00", "unionsq": "\u2A06",
}

// texOperatorSizes and texDelimiterSizes are the sizes texMathNames' operators and
// texDelimiterNames' delimiters come in: "summationdisplay", "parenleftBig".
var (
	texOperatorSizes  = []string{"text", "display"}
	texDelimiterSizes = []string{"big", "Big", "bigg", "Bigg"}
)

// texDelimiterNames are the delimiters of TeX's math extension fonts by their names' stems
// ("parenleft" in "parenleftbigg").
var texDelimiterNames = map[string]string{
	"parenleft": "(", "parenright": ")", "bracketleft": "[", "bracketright": "]",
	"braceleft": "{", "braceright": "}", "angbracketleft": "\u27E8", "angbracketright": "\u27E9",
	"floorleft": "\u230A", "floorright": "\u230B", "ceilingleft": "\u2308", "ceilingright": "\u2309",
	"slash": "/", "backslash": "\\", "radical": "\u221A",
}

func loadAGL() {
	agl = make(map[string]string, 4400)
	for line := range strings.Lines(glyphList) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, hexes, ok := strings.Cut(strings.TrimSpace(line), ";")
		if !ok {
			continue
		}
		var b strings.Builder
		for _, h := range strings.Fields(hexes) {
			if v, err := strconv.ParseUint(h, 16, 32); err == nil {
				b.WriteRune(rune(v))
			}
		}
		agl[name] = b.String()
	}
	for op, t := range texMathNames {
		for _, size := range texOperatorSizes {
			agl[op+size] = t
		}
	}
	for d, t := range texDelimiterNames {
		for _, size := range texDelimiterSizes {
			agl[d+size] = t
		}
	}
	for k, v := range extraNames { // the list's ligatures are given as letters, as they read
		agl[k] = v
	}
	for k, v := range mathPiNames {
		agl[k] = v
	}
	for k, v := range amsSymbolNames { // amsnames.go
		if _, ok := agl[k]; !ok {
			agl[k] = v
		}
	}
	for k, v := range texMathFontNames {
		if _, ok := agl[k]; !ok {
			agl[k] = v
		}
	}
}

// glyphText is the Unicode text of a glyph name, by the Adobe Glyph List's rules: the
// list, then uniXXXX sequences and uXXXX[XX] (a part after "." is a variant and dropped,
// parts joined by "_" are a ligature). "" when the name says nothing.
func glyphText(name string) string {
	aglOnce.Do(loadAGL)
	if t, ok := agl[name]; ok {
		return t
	}
	if base, _, ok := strings.Cut(name, "."); ok {
		name = base
		if t, ok := agl[name]; ok {
			return t
		}
	}
	if name == "" {
		return ""
	}
	if strings.Contains(name, "_") {
		var b strings.Builder
		for part := range strings.SplitSeq(name, "_") {
			b.WriteString(component(part))
		}
		return b.String()
	}
	return component(name)
}

// component is the text of one part of a glyph name.
func component(name string) string {
	if t, ok := agl[name]; ok {
		return t
	}
	if hex, ok := strings.CutPrefix(name, "uni"); ok && len(hex) >= 4 && len(hex)%4 == 0 {
		var b strings.Builder
		for i := 0; i < len(hex); i += 4 {
			v, err := strconv.ParseUint(hex[i:i+4], 16, 32)
			if err != nil || (v >= 0xD800 && v <= 0xDFFF) {
				return ""
			}
			b.WriteRune(rune(v))
		}
		return b.String()
	}
	if hex, ok := strings.CutPrefix(name, "u"); ok && len(hex) >= 4 && len(hex) <= 6 {
		if v, err := strconv.ParseUint(hex, 16, 32); err == nil && utf8.ValidRune(rune(v)) {
			return string(rune(v))
		}
	}
	return ""
}

// numericCode reads names such as "g65", "c65", "a65", "G41" (hex) or "cid65", which some
// producers give glyphs by their code: the code, and whether the name is of that form.
func numericCode(name string) (int, bool) {
	i := 0
	for i < len(name) && i < 3 && (name[i] >= 'a' && name[i] <= 'z' || name[i] >= 'A' && name[i] <= 'Z') {
		i++
	}
	digits := name[i:]
	if i == 0 || len(digits) < 2 || len(digits) > 3 {
		return 0, false
	}
	base := 10
	if name[:i] == "G" || name[:i] == "x" {
		base = 16
	}
	v, err := strconv.ParseUint(digits, base, 16)
	if err != nil || v > 255 {
		return 0, false
	}
	return int(v), true
}
