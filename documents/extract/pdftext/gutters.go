package pdftext

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Column gutters narrower than maxLineGap: a newspaper's three columns a little under an em
// apart, or a parallel text's Russian column and the Hebrew one beside it, are joined into
// one line by mergeRows, where a justified line's stretched word spaces may be wider than
// the gutter. A gutter is told from word spaces by a white band lined up over consecutive
// lines, and from a table's or a code listing's aligned white space by how the two sides
// were drawn: one column after the other (the glyphs on either side of the band are not
// drawn one after the other), or in two directions (left to right on one side, right to
// left on the other). Tables and listings are drawn row by row in one direction and stay
// lines.
const (
	minGutter      = 0.5 // a band narrower than this (em) is no gutter
	minGutterLines = 3   // lines a band must part, with the drawing or direction agreeing
	// longGutterLines: lines a band must part to be a gutter without the drawing or the
	// direction agreeing, with column lines beside it (band.long)
	longGutterLines = 10
	columnLineEms   = 6 // a line beside a long band this wide (em) is a column's (band.long)
	gutterDrift     = 6 // a band ends after this many ems down without a line it parts (a gutter: beside it)
	maxOpenBands    = 64
	drawnApartMin   = 16 // glyphs drawn between two sides of a gutter (drawnApart)
	// edgeTol: ink this far (em) into a band does not cross it: a justified column's right
	// edge, set by rounding, wanders by hundredths of a point, and the band, narrowed to the
	// leftmost of its gaps' starts, would close on the next line that ends past it.
	edgeTol = 0.05
	// hangTol: one glyph this far (em) into a band does not cross it either: a justified
	// column's hyphens and stops hang into its margin (microtype's character protrusion,
	// optical margin alignment), 0.17 em past the other lines' ends in a pdfTeX paper.
	hangTol = 0.4
)

// gap is a white run inside a line: from where the ink before it ends to where the next
// glyph starts, and the two glyphs around it.
type gap struct {
	x0, x1      float32
	left, right int // indexes into the line's glyphs
	lo, hi      int // the glyphs l.g[lo:right] and l.g[right:hi] stand between g and the gaps beside it
}

// band is a candidate gutter: the white run common to the lines it parts so far.
type band struct {
	x0, x1 float32
	size   float32 // the em of its first line
	lastY  float32
	parts  []bandPart
	drawn  int // lines whose two sides were drawn apart
	// wideSides counts the lines parted whose text runs columnLineEms or more on both
	// sides of the band: running text, not a table's cells
	wideSides int
	twoWays   int // lines whose two sides read in opposite directions
	// beside counts the lines that stand wholly left of the band and wholly right of it
	// while it is open: a column's lines beside the gutter, on both sides
	beside [2]int
	// wide counts those of beside at least columnLineEms wide: a column's running text,
	// not a listing's line number alone
	wide [2]int
	// near counts the lines as wide that reach to abutEms of the band (columnBeside), over
	// it (besideAbove) as well as under it: a column's lines on its gutter
	near [2]int
}

type bandPart struct {
	l *line
	g gap
}

// lineGaps lists the white runs of a line at least minGutter wide.
func lineGaps(l *line) []gap {
	var out []gap
	end, last := float32(0), -1
	for i := range l.g {
		g := &l.g[i]
		if g.space || g.w <= 0 {
			continue
		}
		if last >= 0 && g.x-end >= minGutter*max(g.size, l.g[last].size, 1) {
			out = append(out, gap{x0: end, x1: g.x, left: last, right: i})
		}
		if last < 0 || g.x+g.w > end {
			end, last = g.x+g.w, i
		}
	}
	for i := range out {
		out[i].hi = len(l.g)
		if i > 0 {
			out[i].lo = out[i-1].right
		}
		if i+1 < len(out) {
			out[i].hi = out[i+1].right
		}
	}
	return out
}

