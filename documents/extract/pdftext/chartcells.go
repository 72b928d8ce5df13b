package pdftext

// A character chart draws its characters one to a cell with a space between them. Where a
// glyph overflows its clipped cell, it stands a little closer to the next cell's first
// than the chart's gaps between cells, no space drawn between: GentiumPlus-features.pdf's
// "ț" 2.97 points before "ǋ", the chart's gaps 2.64. Taken for letter spacing (within 1.3
// times the narrowest gap), the two read as one word "țǋ". A line whose words are parted
// by drawn spaces more often than not is no letter-spaced line: its gaps without a space
// are a word's own or a cell's edge, and letterSpaced leaves it alone. (A letter-spaced
// heading draws a space between words only, fewer than the gaps between its letters.)

// spacedChart says whether most of a line's word breaks (drawn, as lineWords records them:
// drawn[i] is true when a space glyph stands before word i) are drawn spaces.
func spacedChart(drawn []bool) bool {
	n := 0
	for _, d := range drawn[1:] {
		if d {
			n++
		}
	}
	return 2*n > len(drawn)-1
}
