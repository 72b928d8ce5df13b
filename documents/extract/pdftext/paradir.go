package pdftext

import "unicode"

// A line that mixes right-to-left letters with Latin ones reads in its paragraph's
// direction, as the bidirectional algorithm reads a line (rule P2: the paragraph's level,
// not the line's letters, orders its runs). "Arabic: مرحبا بالعالم" in a left-to-right page
// (hyperspot's LibreOffice file) has more Arabic letters than Latin: read by its own letters
// it came out "مرحبا بالعالم Arabic:", where the page and pdftotext have the label first.
// A paragraph of one line shows its direction by the margin it starts from: a line that is
// a block of its own, starting where two or more other lines of the page start and ending
// where none ends, is a left-to-right paragraph; one ending where others end and starting
// where none starts, a right-to-left one. Such a line takes the direction of its margin
// when that is the page's (the direction of most of the page's letters, as pdftotext reads
// every line) and the line's first letter from that margin is of that direction (rule P2:
// the paragraph's first strong character): "Arabic:" starts the line at the left margin.
// In a Persian or Arabic manual, lines EdgeChat cuts into blocks of their own stand at the
// left margin too, and stay as their letters read them. Every other line keeps the
// direction of most of its letters: a justified paragraph's first line is indented at its
// start and its last line free at its end, so within a paragraph an edge cannot tell the
// direction. (The majority of the block's or the page's letters alone, pdftotext's rule,
// turned code lines of Arabic manuals and Persian titles the wrong way; so did the
// majority of the page's lines, which its code examples can make left to right.) The words
// of every line are carved by its own letters (lineWords).

// sharedEdgeTol is how near, in ems of the line's size, another line's edge is the same
// edge; marginLines is how many other lines make an edge a margin.
const (
	sharedEdgeTol = 0.1
	marginLines   = 2
)

// mixedDirections sets the direction of each line of blocks that is a block of its own,
// mixes the two directions, starts or ends at a margin (sharedEdges) of the page's
// direction and starts from it with a letter of that direction, to that direction.
func mixedDirections(blocks [][]*line, lines []*line) {
	var page dirCount
	for _, l := range lines {
		page.add(l.g)
	}
	rtl := page.rtl > page.ltr
	for _, b := range blocks {
		if len(b) != 1 || b[0].rtl == rtl {
			continue
		}
		l := b[0]
		var c dirCount
		c.add(l.g)
		if c.rtl == 0 || c.ltr == 0 || firstLetterRTL(l.g, rtl) != rtl {
			continue
		}
		left, right := sharedEdges(l, lines)
		if rtl && right >= marginLines && left == 0 || !rtl && left >= marginLines && right == 0 {
			l.rtl = rtl
		}
	}
}

// firstLetterRTL says whether the first letter of gs (left to right as drawn) from their
// right end (fromRight) or their left is of a right-to-left script.
func firstLetterRTL(gs []glyph, fromRight bool) bool {
	for i := range gs {
		g := gs[i]
		if fromRight {
			g = gs[len(gs)-1-i]
		}
		for _, r := range g.text {
			if isRTLRune(r) {
				return true
			}
			if unicode.IsLetter(r) {
				return false
			}
		}
	}
	return false
}

// sharedEdges counts the other lines that start where l starts (left) and that end where
// l ends (right).
func sharedEdges(l *line, lines []*line) (left, right int) {
	tol := sharedEdgeTol * max(l.size, 1)
	for _, o := range lines {
		if o == l || !inked(o) {
			continue
		}
		if abs(inkStart(o)-inkStart(l)) <= tol {
			left++
		}
		if abs(inkEnd(o)-inkEnd(l)) <= tol {
			right++
		}
	}
	return left, right
}

// dirCount counts right-to-left letters and other letters.
type dirCount struct{ rtl, ltr int }

func (c *dirCount) add(gs []glyph) {
	for _, g := range gs {
		for _, r := range g.text {
			switch {
			case isRTLRune(r):
				c.rtl++
			case unicode.IsLetter(r):
				c.ltr++
			}
		}
	}
}
