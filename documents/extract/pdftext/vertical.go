package pdftext

import (
	"strings"

	"github.com/ledongthuc/pdf"
)

// Vertical writing mode (ISO 32000 §9.7.4.3): a Type0 font whose CMap has WMode 1 (Identity-V,
// a predefined "-V" CMap) draws each glyph hanging from the current point, its horizontal
// origin the point less the glyph's position vector v (vx, vy), and advances the point down
// by the glyph's vertical displacement w1 (the CIDFont's W2 and DW2, by default
// [880 -1000]: v = (w0/2, 0.88 em), w1 = -1 em). A line of such glyphs is a column, and
// CJK columns read right to left.
//
// A glyph is first placed in its upright form (a box w0 wide on the baseline vy below the
// current point), then settleVertical decides by where its neighbours stand: glyphs that
// step down the page, one below the other, are a column and turn a quarter (rot+3: a column
// runs like text turned clockwise, whose next line stands left of it); glyphs set side by
// side on one baseline stay a line. Acrobat Distiller draws Word's text in Arial Unicode with
// Identity-V glyph by glyph, each placed along a horizontal line by TD (PDFBox's
// PDFBOX-3127-…-VFont.pdf): it reads as the line it is drawn as.

// vertical holds a vertical-mode font's metrics in em: dw2 the default position's vy and
// displacement w1, w2 each CID's own (w1, vx, vy).
type vertical struct {
	vy, w1 float64
	w2     map[uint32][3]float64
}

// vmetric is one glyph's vertical metrics in em: the displacement w1 (negative: down), the
// position vector (vx, vy).
type vmetric struct{ w1, vx, vy float64 }

// maxW2 bounds a W2 array's entries.
const maxW2 = 1 << 17

// writingMode reads a Type0 font's writing mode from its Encoding (a predefined CMap named
// …-V or V, or an embedded CMap with WMode 1 in its dictionary or, without the entry there,
// its program: codes is that CMap parsed) and, in vertical mode, its descendant d's
// vertical metrics (DW2, W2); nil in horizontal mode.
func writingMode(enc pdf.Value, codes *cmap, d pdf.Value) *vertical {
	switch enc.Kind() {
	case pdf.Name:
		if n := enc.Name(); n != "V" && !strings.HasSuffix(n, "-V") {
			return nil
		}
	case pdf.Stream:
		if w := enc.Key("WMode"); w.Kind() == pdf.Integer {
			if w.Int64() != 1 {
				return nil
			}
		} else if codes == nil || !codes.vertical {
			return nil
		}
	default:
		return nil
	}
	vt := &vertical{vy: 0.88, w1: -1}
	if dw2 := d.Key("DW2"); dw2.Kind() == pdf.Array && dw2.Len() == 2 {
		vt.vy, vt.w1 = dw2.Index(0).Float64()/1000, dw2.Index(1).Float64()/1000
	}
	vt.w2 = verticalWidths(d.Key("W2"))
	return vt
}

// verticalWidths reads a CIDFont's W2 array: c [w1 vx vy w1 vx vy …] and cFirst cLast w1 vx vy.
func verticalWidths(w pdf.Value) map[uint32][3]float64 {
	if w.Kind() != pdf.Array {
		return nil
	}
	out := map[uint32][3]float64{}
	n := w.Len()
	for i := 0; i+1 < n && len(out) < maxW2; {
		c, next := w.Index(i), w.Index(i+1)
		if next.Kind() == pdf.Array {
			for j := 0; j+2 < next.Len() && len(out) < maxW2; j += 3 {
				out[uint32(c.Int64())+uint32(j/3)] = [3]float64{next.Index(j).Float64() / 1000, next.Index(j+1).Float64() / 1000, next.Index(j+2).Float64() / 1000}
			}
			i += 2
			continue
		}
		if i+4 >= n {
			break
		}
		m := [3]float64{w.Index(i+2).Float64() / 1000, w.Index(i+3).Float64() / 1000, w.Index(i+4).Float64() / 1000}
		for cid := c.Int64(); cid <= next.Int64() && cid >= 0 && len(out) < maxW2; cid++ {
			out[uint32(cid)] = m
		}
		i += 5
	}
	return out
}

// metric is the vertical metrics of the glyph cid whose horizontal advance is w0. A W2
// entry that hangs the glyph ems away from its point (vy -30122 among entries near 1000 in
// pdfPig's reference-2-numeric-error.pdf, whose glyph pdftotext reads in its place) is
// taken for the error it is: the default position.
func (vt *vertical) metric(cid uint32, w0 float64) vmetric {
	if m, ok := vt.w2[cid]; ok && abs(float32(m[1])) <= maxPosition && abs(float32(m[2])) <= maxPosition {
		return vmetric{w1: m[0], vx: m[1], vy: m[2]}
	}
	return vmetric{w1: vt.w1, vx: w0 / 2, vy: vt.vy}
}

// maxPosition bounds a believed position vector's parts, in em.
const maxPosition = 3