// splitGutters parts lines at the gutters found among them; lines is in mergeRows' order
// (top to bottom).
func splitGutters(lines []*line) []*line {
	var open, done []*band
	closeBand := func(b *band) {
		if b.gutter() {
			done = append(done, b)
		}
	}
	for li, l := range lines {
		if len(l.g) < 2 {
			continue
		}
		gaps := lineGaps(l)
		used := make([]bool, len(gaps))
		keep := open[:0]
		for _, b := range open {
			if b.lastY-l.y > gutterDrift*b.size {
				closeBand(b)
				continue
			}
			em := max(l.size, 1)
			if side := b.side(l, em); side >= 0 {
				b.beside[side]++
				if l.x1-l.x0 >= columnLineEms*em {
					b.wide[side]++
				}
				if b.columnBeside(l, side, em) {
					b.near[side]++
				}
				if b.gutter() {
					b.lastY = l.y // a gutter goes on while white beside one column's lines
				}
				keep = append(keep, b) // the line stands on one side
				continue
			}
			best, bestW := -1, float32(0)
			for i, g := range gaps {
				if w := min(g.x1, b.x1) - max(g.x0, b.x0); w > bestW {
					best, bestW = i, w
				}
			}
			if best >= 0 {
				// the em of the glyphs around the gap: a drop cap elsewhere on the line
				// (three lines high) does not make the gutter too narrow for it
				g := gaps[best]
				em = max(l.g[g.left].size, l.g[g.right].size, 1)
			}
			switch {
			case best >= 0 && bestW >= minGutter*em:
				g := gaps[best]
				used[best] = true
				b.x0, b.x1 = max(b.x0, g.x0), min(b.x1, g.x1)
				b.parts = append(b.parts, bandPart{l, g})
				b.lastY = l.y
				if drawnApart(l, g) {
					b.drawn++
				}
				if wideSides(l, g) && ocrSized(l) {
					b.wideSides++
				}
				if twoWays(l, g) {
					b.twoWays++
				}
				keep = append(keep, b)
			case l.x1 < b.x1 && l.x1-b.x0 < b.x1-b.x0 && b.x1-l.x1 >= minGutter*em && !crosses(l, b):
				b.x0 = l.x1 // the line ends inside the band, which narrows
				keep = append(keep, b)
			case l.x0 > b.x0 && b.x1-l.x0 < b.x1-b.x0 && l.x0-b.x0 >= minGutter*em && !crosses(l, b):
				b.x1 = l.x0
				keep = append(keep, b)
			default:
				closeBand(b) // ink across the band
			}
		}
		open = keep
		for i, g := range gaps {
			if !used[i] && len(open) < maxOpenBands {
				b := &band{x0: g.x0, x1: g.x1, size: max(l.size, 1), lastY: l.y,
					parts: []bandPart{{l, g}}, drawn: b2i(drawnApart(l, g)), twoWays: b2i(twoWays(l, g)),
					wideSides: b2i(wideSides(l, g) && ocrSized(l))}
				b.besideAbove(lines[:li])
				open = append(open, b)
			}
		}
	}
	for _, b := range open {
		closeBand(b)
	}
	if len(done) == 0 {
		return lines
	}
	// Cut each parted line at its gaps' middles.
	cuts := map[*line][]float32{}
	for _, b := range done {
		for _, p := range b.parts {
			cuts[p.l] = append(cuts[p.l], (max(p.g.x0, b.x0)+min(p.g.x1, b.x1))/2)
		}
	}
	out := make([]*line, 0, len(lines)+len(cuts))
	for _, l := range lines {
		xs, ok := cuts[l]
		if !ok {
			out = append(out, l)
			continue
		}
		slices.Sort(xs)
		parts := make([]*line, len(xs)+1)
		for _, g := range l.g {
			k, _ := slices.BinarySearch(xs, g.x+g.w/2)
			if g.w <= 0 {
				k, _ = slices.BinarySearch(xs, g.x)
			}
			if parts[k] == nil {
				parts[k] = &line{}
			}
			parts[k].add(g)
		}
		for _, p := range parts {
			if p != nil {
				p.rtl = isRTL(p.g)
				out = append(out, p)
			}
		}
	}
	return out
}

