package pdftext

import "math"

// dropRedrawn leaves out the glyphs drawn again over themselves: the same text at nearly
// the same place and size, within a tenth of the size along the line and a fifth across
// (pdftotext's bounds for duplicates). Quartz's fake bold draws each bold line four times
// a third of a point apart (Outlook's mails printed to PDF on the Mac), often after other
// text of the line, so that each copy made a line of its own. The glyph kept reaches over
// the copies dropped, so that the gaps after it stay as drawn (a Scrabble tile's letter,
// drawn twice, and its score still read "C3"). frags hold the glyphs in the order drawn.
func dropRedrawn(frags []*line) []*line {
	type at struct{ l, i int }
	type key struct {
		text   string
		cx, cy int32 // the cell of a grid a fifth of the size wide
	}
	seen := map[key][]at{}
	var gone map[at]bool
	for li, l := range frags {
		for gi, g := range l.g {
			if g.w <= 0 || g.size <= 0 || g.space {
				continue
			}
			cell := 0.2 * float64(g.size)
			cx, cy := int32(math.Floor(float64(g.x)/cell)), int32(math.Floor(float64(g.y)/cell))
			var first *glyph
			var firstLine *line
			for dx := int32(-1); dx <= 1 && first == nil; dx++ {
				for dy := int32(-1); dy <= 1 && first == nil; dy++ {
					for _, p := range seen[key{g.text, cx + dx, cy + dy}] {
						o := &frags[p.l].g[p.i]
						if abs(o.x-g.x) < 0.1*g.size && abs(o.y-g.y) < 0.2*g.size && abs(o.size-g.size) < 0.1*g.size {
							first, firstLine = o, frags[p.l]
							break
						}
					}
				}
			}
			if first == nil {
				k := key{g.text, cx, cy}
				seen[k] = append(seen[k], at{li, gi})
				continue
			}
			if end := g.x + g.w; end > first.x+first.w {
				first.w = end - first.x
				firstLine.x1 = max(firstLine.x1, end)
			}
			if gone == nil {
				gone = map[at]bool{}
			}
			gone[at{li, gi}] = true
		}
	}
	if gone == nil {
		return frags
	}
	out := frags[:0]
	for li, l := range frags {
		kept := &line{rtl: l.rtl}
		for gi, g := range l.g {
			if !gone[at{li, gi}] {
				kept.add(g)
			}
		}
		if len(kept.g) > 0 {
			out = append(out, kept)
		}
	}
	return out
}
