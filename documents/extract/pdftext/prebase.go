package pdftext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Vowel signs that Indic scripts draw left of the consonant (cluster) they follow in the
// text (Unicode's Indic positional category Left), with their script's virama (or coeng).
// A reader that takes glyphs by position meets them first: "िक" for "कि", "वैकिल्पक" for
// "वैकल्पिक".
var preBaseSigns = map[rune]rune{
	0x093F: 0x094D, 0x094E: 0x094D, // Devanagari i, prishthamatra e
	0x09BF: 0x09CD, 0x09C7: 0x09CD, 0x09C8: 0x09CD, // Bengali i, e, ai
	0x0A3F: 0x0A4D,                                 // Gurmukhi i
	0x0ABF: 0x0ACD,                                 // Gujarati i
	0x0B47: 0x0B4D,                                 // Oriya e
	0x0BC6: 0x0BCD, 0x0BC7: 0x0BCD, 0x0BC8: 0x0BCD, // Tamil e, ee, ai
	0x0D46: 0x0D4D, 0x0D47: 0x0D4D, 0x0D48: 0x0D4D, // Malayalam e, ee, ai
	0x0DD9: 0x0DCA, 0x0DDB: 0x0DCA, // Sinhala e, ai
	0x1031: 0x1039,                                 // Myanmar e
	0x17C1: 0x17D2, 0x17C2: 0x17D2, 0x17C3: 0x17D2, // Khmer e, ae, ai
	// Lepcha i, o, oo: Lepcha has no virama; U+1C38, unassigned in its block, stands for
	// one, so that a sign moves over its one consonant and the marks under it.
	0x1C27: lepchaNoVirama, 0x1C28: lepchaNoVirama, 0x1C29: lepchaNoVirama,
}

const lepchaNoVirama = 0x1C38

// preBaseSign is the virama of a pre-base vowel sign's script, or 0 when s is not one.
func preBaseSign(s string) rune {
	if len(s) != 3 || s[0] != 0xE0 && s[0] != 0xE1 { // U+0800–U+1FFF
		if len(s) > 3 && s[0] == 0xE1 {
			return lepchaLeftSign(s) // a glyph of two Lepcha signs, "ᰩᰮ"
		}
		return 0
	}
	r, n := utf8.DecodeRuneInString(s)
	if n != len(s) {
		return 0
	}
	return preBaseSigns[r]
}

// sameBlockLetter says whether s starts with a letter of the 128-code block of virama.
func sameBlockLetter(s string, virama rune) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r>>7 == virama>>7 && unicode.IsLetter(r)
}

// leftSigns counts the words of a line or page that a pre-base vowel sign starts and ends.
// Where shapers put them, left of their consonant, such a sign never ends a word; drawn in
// text order by a program that did not shape the script, it never starts one.
type leftSigns struct{ starts, ends int }

func (c *leftSigns) add(o leftSigns) { c.starts, c.ends = c.starts+o.starts, c.ends+o.ends }

// countLeftSigns counts a line's words that pre-base vowel signs start and end.
func countLeftSigns(words [][]glyph) leftSigns {
	var c leftSigns
	for _, w := range words {
		if len(w) < 2 {
			continue
		}
		if preBaseSign(w[0].text) != 0 {
			c.starts++
		}
		if preBaseSign(w[len(w)-1].text) != 0 {
			c.ends++
		}
	}
	return c
}

// shaped says whether a line's pre-base vowel signs are drawn where shapers put them: one
// that ends more words than it starts was drawn in text order. A line where none starts
// or ends a word (the signs inside words: a form's labels, "নামের") goes by its page's
// count; a page's producer shapes all its lines or none.
func (c leftSigns) shaped(page leftSigns) bool {
	if c.starts == 0 && c.ends == 0 {
		c = page
	}
	return c.ends <= c.starts
}

// placePreBaseSigns moves each pre-base vowel sign of a word, drawn before its consonant,
// after that consonant and the consonants joined to it by a virama (half forms and
// conjuncts, whatever glyphs draw them) and the marks under it (nukta, a ra stroke).
// Words of legacy fonts, which reorderVisual has put in order, are left alone.
func placePreBaseSigns(w []glyph) {
	for _, g := range w {
		if g.order != notLegacy {
			return
		}
	}
	for i := 0; i+1 < len(w); i++ {
		virama := preBaseSign(w[i].text)
		if virama == 0 {
			continue
		}
		// Marks drawn before the sign, sorted between it and its consonant (Lepcha's ran
		// over the right edge of the consonant before), belong to that earlier consonant.
		k := i + 1
		for k < len(w) && w[k].seq < w[i].seq && allMarks(w[k].text) {
			k++
		}
		if k > i+1 && k < len(w) && sameBlockLetter(w[k].text, virama) {
			moveLater(w, i, k-1)
			i = k - 1
		}
		if !sameBlockLetter(w[i+1].text, virama) {
			continue
		}
		v := string(virama)
		j := i + 1
		for j < len(w) {
			t := w[j].text
			joined := strings.HasSuffix(t, v) // a half form or a consonant and its virama
			j++
			for j < len(w) && (strings.HasPrefix(w[j].text, v) || belowBase(w[j].text)) {
				joined = strings.HasSuffix(w[j].text, v) // a virama, a nukta, a ra stroke
				j++
			}
			if !joined || j >= len(w) || !sameBlockLetter(w[j].text, virama) {
				break
			}
		}
		if j < len(w) && secondVowel(w[i].text, w[j].text) {
			continue // drawn in text order, after its consonant: "हिन्दी", not "हन्दिी"
		}
		moveLater(w, i, j-1)
		i = j - 1
	}
}

// secondVowel says whether next, the glyph after the cluster a pre-base sign would move
// over, starts with a vowel sign of its own (Devanagari to Malayalam) that does not join
// the sign into one vowel (Bengali ে and া: ো). A cluster takes one vowel, so the sign
// was drawn in text order after its consonant, by a program that did not shape the
// script (fpdf2 with its shaping off: "ह" "ि" "न" "्" "द" "ी"), and it stays.
func secondVowel(sign, next string) bool {
	if preBaseSign(next) != 0 {
		return false // the next cluster's pre-base sign, drawn before it: Malayalam "െളെയ"
	}
	r, _ := utf8.DecodeRuneInString(next)
	if r < 0x0900 || r > 0x0D7F || r&0x7F < 0x3E || r&0x7F > 0x4C || !unicode.Is(unicode.M, r) {
		return false
	}
	return utf8.RuneCountInString(norm.NFC.String(sign+string(r))) != 1
}

// moveLater moves w[i] to w[j] (j > i), the glyphs between one place back: a sign drawn
// before the letters it follows in the text put after them.
func moveLater(w []glyph, i, j int) {
	g := w[i]
	copy(w[i:j], w[i+1:j+1])
	w[j] = g
}

// belowBase is true of the marks a consonant takes before its vowel sign: a nukta, and
// Myanmar's and Lepcha's medial consonant signs.
func belowBase(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	if n != len(s) {
		return false
	}
	switch r {
	case 0x093C, 0x09BC, 0x0A3C, 0x0ABC, 0x0B3C:
		return true
	case 0x1C24, 0x1C25, 0x1C37: // Lepcha's subjoined ya and ra, its nukta
		return true
	}
	return r >= 0x103B && r <= 0x103E
}
