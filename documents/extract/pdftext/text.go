package pdftext

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// cleanText is a glyph's text as it should read: presentation forms (the ﬁ ligatures,
// Arabic and Hebrew contextual forms) spelled with ordinary letters (NFKC), and what cannot
// be read dropped (control characters, U+FFFD).
func cleanText(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || (r >= 0x7F && r < 0xA0) || r == 0xFFFD || isPresentation(r) {
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
		case r < 0x20 || (r >= 0x7F && r < 0xA0) || r == 0xFFFD:
		case isPresentation(r):
			b.WriteString(norm.NFKC.String(string(r)))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPresentation is true of Unicode's presentation forms: Latin, Armenian and Hebrew
// ligatures and forms (U+FB00–FB4F) and Arabic forms A and B.
func isPresentation(r rune) bool {
	return r >= 0xFB00 && r <= 0xFDFF || r >= 0xFE70 && r <= 0xFEFF
}

// rtlScripts read right to left.
var rtlScripts = []*unicode.RangeTable{unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana, unicode.Nko}

func isRTLRune(r rune) bool {
	// Arabic-Indic digits belong to the Arabic script but are written left to right.
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

// spell writes a line's words, given left to right as drawn, in logical order: a
// right-to-left word's glyphs backwards, a right-to-left line's words backwards but for
// runs of left-to-right words, and runs of right-to-left words in a left-to-right line
// backwards.
func spell(words [][]glyph, rtl bool) string {
	texts := make([]string, len(words))
	dirs := make([]int, len(words))
	for i, w := range words {
		var b strings.Builder
		dirs[i] = direction(glyphsText(w))
		if dirs[i] == 1 {
			// In a left-to-right line, punctuation at the word's ends stays where it stands
			// ("אבגד," drawn so reads "דגבא,"); in a right-to-left line it turns with the word.
			lo, hi := 0, len(w)
			for !rtl && lo < hi && neutral(w[lo].text) {
				lo++
			}
			for !rtl && hi > lo && neutral(w[hi-1].text) {
				hi--
			}
			for _, g := range w[:lo] {
				b.WriteString(g.text)
			}
			for j := hi - 1; j >= lo; j-- {
				b.WriteString(w[j].text)
			}
			for _, g := range w[hi:] {
				b.WriteString(g.text)
			}
		} else {
			for _, g := range w {
				b.WriteString(g.text)
			}
		}
		texts[i] = b.String()
	}
	if rtl {
		slices.Reverse(texts)
		slices.Reverse(dirs)
		reverseRuns(texts, func(i int) bool { return dirs[i] != 1 })
	} else {
		reverseRuns(texts, func(i int) bool { return dirs[i] == 1 })
	}
	return strings.Join(texts, " ")
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

// reverseRuns reverses each maximal run of texts whose index in is true.
func reverseRuns(texts []string, in func(int) bool) {
	for i := 0; i < len(texts); {
		if !in(i) {
			i++
			continue
		}
		j := i
		for j < len(texts) && in(j) {
			j++
		}
		slices.Reverse(texts[i:j])
		i = j
	}
}

func glyphsText(gs []glyph) string {
	var b strings.Builder
	for _, g := range gs {
		b.WriteString(g.text)
	}
	return b.String()
}

// resolveHyphens joins the lines layout marked as ending in a hyphen: the hyphen goes
// when the joined word is used elsewhere in the document or the hyphenated one is not
// (typesetting's hyphenation), and stays in a compound the document writes with it.
func resolveHyphens(pages []Page) {
	// The words to look for: each marked break's joined and hyphenated spellings.
	counts := map[string]int{}
	for _, p := range pages {
		eachBreak(p.Text, func(left, right, stem string) {
			counts[wordKey(stem+right)], counts[wordKey(left+right)] = 0, 0
		})
	}
	if len(counts) == 0 {
		return
	}
	for _, p := range pages {
		for w := range strings.FieldsSeq(p.Text) {
			if k := wordKey(w); !strings.Contains(w, hyphenMark) {
				if _, ok := counts[k]; ok {
					counts[k]++
				}
			}
		}
	}
	for i := range pages {
		t := pages[i].Text
		if !strings.Contains(t, hyphenMark) {
			continue
		}
		var b strings.Builder
		for {
			k := strings.Index(t, hyphenMark+"\n")
			if k < 0 {
				b.WriteString(t)
				break
			}
			before, after := t[:k], t[k+len(hyphenMark)+1:]
			left, right, stem := breakWords(before, after)
			if counts[wordKey(stem+right)] > 0 || counts[wordKey(left+right)] == 0 {
				b.WriteString(before[:len(before)-len(left)+len(stem)])
			} else {
				b.WriteString(before)
			}
			t = after
		}
		pages[i].Text = b.String()
	}
}

// eachBreak calls f with the words around each marked break of text.
func eachBreak(text string, f func(left, right, stem string)) {
	for {
		k := strings.Index(text, hyphenMark+"\n")
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