// besideAbove counts in near, for a band opened on a line, the lines above it (above,
// in mergeRows' order) that stand on one side of it as a column's lines (columnBeside),
// up to gutterDrift ems over it or a line across it: a gutter whose lines share
// baselines only near a column's foot has its columns' lines above it (Ge and Mooney's
// CoNLL paper in science-parse's fixtures: a listing's two lines at the foot of the left
// column, each within maxLineGap of the right column's line on its baseline, and only two
// lines of the left column under them before the page's next gap).
func (b *band) besideAbove(above []*line) {
	y := b.parts[0].l.y
	for i := len(above) - 1; i >= 0; i-- {
		l := above[i]
		if l.y-y > gutterDrift*b.size {
			return
		}
		if len(l.g) < 2 {
			continue
		}
		em := max(l.size, 1)
		side := b.side(l, em)
		if side < 0 {
			return
		}
		if b.columnBeside(l, side, em) {
			b.near[side]++
		}
	}
}

// abutEms is how far (em) from a band a column's line beside it may end, or start: a
// column's lines reach its gutter, ragged ones nearly.
const abutEms = 2

// columnBeside says whether l, on the given side of the band, is a column's line beside
// it: columnLineEms wide or more, reaching to abutEms of it. Not a table's short cells,
// nor its other columns' cells (debian-reference.ja's tables of packages, their tags
// "設定:: 低レ" beside wrapped descriptions drawn after them, stay rows).
func (b *band) columnBeside(l *line, side int, em float32) bool {
	if l.x1-l.x0 < columnLineEms*em {
		return false
	}
	if side == 0 {
		return b.x0-inkEnd(l) <= abutEms*em
	}
	return inkStart(l)-b.x1 <= abutEms*em
}

// gutter says whether the band has parted enough lines, drawn apart or in two directions,
// to be a gutter between columns.
//
// A band that parts fewer lines is a gutter when each line it parts was drawn apart and
// lines stand beside it on both sides, minGutterLines each: two columns whose lines share a
// baseline once (Distiller's two-column CFR pages in Tika's testPDF_bad_page_303226.pdf,
// "by whatany quantity" read across the gutter); or columns' lines (near), over it and
// under it, minGutterLines each.
func (b *band) gutter() bool {
	if len(b.parts) >= minGutterLines {
		return 3*b.drawn >= 2*len(b.parts) || 3*b.twoWays >= 2*len(b.parts) || b.long()
	}
	beside := min(b.beside[0], b.beside[1]) >= minGutterLines || min(b.near[0], b.near[1]) >= minGutterLines
	return len(b.parts) > 0 && b.drawn == len(b.parts) && beside
}

// long says whether the band is a gutter by its length alone, however its lines were
// drawn: it parts longGutterLines lines or more, two thirds of them an OCR layer's
// (ocrSized) with running text on both sides (columnLineEms or more), and column lines
// (as wide) stand beside it on both sides, a quarter as many as it parts (minGutterLines
// at least). An OCR layer draws each row of the page across both columns, word by word
// at sizes and on baselines a little apart, so a
// gutter narrower than maxLineGap parts some rows (olmocr's ff518b12…: 25 lines parted,
// 5 drawn apart) and has the rest, drawn on baselines apart, beside it (14 and 9 lines).
// A table drawn row by row parts short cells (prawn's manual: "121. y"), and a listing's
// line numbers stand alone on its blank lines: they stay rows. So do a typeset listing's
// aligned columns, a row's cells wide on both sides, in one size (xeCJK's manual:
// "\cs_new_protected:Npn" and its arguments).
func (b *band) long() bool {
	return len(b.parts) >= longGutterLines && 3*b.wideSides >= 2*len(b.parts) &&
		min(b.wide[0], b.wide[1]) >= max(minGutterLines, len(b.parts)/4)
}

