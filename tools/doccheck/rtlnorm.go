package main

import (
	"strings"
	"unicode"
)

// rtlNorm (--rtl-norm) scores right-to-left text by its letters and words, leaving out what
// readers of a PDF write by convention rather than from the page, the same on both sides:
// in each token with an Arabic or Hebrew letter the marks of those scripts (harakat,
// shadda, Hebrew points: Arabic search ignores them too) and the tatweel (ـ, the stroke that
// stretches a justified word) are dropped, and the token is parted where punctuation meets
// a letter and where Latin letters meet right-to-left ones. pdftotext writes a
// right-to-left word's final period before the next word (".يشمل" for "… الحصر. يشمل"),
// marks as words of their own or on the letter before theirs, and a Latin term run into
// the Arabic word after it ("\ptextنووسراوە"); normalised, those count as the words the
// page has, and so do EdgeChat's own misplaced marks. Raw scores stay the default.
var rtlNorm bool

// rtlTokens is token as rtlNorm counts it: itself when it has no right-to-left letter.
func rtlTokens(token string) []string {
	if !strings.ContainsFunc(token, func(r rune) bool { return isRTLLetter(r) || isRTLMark(r) }) {
		return []string{token}
	}
	var out []string
	var b strings.Builder
	prev := 0 // the kind of the last rune kept: 0 none, 1 punctuation, 2 Latin letter, 3 other
	for _, r := range token {
		if isRTLMark(r) {
			continue
		}
		kind := 3
		switch {
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
			kind = 1
		case unicode.Is(unicode.Latin, r):
			kind = 2
		}
		if b.Len() > 0 && prev != kind && (prev == 1 || kind == 1 || prev == 2 && kind == 3 && isRTLLetter(r) || prev == 3 && kind == 2) {
			out = append(out, b.String())
			b.Reset()
		}
		b.WriteRune(r)
		prev = kind
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// isRTLMark is true of the tatweel and the marks of the Hebrew to Arabic Extended-A blocks.
func isRTLMark(r rune) bool {
	return r == 0x0640 || r >= 0x0590 && r <= 0x08FF && unicode.Is(unicode.Mn, r)
}

// isRTLLetter is true of letters of the Hebrew to Arabic Extended-A blocks and the
// presentation forms.
func isRTLLetter(r rune) bool {
	return (r >= 0x0590 && r <= 0x08FF || r >= 0xFB1D && r <= 0xFDFF || r >= 0xFE70 && r <= 0xFEFF) && unicode.IsLetter(r)
}
