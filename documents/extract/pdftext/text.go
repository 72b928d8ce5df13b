package pdftext

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"edgechat/internal/textnorm"
)

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// cleanText is a glyph's text as it should read: presentation forms (the ﬁ ligatures,
// Arabic and Hebrew contextual forms) spelled with ordinary letters (NFKC), the white-space
// controls (tab, line feed, …) a space, as poppler takes a tab, and what cannot be read
// dropped (other control characters, U+FFFD). Word for the Mac's PDFs map Calibri's space
// glyph to a tab in their ToUnicode maps: dropped, its words ran together.
func cleanText(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || (r >= 0x7F && r < 0xA0) || r == 0xFFFD || textnorm.IsPresentation(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '\t' && r <= '\r':
			b.WriteByte(' ')
		case r < 0x20 || (r >= 0x7F && r < 0xA0) || r == 0xFFFD:
		case textnorm.IsPresentation(r):
			b.WriteString(norm.NFKC.String(string(r)))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// rtlScripts read right to left.
var rtlScripts = []*unicode.RangeTable{unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana, unicode.Nko}

func isRTLRune(r rune) bool {
	// Arabic-Indic digits belong to the Arabic script but are written left to right. The
	// blocks of Hebrew to Arabic Extended-A read right to left whole: their tatweel, comma
	// and question mark are of the Common script, their marks of the Inherited.
	if r >= 0x0590 && r <= 0x08FF {
		return !unicode.IsDigit(r) && !unicode.Is(unicode.M, r)
	}
	return r >= 0x0590 && unicode.In(r, rtlScripts...) && !unicode.IsDigit(r)
}

// direction of a word: 1 right to left, -1 left to right, 0 neither (digits, signs).
func direction(s string) int {
	for _, r := range s {
		if isRTLRune(r) {
			return 1
		}
	}
	for _, r := range s {
		if unicode.IsLetter(r) {
			return -1
		}
	}
	return 0
}

// isRTL says whether most of a line's letters are of right-to-left scripts.
func isRTL(gs []glyph) bool {
	rtl, ltr := 0, 0
	for _, g := range gs {
		for _, r := range g.text {
			switch {
			case isRTLRune(r):
				rtl++
			case unicode.IsLetter(r):
				ltr++
			}
		}
	}
	return rtl > ltr
}

// spell writes a line's words, given left to right as drawn, in logical order. Its glyphs
// are taken as the bidirectional algorithm's levels make them (bidiLevels): right-to-left
// letters, and the punctuation and spaces between two of them, run backwards; left-to-right
// letters and numbers forwards; between runs of two directions a space takes the line's
// direction and a sign the Latin's. So a word that mixes the two ("title={فضای" in a
// listing) keeps its Latin letters in order, and a right-to-left word's punctuation turns
// with it in a right-to-left line but stays where it stands in a left-to-right one ("אבגד,"
// drawn so reads "דגבא,"). Lines without right-to-left text are written as drawn.
func spell(words [][]glyph, rtl bool) string {
	if !rtl && !anyRTL(words) { // the common case, in drawing order
		n := len(words)
		for _, w := range words {
			for _, g := range w {
				n += len(g.text)
			}
		}
		var b strings.Builder
		b.Grow(n)
		for i, w := range words {
			if i > 0 {
				b.WriteByte(' ')
			}
			for _, g := range w {
				b.WriteString(g.text)
			}
		}
		return b.String()
	}
	var items []string // glyph texts, " " between words
	for i, w := range words {
		if i > 0 {
			items = append(items, " ")
		}
		items = appendClusters(items, dropKashidas(w))
	}
	shapeBrackets(items, rtl) // brackets.go
	var b strings.Builder
	for _, t := range reorderLevels(items, bidiLevels(items, rtl)) {
		b.WriteString(t)
	}
	return b.String()
}

// bidiMirror maps the paired signs a right-to-left run draws mirrored (Unicode's
// Bidi_Mirrored brackets and quotes) to their mirror: a line drawn right to left shows "("
// with the glyph of ")", and producers name the glyph by its shape (XeTeX, dvipdfmx and
// pdfTeX alike: "حاسوب (خاصة الخواديم) عليه" read ")خاصة الخواديم(" taken glyph by glyph).
var bidiMirror = map[string]string{
	"(": ")", ")": "(", "[": "]", "]": "[", "{": "}", "}": "{", "<": ">", ">": "<",
	"«": "»", "»": "«", "‹": "›", "›": "‹",
}

// anyRTL says whether a right-to-left letter or mark may be among the words' glyphs: a
// character of U+0590–U+08FF (Hebrew to Arabic Extended-A) or of the presentation forms,
// found by its UTF-8 lead bytes.
func anyRTL(words [][]glyph) bool {
	for _, w := range words {
		for _, g := range w {
			t := g.text
			for i := 0; i < len(t); i++ {
				switch c := t[i]; {
				case c >= 0xD6 && c <= 0xDF:
					return true
				case c == 0xE0 && i+1 < len(t) && t[i+1] >= 0xA0 && t[i+1] <= 0xA3:
					return true
				case c == 0xEF && i+1 < len(t) && t[i+1] >= 0xAC && t[i+1] <= 0xBB:
					return true
				}
			}
		}
	}
	return false
}

// appendClusters appends the texts of a word's glyphs, each right-to-left mark (an Arabic
// or Hebrew vowel sign, a shadda) joined to the letter it is drawn on, after it: the glyph
// before it when the mark stands within that glyph's advance, else the one after it. Turned
// with its letter, it stays after it ("◌ِّ", "بِ"), where it would come before it as a glyph
// of its own.
func appendClusters(items []string, w []glyph) []string {
	start := len(items)
	var pending []string
	var base *glyph
	for i := range w {
		g := &w[i]
		if !rtlMark(g.text) {
			if base != nil && len(items) > start {
				items[len(items)-1] = composed(items[len(items)-1])
			}
			items = append(items, g.text+strings.Join(pending, ""))
			pending, base = pending[:0], g
			continue
		}
		if base != nil && g.onBase {
			items[len(items)-1] += g.text // placed after its letter (placeMarks)
			continue
		}
		if base != nil && g.x >= base.x-0.05*g.size && g.x <= base.x+base.w+0.05*g.size {
			items[len(items)-1] += g.text
			continue
		}
		pending = append(pending, g.text)
	}
	if len(pending) > 0 {
		if len(items) > start {
			items[len(items)-1] += strings.Join(pending, "")
		} else {
			items = append(items, strings.Join(pending, ""))
		}
	}
	if len(items) > start {
		items[len(items)-1] = composed(items[len(items)-1])
	}
	return items
}

// composed is a letter and its marks in Unicode's composed form (NFC): alef and a hamza
// above read "أ", shadda and fatha in their canonical order.
func composed(s string) string {
	if len(s) <= 2 || norm.NFC.IsNormalString(s) {
		return s
	}
	return norm.NFC.String(s)
}

// dropKashidas leaves out of a word the kashidas drawn inside it: tatweels (ـ) and the
// kashida glyph some Persian fonts give U+061D (texnegar's justified "ک؝؝؝؝ه" for "که")
// between two Arabic letters only stretch the word. A tatweel at a word's start or end
// ("(Package) ـی", a suffix set apart) stays. w is not changed; a word with none is returned
// as it is.
func dropKashidas(w []glyph) []glyph {
	var out []glyph
	for i := range w {
		if !kashida(w[i].text) || i+1 < len(w) && w[i+1].onBase {
			if out != nil { // a letter, or a tatweel carrying a mark ("ولـٰكنه")
				out = append(out, w[i])
			}
			continue
		}
		before, after := -1, -1
		for j := i - 1; j >= 0; j-- {
			if !kashida(w[j].text) && !rtlMark(w[j].text) {
				before = j
				break
			}
		}
		for j := i + 1; j < len(w); j++ {
			if !kashida(w[j].text) && !rtlMark(w[j].text) {
				after = j
				break
			}
		}
		if before < 0 || after < 0 || !rtlLetter(w[before].text) || !rtlLetter(w[after].text) {
			if out != nil {
				out = append(out, w[i])
			}
			continue
		}
		if out == nil {
			out = append(make([]glyph, 0, len(w)), w[:i]...)
		}
	}
	if out == nil {
		return w
	}
	return out
}

// kashida is true of a text of tatweels and U+061D only.
func kashida(s string) bool {
	for _, r := range s {
		if r != 0x0640 && r != 0x061D {
			return false
		}
	}
	return s != ""
}

// rtlMark is true of a text of marks only, of right-to-left scripts.
func rtlMark(s string) bool {
	for _, r := range s {
		// the blocks of Hebrew to Arabic Extended-A: their marks are of the Inherited script
		if r < 0x0590 || r > 0x08FF || !unicode.Is(unicode.M, r) {
			return false
		}
	}
	return s != ""
}

// Bidirectional classes of a glyph's text, as spell resolves them.
const (
	bidiNeutral = iota
	bidiL       // a left-to-right letter
	bidiR       // a right-to-left letter
	bidiNum     // digits
)

func bidiClass(s string) int {
	switch direction(s) {
	case 1:
		return bidiR
	case -1:
		return bidiL
	}
	for _, r := range s {
		if unicode.IsDigit(r) {
			return bidiNum
		}
	}
	return bidiNeutral
}

// bidiLevels gives the items of a line, in drawing order, their embedding levels: 0 left to
// right in a left-to-right line, 1 right to left, 2 left to right inside right to left.
// Numbers, with the signs the algorithm joins to them (joinNumbers), run forwards inside a
// right-to-left context (level 2); marks take their
// letter's class; bracket pairs take one class (resolveBrackets, rule N0); other neutrals
// take the class of the strong items around them when both agree (numbers counting as
// right to left, as the algorithm's rule N1 has them), else
// spaces the line's and signs left to right's, as pdftotext reads them (the algorithm would take the line's: in an Arabic line
// "\question[note]" would read "]question[note\", its brackets drawn mirrored).
func bidiLevels(items []string, rtl bool) []int {
	class := make([]int, len(items))
	for i, t := range items {
		class[i] = bidiClass(t)
		if class[i] == bidiNeutral && i > 0 && t != " " && !neutral(t) {
			class[i] = class[i-1] // a mark drawn on its letter
		}
	}
	joinNumbers(items, class) // rules W4 and W5
	line := bidiL
	if rtl {
		line = bidiR
	}
	// strong returns the class of the nearest letter from i in direction step.
	strong := func(i, step int) int {
		for j := i + step; j >= 0 && j < len(class); j += step {
			if c := class[j]; c == bidiL || c == bidiR {
				return c
			}
		}
		return line
	}
	// A number is right to left's (rule N1) unless left-to-right letters come before it
	// ("UTF-8", rule W7; drawn left to right, they stand on its left); in a left-to-right
	// line, only when right-to-left letters stand on both sides.
	num := make([]bool, len(items))
	for i, c := range class {
		if c == bidiNum {
			num[i] = strong(i, -1) == bidiR && (rtl || strong(i, 1) == bidiR)
		}
	}
	resolveBrackets(items, class, num, rtl) // rule N0, after the numbers' rules (W)
	// side returns the resolved class of the nearest non-neutral item from i.
	side := func(i, step int) int {
		for j := i + step; j >= 0 && j < len(class); j += step {
			switch c := class[j]; {
			case c == bidiNum && num[j]:
				return bidiR
			case c == bidiNum:
				return bidiL
			case c != bidiNeutral:
				return c
			}
		}
		return line
	}
	levels := make([]int, len(items))
	for i, c := range class {
		switch c {
		case bidiNum:
			if num[i] || rtl {
				levels[i] = 2
			}
			continue
		case bidiNeutral:
			if l, r := side(i, -1), side(i, 1); l == r {
				c = l
			} else if items[i] == " " {
				c = line
			} else {
				c = bidiL // as pdftotext has them: "\question[note]" in an Arabic line
			}
		}
		switch {
		case c == bidiR:
			levels[i] = 1
		case rtl: // left to right inside a right-to-left line
			levels[i] = 2
		}
	}
	return levels
}

// neutral is true of text without letters or digits (punctuation, signs).
func neutral(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) {
			return false
		}
	}
	return true
}

