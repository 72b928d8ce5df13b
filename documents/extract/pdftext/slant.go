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

// mirrorAngle is added to the angle of a glyph drawn mirrored, so that mirrored text is
// laid out as a group of its own, never mixed with text that runs the same way unmirrored.
const mirrorAngle = 360

// place is where a glyph drawn with the text rendering matrix trm stands: along an axis,
// its quarter turns and the point turned so that the text runs along +x; slanted,
// slantRot, its direction in whole degrees and the point turned by that direction exactly
// (so a string's glyphs share one baseline).
//
// Mirrored text (trm's determinant negative: x or y flipped, as Ghostscript draws text
// mirrored, pdfplumber's issue-848.pdf) is read in the order its glyphs advance along their
// own baseline, its lines in the order its glyphs' up tells, as the text reads in a mirror:
// the page is reflected top to bottom first, which makes the glyphs' frame a turn of the
// upright one, and the text is laid out after the page's other text (slantRot, its angle
// plus mirrorAngle). A Type3 font's text is never taken for mirrored: its glyph procedures
// may draw it either way (Ghostscript's bitmap fonts: a FontMatrix [1 0 0 -1 0 0] whose
// images are flipped back inside each glyph, PdfPig's caly-issues-56-1.pdf), and it is read as
// before.
// pdftotext prints x-flipped text reversed letter by letter ("ehT eivom")
// and y-flipped lines last to first; neither is what the page shows.
func place(trm matrix, type3 bool) (rot uint8, angle int16, px, py float64) {
	dx, dy, x, y := trm[0], trm[1], trm[4], trm[5]
	mirror := trm[0]*trm[3]-trm[1]*trm[2] < 0 && !type3
	if mirror {
		dy, y = -dy, -y
	}
	rot = turns(dx, dy)
	deg := math.Atan2(dy, dx) * 180 / math.Pi
	if off := math.Abs(deg - 90*math.Round(deg/90)); !(off > slantMin) && !mirror {
		px, py = turn(rot, x, y)
		return rot, 0, px, py
	}
	h := math.Hypot(dx, dy)
	c, s := dx/h, dy/h
	a := int16(math.Round(deg)) % 360
	if a < 0 {
		a += 360
	}
	if mirror {
		a += mirrorAngle
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
