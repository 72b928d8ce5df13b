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
// when that is the page's (pageRTL, the direction of most lines, as pdftotext reads every
// line): in a Persian or Arabic manual, lines EdgeChat cuts into blocks of their own stand
// at the left margin too, and stay as their letters read them. Every other line keeps the
// direction of most of its letters: a justified paragraph's first line is indented at its
// start and its last line free at its end, so within a paragraph an edge cannot tell the
// direction. (The majority of the block's or the page's letters, pdftotext's rule, turned
// code lines of Arabic manuals and Persian titles the wrong way.) The words of every line
// are carved by its own letters (lineWords).

// sharedEdgeTol is how near, in ems of the line's size, another line's edge is the same
// edge; marginLines is how many other lines make an edge a margin.
const (
	sharedEdgeTol = 0.1
	marginLines   = 2
)

// mixedDirections sets the direction of each line of blocks that is a block of its own,
// mixes the two directions and starts or ends at a margin (sharedEdges) of the page's
// direction (rtl) to that direction.
func mixedDirections(blocks [][]*line, lines []*line, rtl bool) {
	for _, b := range blocks {
		if len(b) != 1 || b[0].rtl == rtl || !mixedLetters(b[0].g) {
			continue
		}
		left, right := sharedEdges(b[0], lines)
		if rtl && right >= marginLines && left == 0 || !rtl && left >= marginLines && right == 0 {
			b[0].rtl = rtl
		}
	}
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

// mixedLetters says whether gs hold both right-to-left letters and other letters.
func mixedLetters(gs []glyph) bool {
	rtl, ltr := false, false
	for _, g := range gs {
		for _, r := range g.text {
			switch {
			case isRTLRune(r):
				rtl = true
			case unicode.IsLetter(r):
				ltr = true
			}
		}
		if rtl && ltr {
			return true
		}
	}
	return false
}
