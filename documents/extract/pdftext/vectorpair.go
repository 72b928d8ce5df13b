package pdftext

import (
	"unicode"
	"unicode/utf8"
)

// \vec over two letters (\vec{AB}) centres its arrow over the pair, so its middle stands
// near the end of the first letter: combined with the letter under its middle it read
// "A⃗B" (lshort-zh-cn, lshort-persian). Over one letter the arrow's middle stands near that
// letter's middle (TeX adds the letter's skew; cmmi's arrow box stands a little left of its
// ink). An arrow whose middle is nearer the middle of two touching letters of one size than
// the middle of either letter is over the pair, and goes after the pair's last letter:
// "AB⃗", the group written whole and then its arrow.

// pairAccentTol is how far, in ems, the arrow's middle may stand from the pair's middle.
const pairAccentTol = 0.15

// vectorArrow is \vec's arrow as combineAccents reads it (combining).
const vectorArrow = "\u20D7"

// arrowOverPair says whether g, \vec's arrow, stands over the letters a and b, drawn one
// after the other on the line: touching, of one size, the arrow's middle nearer their
// middle than either letter's.
func arrowOverPair(a, b, g glyph) bool {
	if g.text != vectorArrow || !pairLetter(a) || !pairLetter(b) {
		return false
	}
	size := max(a.size, 1)
	if abs(a.size-b.size) > 0.05*size || abs(g.size-size) > 0.3*size || abs(b.x-(a.x+a.w)) > 0.1*size || abs(a.y-b.y) > 0.05*size {
		return false
	}
	mid := g.x + g.w/2
	pair := abs(mid - (a.x+b.x+b.w)/2)
	return pair < pairAccentTol*size && pair < abs(mid-(a.x+a.w/2)) && pair < abs(mid-(b.x+b.w/2))
}

// pairLetter says whether g is one letter of advance, without a mark on it yet.
func pairLetter(g glyph) bool {
	r, n := utf8.DecodeRuneInString(g.text)
	return !g.space && g.w > 0 && n == len(g.text) && unicode.IsLetter(r)
}
