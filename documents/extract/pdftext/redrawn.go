package pdftext

import "math"

// dropRedrawn leaves out the glyphs drawn again over themselves: the same text at nearly
// the same place and size, within a tenth of the size along the line and a fifth across
// (pdftotext's bounds for duplicates). Quartz's fake bold draws each bold line four times
// a third of a point apart (Outlook's mails printed to PDF on the Mac), often after other
// text of the line, so that each copy made a line of its own. frags hold the glyphs in the
// order drawn. The glyphs are found by a grid of cells a fifth of their size wide and two
// fifths high (a copy lies in the cell of the glyph or the nearer neighbour each way), each
// cell's glyphs chained (head, next), which costs no allocation per glyph.
func dropRedrawn(frags []*line) []*line {
	n := 0
	for _, l := range frags {
		n += len(l.g)
	}
	type at struct{ l, i int32 }
	where := make([]at, 0, n)
	next := make([]int32, 0, n)
	head := make(map[uint64]int32, n)
	var gone []bool
	key := func(cx, cy int32) uint64 { return uint64(uint32(cx))<<32 | uint64(uint32(cy)) }
	base := 0 // the glyphs of the lines before l
	for li, l := range frags {
		if li > 0 {
			base += len(frags[li-1].g)
		}
		for gi := range l.g {
			g := &l.g[gi]
			if g.w <= 0 || g.size <= 0 || g.space {
				continue
			}
			fx, fy := float64(g.x)/(0.2*float64(g.size)), float64(g.y)/(0.4*float64(g.size))
			cx, cy := int32(math.Floor(fx)), int32(math.Floor(fy))
			nx, ny := cx+1, cy+1
			if fx-math.Floor(fx) < 0.5 {
				nx = cx - 1
			}
			if fy-math.Floor(fy) < 0.5 {
				ny = cy - 1
			}
			var first *glyph
			for _, c := range [4]uint64{key(cx, cy), key(nx, cy), key(cx, ny), key(nx, ny)} {
				k, ok := head[c]
				for ; ok && k >= 0 && first == nil; k = next[k] {
					p := where[k]
					o := &frags[p.l].g[p.i]
					if o.text == g.text && abs(o.x-g.x) < 0.1*g.size && abs(o.y-g.y) < 0.2*g.size && abs(o.size-g.size) < 0.1*g.size {
						first = o
					}
				}
				if first != nil {
					break
				}
			}
			if first == nil {
				c := key(cx, cy)
				prev, ok := head[c]
				if !ok {
					prev = -1
				}
				head[c] = int32(len(where))
				where, next = append(where, at{int32(li), int32(gi)}), append(next, prev)
				continue
			}
			if gone == nil {
				gone = make([]bool, n)
			}
			gone[base+gi] = true
		}
	}
	if gone == nil {
		return frags
	}
	out := frags[:0]
	k := 0
	for _, l := range frags {
		kept := &line{rtl: l.rtl}
		for _, g := range l.g {
			if !gone[k] {
				kept.add(g)
			}
			k++
		}
		if len(kept.g) > 0 {
			out = append(out, kept)
		}
	}
	return out
}