// resolveHyphens joins the lines layout marked as ending in a hyphen: the hyphen goes
// when the joined word is used elsewhere in the document or the hyphenated one is not
// (typesetting's hyphenation), and stays in a compound the document writes with it. A
// break before a capital (capitalMark) loses its hyphen only in a word used elsewhere, and
// else joins a compound, hyphen and all ("CNF-" "SAT", "Cornell-" "Bell", "Ac-" "SDKP":
// typesetting's breaks rarely stand before a capital; pdftotext drops the hyphen, "CNFSAT").
func resolveHyphens(pages []Page) {
	// The words to look for: each marked break's joined and hyphenated spellings.
	counts := map[string]int{}
	for _, p := range pages {
		eachBreak(p.Text, func(left, right, stem string) {
			counts[wordKey(stem+right)], counts[wordKey(left+right)] = 0, 0
			for _, k := range prefixKeys(stem, right) {
				counts[k] = 0
			}
		})
	}
	if len(counts) == 0 {
		return
	}
	for _, p := range pages {
		for w := range strings.FieldsSeq(p.Text) {
			if k := wordKey(w); !strings.Contains(w, hyphenMark) && !strings.Contains(w, capitalMark) {
				if _, ok := counts[k]; ok {
					counts[k]++
				}
			}
		}
	}
	for i := range pages {
		t := pages[i].Text
		if !strings.Contains(t, hyphenMark) && !strings.Contains(t, capitalMark) {
			continue
		}
		var b strings.Builder
		for {
			k, capital := nextBreak(t)
			if k < 0 {
				b.WriteString(t)
				break
			}
			before, after := t[:k], t[k+len(hyphenMark)+1:]
			left, right, stem := breakWords(before, after)
			if counts[wordKey(stem+right)] > 0 || capital && wholePrefix(counts, stem, right) || !capital && counts[wordKey(left+right)] == 0 {
				b.WriteString(before[:len(before)-len(left)+len(stem)])
			} else {
				b.WriteString(before)
			}
			t = after
		}
		pages[i].Text = b.String()
	}
}

// nextBreak is where text's first marked break is (-1: none) and whether it is one
// before a capital.
func nextBreak(text string) (int, bool) {
	k, c := strings.Index(text, hyphenMark+"\n"), strings.Index(text, capitalMark+"\n")
	if c >= 0 && (k < 0 || c < k) {
		return c, true
	}
	return k, false
}

// eachBreak calls f with the words around each marked break of text.
func eachBreak(text string, f func(left, right, stem string)) {
	for {
		k, _ := nextBreak(text)
		if k < 0 {
			return
		}
		f(breakWords(text[:k], text[k+len(hyphenMark)+1:]))
		text = text[k+len(hyphenMark)+1:]
	}
}

// breakWords are the word before a marked break (with its hyphen), the word after it, and
// the first without the hyphen.
func breakWords(before, after string) (left, right, stem string) {
	left = before[strings.LastIndexAny(before, " \n")+1:]
	right, _, _ = strings.Cut(after, " ")
	right, _, _ = strings.Cut(right, "\n")
	stem = left[:max(strings.LastIndexAny(left, "-\u2010\u00AD"), 0)]
	return left, right, stem
}

// wordKey is a word as counted: lower case, without the punctuation around it.
func wordKey(w string) string {
	return strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}
