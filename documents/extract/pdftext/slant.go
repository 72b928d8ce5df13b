package pdftext

import "math"

// Slanted text: glyphs whose direction is turned from the page's axes by more than
// slantMin (a chart's axis labels at 45°, a survey plan's bearings along its boundary lines,
// a sheared heading, words set around a circle) are placed along their own baseline, not
// along the nearest axis: turned to the nearest quarter turn, as pdftotext places them,
// each glyph of a slanted word drifts off its neighbours' baseline, and the word comes
// apart into letters on lines of their own ("Ma" / "y 1" for "May 11", "Te" / "st" for
// "Test"). Glyphs of one direction (in whole degrees) are laid out together after the
// page's upright text, each group in the order first drawn.

// slantRot is the rot of a slanted glyph.
const slantRot = 4

// slantMin is the turn off the nearest axis, in degrees, beyond which text is slanted. A
// scanned page's text layer turned by a degree or two stays with its axis: its lines drift
// too little to come apart.
const slantMin = 3.0

// place is where a glyph drawn at (x, y) whose text runs along (dx, dy) stands: along an
// axis, its quarter turns and the point turned so that the text runs along +x; slanted,
// slantRot, its direction in whole degrees and the point turned by that direction exactly
// (so a string's glyphs share one baseline).
func place(dx, dy, x, y float64) (rot uint8, angle int16, px, py float64) {
	rot = turns(dx, dy)
	deg := math.Atan2(dy, dx) * 180 / math.Pi
	if off := math.Abs(deg - 90*math.Round(deg/90)); !(off > slantMin) {
		px, py = turn(rot, x, y)
		return rot, 0, px, py
	}
	h := math.Hypot(dx, dy)
	c, s := dx/h, dy/h
	a := int16(math.Round(deg)) % 360
	if a < 0 {
		a += 360
	}
	return slantRot, a, x*c + y*s, -x*s + y*c
}

// slantGroups parts the n slanted glyphs of a page by direction, in the order each
// direction is first drawn.
func slantGroups(glyphs []glyph, n int) [][]glyph {
	var groups [][]glyph
	at := map[int16]int{}
	for _, g := range glyphs {
		if g.rot != slantRot {
			continue
		}
		i, ok := at[g.angle]
		if !ok {
			i = len(groups)
			at[g.angle] = i
			groups = append(groups, make([]glyph, 0, min(n, 64)))
		}
		groups[i] = append(groups[i], g)
	}
	return groups
}
