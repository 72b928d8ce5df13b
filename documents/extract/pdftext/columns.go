package pdftext

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// Code set in fixed columns wider than its font's glyphs. LaTeX's listings package puts
// each character of a listing in a column of its own (columns=fixed, its default), a
// column basewidth wide; where the font's glyphs are narrower than the column (beamer's
// sans-serif monospace at 0.5 em in columns of 0.6 em), every glyph stands about 0.1 em
// from the next: the very width of a word gap, so that "file1.v" and "->" split at one
// gap or another ("file1 . v", "- >", "hierarchy - check"). The spaces of such a line
// are whole columns, wider by a glyph's width than the gaps inside its words.

// minColumnGlyphs is how many equally wide glyphs, one after another, make a line's
// fixed columns plain.
const minColumnGlyphs = 8

// columnSpread is the gap a word break must exceed on a line set in fixed columns wider
// than its glyphs: the line's usual gap between glyphs plus half a glyph's width. 0 where
// the line is not so set: glyphs other than single characters (columnChar) of one width (at
// most 0.75 em) and size, fewer than minColumnGlyphs gaps between them, their usual gap under 0.05
// em (columns as wide as the glyphs, where the word gap stands) or over half a glyph (no
// longer letters of one word), glyphs that overlap (widths that are not those drawn by: a
// figure's font with one default width), or gaps that vary (a justified or letter-spaced
// line).
func columnSpread(gs []glyph) float32 {
	var gaps []float32
	var w, size float32
	for i := range gs {
		g := gs[i]
		if g.space {
			continue
		}
		// every glyph one character of one width and size: a listing's monospaced font (not
		// ideographs, wider than 0.75 em, whose lines are spread to justify them, nor a
		// proportional font); a typographic quote of that font is one of them
		if !columnChar(g.text) || g.loose || g.rot != 0 || g.w <= 0 {
			return 0
		}
		if w == 0 {
			w, size = g.w, g.size
		} else if g.w != w || g.size != size {
			return 0
		}
		if i == 0 || gs[i-1].space || gs[i-1].y != g.y {
			continue
		}
		switch gap := g.x - (gs[i-1].x + w); {
		case gap < -0.01*size:
			return 0 // glyphs overlap: their widths are not the ones drawn by
		case gap < w:
			gaps = append(gaps, gap)
		}
	}
	if w > 0.75*size {
		return 0
	}
	if len(gaps) < minColumnGlyphs {
		return 0
	}
	slices.Sort(gaps)
	usual := gaps[len(gaps)/2]
	if usual < 0.05*size || usual > 0.5*w {
		return 0
	}
	// the columns are one width: all but a few gaps lie within a fifth of a glyph of the usual
	var off int
	for _, g := range gaps {
		if g < usual-0.2*w || g > usual+0.2*w {
			off++
		}
	}
	if off*10 > len(gaps) {
		return 0
	}
	return usual + 0.5*w
}

// columnChar says whether a glyph's text is one printable character that is no space and
// no mark: what a monospaced font sets in a column of its own. dblatex's listings set
// typographic quotes in the same columns as their ASCII ("harhir ”Harry Hirsch”",
// "’s/bullseye/bookworm/g’"), and a line with one read "ldap -createuser -krb5" before.
func columnChar(text string) bool {
	r, n := utf8.DecodeRuneInString(text)
	if n != len(text) || r == utf8.RuneError || r <= ' ' {
		return false
	}
	return unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.M, r)
}
