// Package textnorm holds the normalisations the PDF reader applies to the text it reads and
// that the tool scoring it against pdftotext (tools/doccheck) applies to both sides:
// presentation forms and zero-width non-joiners that join nothing.
package textnorm

import (
	"strings"
	"unicode"
)

// DropStrayJoiners returns s without the zero-width non-joiners that are not between two letters
// (or marks) or that stand beside a CJK character. xdvipdfmx writes xeCJK's boundary glyph
// between Japanese and Latin text as one ("日本語 \u200cipaex\u200c という"); between two
// letters (Persian's "می\u200cخواهم", an Indic conjunct broken after its virama) it stays.
func DropStrayJoiners(s string) string {
	if !strings.ContainsRune(s, zwnj) {
		return s
	}
	rs := []rune(s)
	out := rs[:0:0]
	for i, r := range rs {
		if r == zwnj && (i == 0 || i == len(rs)-1 || !joins(rs[i-1]) || !joins(rs[i+1])) {
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

// joins says whether a non-joiner beside r can join (or keep apart) anything: a letter or
// mark of a script that joins, not a CJK character.
func joins(r rune) bool {
	return (unicode.IsLetter(r) || unicode.In(r, unicode.Mn, unicode.Mc)) && !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// zwnj is the zero-width non-joiner.
const zwnj = '\u200c'

// IsPresentation is true of Unicode's presentation forms, which read as their NFKC
// decompositions: Latin, Armenian and Hebrew ligatures and forms (U+FB00–FB4F), Arabic
// forms A and B, and the vertical forms of punctuation (U+FE10–FE19, FE30–FE4F: a vertical
// font's "︵5︶" reads "(5)", as its horizontal twin's does).
func IsPresentation(r rune) bool {
	return r >= 0xFB00 && r <= 0xFDFF || r >= 0xFE70 && r <= 0xFEFF || r >= 0xFE10 && r <= 0xFE19 || r >= 0xFE30 && r <= 0xFE4F
}
