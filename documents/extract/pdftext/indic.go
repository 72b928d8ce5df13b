package pdftext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Devanagari fonts made before Unicode (TeX's Velthuis fonts dvng/dvnc, and many Type 1
// and TrueType fonts of their time) name their glyphs by what they draw — "ka", "halfga",
// "imatra", "repha", "t_t" — with neither a ToUnicode map nor the Adobe Glyph List's
// names ("kadeva"). Their names are read here by the list's own Devanagari names: a name
// is the list's name without its script suffix "deva" ("ka" is kadeva, "virama"
// viramadeva), a vowel sign is its vowel's name and "matra" (the Hindi word for the sign;
// "imatra" is ivowelsigndeva), "half" and a consonant is that consonant's half form (the
// consonant and virama), and consonants joined by "_" or run together ("t_t", "kr") are a
// conjunct (joined by virama); क्ष and ज्ञ go by their usual names ("ksa", "jna"). The vocalic vowels go by their Indian romanisation too ("ri",
// "rri", "li": "rimatra"), and the two ra forms by their names: the reph drawn over the
// following letter ("repha", "reph") and the stroke under the preceding one ("rstroke",
// "rakar").
//
// Such fonts draw in visual order: the i sign (ि) before the consonants it follows in the
// text, a reph after the syllable it begins in the text. reorderVisual puts them back.

const (
	devaVirama = "\u094D"
	devaRa     = "\u0930"
)

// Visual order of a glyph (font.order): where a legacy font draws it relative to the text.
const (
	notLegacy uint8 = iota // not a legacy font's glyph
	inOrder                // a legacy font's glyph, drawn in text order
	preBase                // drawn before the consonants it follows in the text (the i sign)
	postBase               // drawn after the syllable it begins in the text (a reph)
)

// romanVowels are the vocalic vowels' Indian romanisations, by the list's names.
var romanVowels = map[string]string{"ri": "rvocalic", "rri": "rrvocalic", "li": "lvocalic", "lli": "llvocalic"}

// raForms are the names of the ra's forms: text and visual order.
var raForms = map[string]struct {
	text  string
	order uint8
}{
	"repha": {devaRa + devaVirama, postBase}, "reph": {devaRa + devaVirama, postBase},
	"rstroke": {devaVirama + devaRa, inOrder}, "rakar": {devaVirama + devaRa, inOrder},
}

// namedConjuncts are the two conjuncts Indian grammars list among the letters, by their
// usual names.
var namedConjuncts = map[string]string{
	"ksa": "\u0915\u094D\u0937", "ksha": "\u0915\u094D\u0937", "kssa": "\u0915\u094D\u0937",
	"jna": "\u091C\u094D\u091E", "jnya": "\u091C\u094D\u091E", "gya": "\u091C\u094D\u091E",
}

// devaName is the text of one Devanagari name without its "deva" suffix ("ka", "virama",
// "aa"): a letter, sign or vowel of the glyph list.
func devaName(name string) string {
	if name == "" || strings.HasSuffix(name, "deva") {
		return ""
	}
	if v, ok := romanVowels[name]; ok {
		name = v
	}
	aglOnce.Do(loadAGL)
	if t := agl[name+"deva"]; isDeva(t) {
		return t
	}
	return ""
}

// devaSign is the vowel sign of a vowel's name ("i", "aa", "ri").
func devaSign(vowel string) string {
	if v, ok := romanVowels[vowel]; ok {
		vowel = v
	}
	aglOnce.Do(loadAGL)
	return agl[vowel+"vowelsigndeva"]
}

func isDeva(s string) bool {
	for _, r := range s {
		if r < 0x0900 || r > 0x097F {
			return false
		}
	}
	return s != ""
}

// isDevaConsonant is true of Devanagari's consonant letters.
func isDevaConsonant(r rune) bool {
	return r >= 0x0915 && r <= 0x0939 || r >= 0x0958 && r <= 0x095F || r >= 0x0978 && r <= 0x097F
}

// devaConsonant reads a consonant's name with or without its inherent a ("ka", "k",
// "ssa", "ss"): the letter, or "".
func devaConsonant(name string) string {
	for _, n := range []string{name + "a", name} {
		if t := devaName(n); len([]rune(t)) == 1 && isDevaConsonant([]rune(t)[0]) {
			return t
		}
	}
	return ""
}

// devanagariGlyph is the text and visual order of a legacy Devanagari font's glyph name,
// ok false when the name does not read so.
func devanagariGlyph(name string) (text string, order uint8, ok bool) {
	if base, _, found := strings.Cut(name, "."); found {
		name = base
	}
	if f, found := raForms[name]; found {
		return f.text, f.order, true
	}
	if name == "rr" { // Velthuis's vocalic r; the glyph list reads it rra (ऱ)
		return "\u090B", inOrder, true
	}
	if t := devaName(name); t != "" {
		return t, inOrder, true
	}
	if t, found := namedConjuncts[name]; found {
		return t, inOrder, true
	}
	if v, found := strings.CutSuffix(name, "matra"); found {
		if t := devaSign(v); t != "" {
			if t == "\u093F" {
				return t, preBase, true
			}
			return t, inOrder, true
		}
		return "", notLegacy, false
	}
	if c, found := strings.CutPrefix(name, "half"); found {
		if t := devaConsonant(c); t != "" {
			return t + devaVirama, inOrder, true
		}
		return "", notLegacy, false
	}
	var b strings.Builder
	for i, part := range strings.Split(name, "_") {
		t := conjunct(part)
		if t == "" {
			return "", notLegacy, false
		}
		if i > 0 {
			b.WriteString(devaVirama)
		}
		b.WriteString(t)
	}
	return b.String(), inOrder, true
}

// conjunct reads consonants run together, the last one's vowel after them ("kr", "ru",
// "nn", "ssa"): the consonants joined by virama and the vowel's sign, longest names
// first; "" when the name is not so made.
func conjunct(name string) string {
	if name == "" {
		return ""
	}
	for n := min(len(name), 3); n >= 1; n-- {
		c := devaConsonant(name[:n])
		if c == "" || strings.HasSuffix(name[:n], "a") {
			continue
		}
		rest := name[n:]
		switch {
		case rest == "" || rest == "a":
			return c
		case devaSign(rest) != "":
			return c + devaSign(rest)
		}
		if more := conjunct(rest); more != "" {
			return c + devaVirama + more
		}
	}
	return ""
}

// minDevanagariNames is how many of a font's glyph names must read as Devanagari, one of
// them a sign only Indic scripts have, for its names to be read so: "ha" or "pa" alone may
// be anything.
const minDevanagariNames = 4

// devanagariNames reads a font's glyph names, code by code, as a legacy Devanagari font's
// when enough of its names that the glyph list does not know read so, one of them a sign
// only Indic scripts have: the texts, and the glyphs drawn out of text order. Then names
// the list reads otherwise are the font's too: its "a" is अ, its "one" १.
func devanagariNames(names *[256]string) (texts *encoding, order *[256]uint8) {
	var t encoding
	var o [256]uint8
	found, indic := 0, false
	for c, name := range names {
		if name == "" || name == ".notdef" {
			continue
		}
		text, ord, ok := devanagariGlyph(name)
		if !ok {
			continue
		}
		t[c], o[c] = text, max(ord, inOrder)
		if glyphText(name) != "" {
			continue
		}
		found++
		for _, r := range text {
			indic = indic || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
		}
	}
	if found < minDevanagariNames || !indic {
		return nil, nil
	}
	return &t, &o
}

// drawnVowels are the independent vowels legacy fonts draw as the letter a and a vowel
// sign.
var drawnVowels = map[string]string{"अा": "आ", "अो": "ओ", "अौ": "औ"}

// reorderVisual puts the glyphs of a word that a legacy font draws out of text order back
// in it: an i sign after the consonants it is drawn before (half forms, the full consonant,
// a nukta or ra stroke under it), a reph before the syllable it is drawn after, a
// candrabindu or anusvara drawn before the vowel sign it follows in the text after it; the
// letter a and a vowel sign drawn for आ, ओ, औ are that letter. Other glyphs stay as they
// are.
func reorderVisual(w []glyph) []glyph {
	legacy := false
	for _, g := range w {
		legacy = legacy || g.order != notLegacy
	}
	if !legacy {
		return w
	}
	for i := 0; i+1 < len(w); i++ {
		a, b := &w[i], &w[i+1]
		if a.order == notLegacy || b.order == notLegacy {
			continue
		}
		if r, n := utf8.DecodeRuneInString(a.text); b.text == "\u093C" && n == len(a.text) && r >= 0x0966 && r <= 0x096F {
			b.text = "." // Velthuis's small fonts draw the period with their nukta: "१.१"
		}
		if v, ok := drawnVowels[a.text+b.text]; ok {
			a.text, a.w = v, b.x+b.w-a.x
			w = append(w[:i+1], w[i+2:]...)
			continue
		}
		if (a.text == "\u0901" || a.text == "\u0902") && isVowelSign(b.text) && b.order != preBase {
			*a, *b = *b, *a
		}
	}
	for i := 0; i < len(w); i++ {
		if w[i].order != preBase {
			continue
		}
		j := i + 1
		for j < len(w) && endsVirama(w[j].text) {
			j++
		}
		if j >= len(w) || !startsConsonant(w[j].text) {
			continue
		}
		j++
		for j < len(w) && (strings.HasPrefix(w[j].text, devaVirama) || w[j].text == "\u093C") {
			j++
		}
		moveLater(w, i, j-1)
		w[j-1].order = inOrder
		i = j - 1
	}
	for i := 0; i < len(w); i++ {
		if w[i].order != postBase {
			continue
		}
		j := i - 1
		for j >= 0 && allMarks(w[j].text) {
			j--
		}
		for j >= 0 && strings.HasPrefix(w[j].text, devaVirama) { // a ra stroke under it
			j--
		}
		if j < 0 || !startsConsonant(w[j].text) {
			continue
		}
		for j > 0 && endsVirama(w[j-1].text) {
			j--
		}
		g := w[i]
		copy(w[j+1:i+1], w[j:i])
		w[j] = g
		w[j].order = inOrder
	}
	return w
}

// isVowelSign is true of Devanagari's dependent vowel signs.
func isVowelSign(s string) bool {
	r := []rune(s)
	return len(r) == 1 && r[0] >= 0x093A && r[0] <= 0x094C && r[0] != 0x093C && r[0] != 0x093D
}

func endsVirama(s string) bool { return strings.HasSuffix(s, devaVirama) && startsConsonant(s) }

func startsConsonant(s string) bool {
	for _, r := range s {
		return isDevaConsonant(r)
	}
	return false
}

// allMarks is true of a text of vowel signs and other marks only.
func allMarks(s string) bool {
	for _, r := range s {
		if !unicode.Is(unicode.M, r) {
			return false
		}
	}
	return s != ""
}
