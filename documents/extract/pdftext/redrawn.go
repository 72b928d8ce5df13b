package pdftext

import (
	"cmp"
	"math"
	"slices"
)

// dropRedrawn leaves out the glyphs drawn again over themselves: the same text at nearly
// the same place and size, within a tenth of the size along the line and a fifth across
// (pdftotext's bounds for duplicates). Quartz's fake bold draws each bold line four times
// a third of a point apart (Outlook's mails printed to PDF on the Mac), often after other
// text of the line, so that each copy made a line of its own. frags hold the glyphs in the
// order drawn. Pages where no glyph is the same drawing as an earlier one (mayRedraw says
// so cheaply of nearly all) are left as they are.
func dropRedrawn(frags []*line) []*line {
	if !mayRedraw(frags) {
		return frags
	}
	return dropCopies(frags)
}

// dropCopies is dropRedrawn's work. The glyphs are found by a grid of cells a fifth of
// their size wide and two fifths high (a copy lies in the cell of the glyph or the nearer
// neighbour each way), each cell's glyphs chained (head, next), which costs no allocation
// per glyph.
func dropCopies(frags []*line) []*line {
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
			if !redrawable(g) {
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
					if sameDrawing(o, g) {
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

// redrawable says whether dropRedrawn looks at g: a glyph with an advance, not a space.
func redrawable(g *glyph) bool { return g.w > 0 && g.size > 0 && !g.space }

// sameDrawing says whether g, drawn after o, is o drawn again: the same text at nearly the
// same place and size.
func sameDrawing(o, g *glyph) bool {
	return abs(o.x-g.x) < 0.1*g.size && abs(o.y-g.y) < 0.2*g.size && abs(o.size-g.size) < 0.1*g.size && o.text == g.text &&
		!nextByAdvance(o, g)
}

// nextByAdvance says whether g, the same glyph as o drawn a little after it, stands at
// least half o's advance on from it: o's next glyph, drawn by its advance (Word's doubled
// justification glyphs, 0.12 em wide, "وو" in docling's right_to_left_02.pdf), not o drawn
// again over itself.
func nextByAdvance(o, g *glyph) bool {
	return o.w > 0 && g.x-o.x >= 0.5*o.w
}

// Bounds a little wider than sameDrawing's (a tenth and a fifth of the size): glyphs
// farther apart than these are never the same drawing, however float32 rounds.
const (
	nearAlong  = 0.11
	nearAcross = 0.22
)

// mayRedraw says whether dropRedrawn might drop a glyph of frags: whether a redrawable glyph
// is the same drawing as an earlier one (sameDrawing). It is cheap where glyphs do not
// overlap. Within a fragment glyphs mostly go left to right, so a glyph is compared with the
// fragment's earlier ones only when one of them starts near it or past it. Across fragments,
// only the pairs whose boxes (of the glyphs' origins) come within the bounds are compared
// glyph by glyph. Past a budget of comparisons (a few per glyph) it gives up and says yes.
// Glyphs placed or sized at infinity or NaN are never the same drawing and are skipped.
func mayRedraw(frags []*line) bool {
	type box struct {
		x0, x1, y0, y1, size float32
		l                    int
	}
	boxes := make([]box, 0, len(frags))
	budget := 64
	var maxSize float32
	for li, l := range frags {
		budget += 4 * len(l.g)
		b := box{l: li}
		for gi := range l.g {
			g := &l.g[gi]
			if !redrawable(g) || !finite(g) {
				continue
			}
			if b.size == 0 {
				b.x0, b.x1, b.y0, b.y1, b.size = g.x, g.x, g.y, g.y, g.size
				continue
			}
			if g.x-b.x1 < nearAlong*g.size { // an earlier glyph of the fragment starts near g or past it
				for oi := range gi {
					if sameDrawing(&l.g[oi], g) && redrawable(&l.g[oi]) {
						return true
					}
				}
				if budget -= gi; budget < 0 {
					return true
				}
			}
			if g.x < b.x0 {
				b.x0 = g.x
			} else if g.x > b.x1 {
				b.x1 = g.x
			}
			if g.y < b.y0 {
				b.y0 = g.y
			} else if g.y > b.y1 {
				b.y1 = g.y
			}
			if g.size > b.size {
				b.size = g.size
			}
		}
		if b.size > 0 {
			boxes = append(boxes, b)
			maxSize = max(maxSize, b.size)
		}
	}
	slices.SortFunc(boxes, func(a, b box) int { return cmp.Compare(a.y0, b.y0) })
	for i, a := range boxes {
		for _, b := range boxes[i+1:] {
			if b.y0-a.y1 >= nearAcross*maxSize {
				break // b and all after it are too high above a
			}
			size := max(a.size, b.size)
			if b.y0-a.y1 >= nearAcross*size || b.x0-a.x1 >= nearAlong*size || a.x0-b.x1 >= nearAlong*size {
				continue
			}
			first, then := frags[a.l], frags[b.l]
			if b.l < a.l {
				first, then = then, first
			}
			for oi := range first.g {
				o := &first.g[oi]
				for gi := range then.g {
					if sameDrawing(o, &then.g[gi]) && redrawable(o) && redrawable(&then.g[gi]) {
						return true
					}
				}
				if budget -= len(then.g); budget < 0 {
					return true
				}
			}
		}
	}
	return false
}

// finite says whether g's place and size are finite numbers.
func finite(g *glyph) bool {
	return abs(g.x) <= math.MaxFloat32 && abs(g.y) <= math.MaxFloat32 && abs(g.size) <= math.MaxFloat32
}