// wideSides says whether l runs columnLineEms or more on both sides of g.
func wideSides(l *line, g gap) bool {
	em := max(l.size, 1)
	return g.x0-l.x0 >= columnLineEms*em && l.x1-g.x1 >= columnLineEms*em
}

// side says on which side of the band l stands wholly: 0 left of it, 1 right of it, -1
// neither. One punctuation glyph at the line's end (or start) may hang into the band by
// hangTol em, leaving minGutter em of it white: the band narrows to that glyph.
func (b *band) side(l *line, em float32) int {
	switch {
	case l.x1 <= b.x0+edgeTol*em:
		return 0
	case l.x0 >= b.x1-edgeTol*em:
		return 1
	}
	left, right := b.x0+edgeTol*em, b.x1-edgeTol*em
	var end, start float32 = left, right
	inLeft, inRight := 0, 0 // glyphs reaching past the band's left edge, and before its right one
	hangsLeft, hangsRight := true, true
	for _, g := range l.g {
		if g.space || g.w <= 0 {
			continue
		}
		if g.x+g.w > left {
			inLeft++
			end = max(end, g.x+g.w)
			hangsLeft = hangsLeft && g.x <= left && hangs(g.text, true)
		}
		if g.x < right {
			inRight++
			start = min(start, g.x)
			hangsRight = hangsRight && g.x+g.w >= right && hangs(g.text, false)
		}
	}
	switch {
	case inLeft == 1 && hangsLeft && end <= b.x0+hangTol*em && b.x1-end >= minGutter*em:
		b.x0 = max(b.x0, end)
		return 0
	case inRight == 1 && hangsRight && start >= b.x1-hangTol*em && start-b.x0 >= minGutter*em:
		b.x1 = min(b.x1, start)
		return 1
	}
	return -1
}

// hangs says whether s is punctuation that hangs into a margin, at a line's end (a hyphen,
// a dash, a stop, a comma, a closing quotation mark) or at its start (an opening quotation
// mark), as microtype protrudes them. Not letters (a margin note longer than the others
// reaching into the gutter closes it), brackets or backslashes (a listing's "}", a command
// name set in the margin).
func hangs(s string, end bool) bool {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || n != len(s) {
		return false
	}
	if end {
		return unicode.Is(unicode.Pd, r) || unicode.Is(unicode.Pf, r) || strings.ContainsRune(".,:;!?'\"’”", r)
	}
	return unicode.Is(unicode.Pi, r) || strings.ContainsRune("`'\"‘“", r)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// crosses says whether a glyph of l lies inside the band.
func crosses(l *line, b *band) bool {
	for _, g := range l.g {
		if !g.space && g.w > 0 && g.x < b.x1 && g.x+g.w > b.x0 {
			return true
		}
	}
	return false
}

// drawnApart says whether the glyphs on either side of g were drawn in separate runs, as
// when one column is drawn after the other: more than a short line's glyphs (drawnApartMin)
// drawn between them besides those on the line between them (a listing's space glyphs). A
// few glyphs drawn in between on other lines (ruby over the words, the marks of a line
// above) do not part a line.
func drawnApart(l *line, g gap) bool {
	d := l.g[g.right].seq - l.g[g.left].seq
	near := int32(g.right-g.left) + drawnApartMin
	return d > near || d < -near
}

// twoWays says whether the words on either side of g, up to the gaps beside it, read in opposite directions: left to
// right letters on one side, right to left on the other.
func twoWays(l *line, g gap) bool {
	side := func(gs []glyph) int {
		rtl, ltr := 0, 0
		for _, x := range gs {
			switch direction(x.text) {
			case 1:
				rtl++
			case -1:
				ltr++
			}
		}
		switch {
		case rtl > ltr:
			return 1
		case ltr > rtl:
			return -1
		}
		return 0
	}
	a, b := side(l.g[g.lo:g.right]), side(l.g[g.right:g.hi])
	return a != 0 && b != 0 && a != b
}
