package pdftext

// Indented code read as columns. splitColumns cuts at any vertical gap wider than
// columnGap, and a listing's indentation makes one: in enfuse's manual a class's closing
// "};" at the margin, under a method indented four columns ("double weight(double y)
// override {" … "}"), was a column of its own left of the method and read before it.
// Columns stand side by side; a column wholly under the one read after it, and close under
// it (no block gap between), is no column beside it but the lines that follow it. A column
// farther under (a page's text under a page number at its head's right) stays a column.

// joinUnder joins each column (in reading order) that stands wholly and closely under the
// column read after it to that column, so that the two are cut again as one: top to bottom.
func joinUnder(cols [][]*line) [][]*line {
	out := [][]*line{cols[0]}
	for _, c := range cols[1:] {
		last := out[len(out)-1]
		head, bottom := topLine(last), columnBottom(c)
		if top := head.top(); top <= bottom && bottom-top <= blockGap*max(head.size, 1) {
			out[len(out)-1] = append(append([]*line(nil), last...), c...)
			continue
		}
		out = append(out, c)
	}
	return out
}

// topLine is a column's highest line.
func topLine(col []*line) *line {
	t := col[0]
	for _, l := range col[1:] {
		if l.top() > t.top() {
			t = l
		}
	}
	return t
}

// columnBottom is the bottom of a column's lowest line.
func columnBottom(col []*line) float32 {
	bottom := col[0].bottom()
	for _, l := range col[1:] {
		bottom = min(bottom, l.bottom())
	}
	return bottom
}
