package pdftext

import (
	"fmt"
	"strings"
	"testing"
)

// ocrRows draws rows of two columns 6.8 points (0.68 em) apart, lines about 9.5 ems
// wide, the way an OCR layer does: each row across the page, its left line then its right
// one, 12 points apart, each line's three words at their own sizes (9.6, 10 and 10.4
// points) unless typeset (all at 10); in the rows of lowered the right line stands half a
// row lower than the left one (the columns' leads differ there), so those rows are two
// lines, one on each side of the gutter. right gives a row's right-hand text ("" for
// none), three words. It returns the content and the text read column by column.
func ocrRows(rows int, lowered map[int]bool, right func(r int) string, typeset bool) (content, columns string) {
	var b strings.Builder
	var left, rights []string
	sizes := []float64{9.6, 10, 10.4}
	if typeset {
		sizes = []float64{10, 10, 10}
	}
	show := func(x float64, y int, s string) {
		fmt.Fprintf(&b, "1 0 0 1 %g %d Tm ", x, y)
		words := strings.SplitAfterN(s, " ", 3)
		for i, w := range words {
			fmt.Fprintf(&b, "/F1 %g Tf (%s) Tj ", sizes[i%3], w)
		}
	}
	b.WriteString("BT ")
	for r := range rows {
		l := fmt.Sprintf("left %02d of a column", r)
		show(72, 700-12*r, l)
		left = append(left, l)
		if s := right(r); s != "" {
			y := 700 - 12*r
			if lowered[r] {
				y -= 6
			}
			show(175, y, s)
			rights = append(rights, s)
		}
	}
	return b.String() + "ET", strings.Join(left, "\n") + "\n\n" + strings.Join(rights, "\n")
}

// TestGutterOCRLayer: a gutter narrower than maxLineGap in an OCR layer, which draws each
// row across both columns (olmocr's ff518b12….pdf, pypdf's OCR of a two-column review page:
// "left to plod through the text withminister the periodical"), is a gutter when it parts
// longGutterLines lines and the rows drawn on baselines apart stand beside it on both
// sides; a table drawn row by row whose cells wrap on one side only stays rows.
func TestGutterOCRLayer(t *testing.T) {
	lowered := map[int]bool{2: true, 5: true, 9: true, 13: true}
	right := func(r int) string { return fmt.Sprintf("right %02d of a column", r) }
	ocr, ocrColumns := ocrRows(16, lowered, right, false)
	typeset, _ := ocrRows(16, lowered, right, true)
	few, _ := ocrRows(12, lowered, right, false) // 8 lines parted
	// a table: rows 3, 6, 9 and 12 are a right-hand cell's wrapped lines, alone
	table, _ := ocrRows(16, nil, right, false)
	for _, r := range []int{3, 6, 9, 12} {
		table = strings.Replace(table, fmt.Sprintf("1 0 0 1 72 %d Tm /F1 9.6 Tf (left ) Tj /F1 10 Tf (%02d ) Tj /F1 10.4 Tf (of a column) Tj ", 700-12*r, r), "", 1)
	}
	// a listing drawn row by row: line numbers 0.8 em before the code; blank lines'
	// numbers alone, and continued lines' code alone without a number (babel-thai's
	// thai.pdf: "28" and "\\def\\prefacename…" read as two columns)
	var listing, listingWant strings.Builder
	listing.WriteString("BT /F1 10 Tf ")
	for r := range 24 {
		num, code := fmt.Sprintf("%02d", r), fmt.Sprintf("code of line %02d", r)
		switch r % 4 {
		case 1:
			code = "" // a blank line
		case 3:
			num = "" // a continued line
		}
		line := strings.TrimSpace(num + " " + code)
		for _, c := range []struct {
			x float64
			s string
		}{{72, num}, {90, code}} {
			if c.s != "" {
				fmt.Fprintf(&listing, "1 0 0 1 %g %d Tm (%s) Tj ", c.x, 700-12*r, c.s)
			}
		}
		listingWant.WriteString(line + "\n")
	}
	listing.WriteString("ET")
	// a table of short cells drawn row by row (prawn's manual: "121. y", a character's
	// number and itself), wide lines on one side or the other between its rows
	var cells, cellsWant strings.Builder
	cells.WriteString("BT /F1 10 Tf ")
	for r := range 20 {
		y := 700 - 12*r
		switch {
		case r%5 == 1:
			fmt.Fprintf(&cells, "1 0 0 1 20 %d Tm (wide left li) Tj ", y)
			cellsWant.WriteString("wide left li\n")
		case r%5 == 3:
			fmt.Fprintf(&cells, "1 0 0 1 95 %d Tm (wide right l) Tj ", y)
			cellsWant.WriteString("wide right l\n")
		default:
			fmt.Fprintf(&cells, "1 0 0 1 72 %d Tm (%02d.) Tj 1 0 0 1 95 %d Tm (y) Tj ", y, r, y)
			fmt.Fprintf(&cellsWant, "%02d. y\n", r)
		}
	}
	cells.WriteString("ET")
	tests := []struct {
		name, content, want string
	}{
		{"a table's short cells stay rows", cells.String(), strings.TrimSpace(cellsWant.String())},
		{"a listing's numbers alone on its blank lines are no column", listing.String(), strings.TrimSpace(listingWant.String())},
		{"an OCR layer's columns are read as columns", ocr, ocrColumns},
		{"typeset columns drawn row by row at one size stay rows", typeset,
			"left 00 of a column right 00 of a column\nleft 01 of a column right 01 of a column\nleft 02 of a column\nright 02 of a column"},
		{"eight lines parted are too few", few, "left 00 of a column right 00 of a column\nleft 01 of a column right 01 of a column\nleft 02 of a column\nright 02 of a column"},
		{"a table's cells wrapped on one side stay rows", table, "left 00 of a column right 00 of a column\nleft 01 of a column right 01 of a column\nleft 02 of a column right 02 of a column\nright 03 of a column"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pagesText(t, pdfWith(simpleFont(""), "", tt.content))
			if err != nil {
				t.Fatal(err)
			}
			// blocks apart: the right column's leads change at its lowered rows
			got, want := strings.ReplaceAll(got, "\n\n", "\n"), strings.ReplaceAll(tt.want, "\n\n", "\n")
			if !strings.HasPrefix(got, want) {
				t.Errorf("got %q,\nwant %q", got, want)
			}
		})
	}
}
