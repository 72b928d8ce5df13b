package pdftext

import (
	"unicode"
	"unicode/utf8"
)

// A vertical ellipsis (\vdots) in a dvips bitmap font is three dots drawn one under the
// other at one x, 3.7 points apart in a 9-point font: within a line's baseline tolerance,
// so each dot after the first joined the line of the one before, and sorted by x the
// line read ".." over "." (device-tree-compiler's dtc-paper.pdf). A glyph drawn straight
// under or over the same glyph, on a baseline a row apart, starts a line of its own, as
// pdftotext reads it ("." "." "."). A glyph redrawn on nearly its own baseline (fake bold,
// a shadow) is dropped before this. Letters and figures are left out: a superscript and
// a subscript stacked on one base start at one x, and may be the same figure (D^2_{2h}).

// stackedRepeat says whether g, a sign other than a letter or figure, is the glyph drawn
// before it (last) again, at its x and size, on a baseline rowTol or more of its size away.
func stackedRepeat(last, g glyph) bool {
	size := max(g.size, 1)
	r, _ := utf8.DecodeRuneInString(g.text)
	return g.text == last.text && !g.space && !unicode.IsLetter(r) && !unicode.IsDigit(r) &&
		abs(g.x-last.x) < 0.05*size && abs(g.size-last.size) < 0.05*size && abs(g.y-last.y) >= rowTol*size
}