// vertGlyph is a glyph drawn in vertical mode (index into the page's glyphs): its
// displacement down the column and its position vector's vy, in page space.
type vertGlyph struct {
	i       int32
	adv, vy float32
}

// showVertical draws one glyph of a vertical-mode font at trm (the current point) and
// returns how far the current point moves along text space's y (down: negative).
func (p *page) showVertical(trm matrix, f *font, code uint32, n int, text string, w float64) (ty float64, err error) {
	g := &p.gs
	m := f.vert.metric(f.cid(code, n), w)
	ty = m.w1*g.size + g.char
	if n == 1 && code == 32 {
		ty += g.word
	}
	if text == "" && !(len(p.marked) > 0 && p.inActual()) {
		return ty, nil
	}
	// the glyph's horizontal origin: the current point less the position vector
	at := matrix{1, 0, 0, 1, -m.vx, -m.vy}.mul(trm)
	before := len(p.glyphs)
	if err = p.add(at, w*g.size*g.scale, f, text); err != nil || len(p.glyphs) == before {
		return ty, err
	}
	size := p.glyphs[before].size // the font size in page space
	p.verts = append(p.verts, vertGlyph{i: int32(before), adv: abs(float32(m.w1)) * size, vy: float32(m.vy) * size})
	return ty, nil
}

// settleVertical turns the vertical-mode glyphs that stand one below the other into
// columns (the package comment above): it runs once a page is drawn, before layout. A
// glyph alone, linked to neither neighbour, takes the form that runs the way the run drawn
// before it (else after it) runs: the "5" Distiller draws on its own between two
// parentheses of a line stays in the line, and so do the parentheses, vertical forms
// drawn turned a quarter so that as a column they run along it; with no run beside it, a
// column, as the writing mode says.
func (p *page) settleVertical() {
	vs := p.verts
	type run struct {
		start, end int
		column     bool
	}
	var runs []run
	for start := 0; start < len(vs); {
		// a run of glyphs each linked to the next, down the page or along a line
		end, down, across := start+1, 0, 0
		for ; end < len(vs) && vs[end].i == vs[end-1].i+1; end++ {
			k := step(p.glyphs[vs[end-1].i], p.glyphs[vs[end].i], vs[end-1], vs[end])
			if k == stepNone {
				break
			}
			if k == stepDown {
				down++
			} else {
				across++
			}
		}
		runs = append(runs, run{start, end, across <= down})
		start = end
	}
	nearRun := func(k, by int) int { // the nearest run of more than one glyph from k
		for k += by; k >= 0 && k < len(runs); k += by {
			if runs[k].end-runs[k].start > 1 {
				return k
			}
		}
		return -1
	}
	dir := func(r run) (uint8, int16) { // the direction a run's first glyph takes
		g := p.glyphs[vs[r.start].i]
		if r.column {
			c := g
			toColumn(&c, vs[r.start])
			return c.rot, c.angle
		}
		return g.rot, g.angle
	}
	for k, r := range runs {
		if r.end-r.start > 1 {
			continue
		}
		g := p.glyphs[vs[r.start].i]
		for _, n := range [2]int{nearRun(k, -1), nearRun(k, 1)} {
			if n < 0 {
				continue
			}
			if rot, angle := dir(runs[n]); rot == g.rot && angle == g.angle {
				runs[k].column = false
				break
			}
		}
	}
	for _, r := range runs {
		if r.column {
			for _, v := range vs[r.start:r.end] {
				toColumn(&p.glyphs[v.i], v)
			}
		}
	}
}

const (
	stepNone = iota
	stepDown
	stepAcross
)

// step says how glyph b, drawn right after a, stands from it in a's upright frame: below it
// in its column (within a few glyphs' advance: TJ adjustments space a column out), beside
// it on its baseline, or neither.
func step(a, b glyph, va, vb vertGlyph) int {
	if a.rot != b.rot || a.angle != b.angle || a.size == 0 {
		return stepNone
	}
	s := a.size
	dx := (b.x + b.w/2) - (a.x + a.w/2)
	drop := (a.y + va.vy) - (b.y + vb.vy)
	switch {
	case abs(dx) < 0.3*s && drop > 0.3*va.adv && drop < 4*s:
		return stepDown
	case abs(b.y-a.y) < 0.2*s && dx > 0 && dx < 3*s:
		return stepAcross
	}
	return stepNone
}

// toColumn turns a glyph placed upright into a glyph of a column: its text direction a
// quarter turn clockwise, its start where it hangs from the current point, its advance the
// vertical displacement, its baseline a quarter em left of the column's middle (so that a
// line's top and bottom, 0.75 and 0.25 em from it, span the em the glyph is centred in).
func toColumn(g *glyph, v vertGlyph) {
	if g.rot == slantRot {
		if g.angle >= mirrorAngle {
			return // mirrored: left as drawn
		}
		g.angle = (g.angle + 270) % 360
	} else {
		g.rot = (g.rot + 3) % 4
	}
	mid := g.x + g.w/2
	g.x, g.w, g.y = -(g.y + v.vy), v.adv, mid-0.25*g.size
}
