package pdftext

// A superscript and a subscript on one base, both hung at the base's end (TeX's D^{19}_{4h}
// on an upright letter, which has no italic correction to set the superscript further
// right), start at one x: sorted by x, their glyphs interleaved ("D149h", elk's
// spacegroup.pdf: "D22h2" for D^{22}_{2h}, the ties between the two runs' x broken by a
// rounding). The second run, drawn after the first, reads after it whole ("D194h"). A
// subscript that starts before the superscript (an italic base's: S_k^new, the k 0.5
// points back) keeps its place by x, as pdftotext has it ("Sknew").

// sameStartTol is how far apart, in ems of the script, two scripts' starts are one start:
// a rounding. cmmi's ψ sets its superscript 0.036 em further right (its italic
// correction), and the subscript, read first, stays first ("ψn3"): read after the
// superscript, the white before it parted the word ("ψ 3n", pari's refcard-ell.pdf).
const sameStartTol = 0.01

// scriptRun is a second script run stacked on a first one that starts where it does: its
// glyphs sort after the first run's end, in their own order.
type scriptRun struct {
	l        *line   // the line the runs are in; nil: none
	y, x0    float32 // the second run's baseline and start
	end      float32 // where its last glyph ends
	firstEnd float32 // where the first run ends
}

// startRun is the run g starts, g stacked (stacked) under or over the script run that
// ends with last; none when that run is the line's own text or starts elsewhere than g.
func startRun(cur *line, last, g glyph) scriptRun {
	size := max(g.size, last.size, 1)
	if abs(last.y-cur.y) < 0.05*size {
		return scriptRun{} // back into the line's own text: a footnote mark, a denominator
	}
	start, end := last.x, last.x+last.w
	for i := len(cur.g) - 1; i >= 0 && abs(cur.g[i].y-last.y) < 0.05*size; i-- {
		start, end = cur.g[i].x, max(end, cur.g[i].x+cur.g[i].w)
	}
	if abs(g.x-start) > sameStartTol*max(g.size, 1) {
		return scriptRun{}
	}
	return scriptRun{l: cur, y: g.y, x0: g.x, end: g.x, firstEnd: end}
}

// key is where g, added to cur, sorts: after the first run when g goes on the second (on
// its baseline, in its line, from where its last glyph ends, no word space apart), else by
// its own key; a glyph that does not go on the run ends it.
func (r *scriptRun) key(cur *line, g glyph) float32 {
	em := max(g.size, 1)
	if r.l != cur || abs(g.y-r.y) >= 0.05*em || g.x < r.end-0.1*em || g.x > r.end+0.1*em {
		*r = scriptRun{}
		return g.key
	}
	r.end = g.x + g.w
	// the run's own order kept inside a thousandth of its width: before any glyph
	// drawn at or after the first run's end
	return r.firstEnd + (g.x-r.x0)/1000
}
