// Package joiners drops the zero-width non-joiners (U+200C) of a text that join nothing, for
// the PDF reader and for the tool that scores it against pdftotext.
package joiners

import (
	"strings"
	"unicode"
)

// DropStray returns s without the zero-width non-joiners that are not between two letters
// (or marks) or that stand beside a CJK character. xdvipdfmx writes xeCJK's boundary glyph
// between Japanese and Latin text as one ("日本語 \u200cipaex\u200c という"); between two
// letters (Persian's "می\u200cخواهم", an Indic conjunct broken after its virama) it stays.
func DropStray(s string) string {
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
