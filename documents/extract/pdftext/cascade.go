package pdftext

import (
	"slices"
	"unicode/utf8"
)

// Nastaliq draws a word's letters on a slope: the word starts high on the right and comes
// down to the baseline at its end, so pieces of a word stand up to 0.6 em above its line, as
// lines of their own ("سمب" over "ا لی" for "اسمبلی"). Such a piece is Arabic letters only,
// lies over its line's extent, and its glyphs fill gaps of that line: few stand over one of
// the line's glyphs, as the glyphs of a line above would.

// cascadeRise is how far above its line's baseline a piece of a Nastaliq word may stand, in
// the size of its glyphs.
const cascadeRise = 0.7

// joinCascades moves each piece of Nastaliq words standing over a line below (above) into
// that line. rows are the page's lines from top to bottom, as mergeRows orders them.
func joinCascades(rows []*line) []*line {
	out := rows[:0]
	for i, l := range rows {
		if b := cascadeBase(rows, i); b != nil {
			for _, g := range l.g {
				b.add(g)
			}
			continue
		}
		out = append(out, l)
	}
	return out
}

// cascadeBase is the line below rows[i] that rows[i] is a raised piece of, nil if none.
func cascadeBase(rows []*line, i int) *line {
	l := rows[i]
	if !arabicOnly(l.g) {
		return nil
	}
	for _, b := range rows[i+1:] {
		if b.y < l.y-cascadeRise*l.size {
			break
		}
		if b.y >= l.y || !slices.ContainsFunc(b.g, func(g glyph) bool { return arabicOnly([]glyph{g}) }) {
			continue
		}
		if l.x0 >= b.x0-l.size && l.x1 <= b.x1+l.size && !overlaps(l, b) {
			return b
		}
	}
	return nil
}

// arabicOnly says whether gs are Arabic letters and marks, and spaces between them.
func arabicOnly(gs []glyph) bool {
	letters := false
	for _, g := range gs {
		if g.space {
			continue
		}
		letters = true
		for i := 0; i < len(g.text); {
			r, n := utf8.DecodeRuneInString(g.text[i:])
			if !(r >= 0x0620 && r <= 0x065F || r >= 0x066E && r <= 0x06D3 || r >= 0x0750 && r <= 0x077F || r >= 0xFB50 && r <= 0xFEFC) {
				return false
			}
			i += n
		}
	}
	return letters
}

// overlaps says whether half or more of l's glyphs stand over one of b's (by more than a
// third of the narrower's width): a line above, not a piece of b's words, whose last letter
// may reach over the next letter down the slope.
func overlaps(l, b *line) bool {
	if len(l.g)*len(b.g) > 1<<16 {
		return true
	}
	over := 0
	for _, a := range l.g {
		for _, c := range b.g {
			lo, hi := max(a.x, c.x), min(a.x+a.w, c.x+c.w)
			if a.w > 0 && c.w > 0 && hi-lo > 0.3*min(a.w, c.w) {
				over++
				break
			}
		}
	}
	return 2*over >= len(l.g)
}

// spacesBeforeTails puts each space glyph of a right-to-left line that ends inside the
// letter left of it (by x) before that letter: Nastaliq's last letter of a word reaches
// left under the space after it ("متحدہ کی": the space drawn within ہ), and read by their
// left edges the space would come before the letter ("متحد ہکی"). gs is a line, left to
// right.
func spacesBeforeTails(gs []glyph) {
	for i := 1; i < len(gs); i++ {
		s, p := gs[i], gs[i-1]
		if s.space && !p.space && p.w > 0 && s.x+s.w < p.x+p.w && s.x > p.x && arabicOnly(gs[i-1:i]) {
			gs[i-1], gs[i] = s, p
		}
	}
}
