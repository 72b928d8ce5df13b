package pdftext

import (
	"fmt"
	"strings"
	"testing"
)

// columnsContent draws rows of cells (each cell's text at its x) either column by column
// or row by row, 12 points apart, with the 10-point font of simpleFont (5 points a glyph).
func columnsContent(cells [][]string, xs []float64, byColumn bool) string {
	var b strings.Builder
	b.WriteString("BT /F1 10 Tf ")
	show := func(r, c int) {
		if cells[r][c] == "" {
			return
		}
		// a cell's text: words apart by TJ moves ("a|b" stretches the space to the cell's end)
		text := cells[r][c]
		if left, right, ok := strings.Cut(text, "|"); ok {
			fmt.Fprintf(&b, "1 0 0 1 %g %d Tm (%s) Tj 1 0 0 1 %g %d Tm (%s) Tj ",
				xs[c], 700-12*r, left, xs[c]+50-5*float64(len(right)), 700-12*r, right)
			return
		}
		fmt.Fprintf(&b, "1 0 0 1 %g %d Tm (%s) Tj ", xs[c], 700-12*r, text)
	}
	if byColumn {
		for c := range xs {
			for r := range cells {
				show(r, c)
			}
		}
	} else {
		for r := range cells {
			for c := range xs {
				show(r, c)
			}
		}
	}
	return b.String() + "ET"
}

func TestGutters(t *testing.T) {
	// Three columns 50 points wide, 8 points (0.8 em) apart; a justified line's stretched
	// space ("abcd|efgh": 30 points) is wider than the gutters.
	xs := []float64{72, 130, 188}
	cells := [][]string{
		{"one alpha.", "two alpha.", "tre alpha."},
		{"abcd|efgh", "two bravo.", "tre bravo."},
		{"one charly", "two charly", "tre charly"},
		{"one delta.", "two delta.", "tre delta."},
	}
	threeColumns := "one alpha.\nabcd efgh\none charly\none delta.\n\n" +
		"two alpha.\ntwo bravo.\ntwo charly\ntwo delta.\n\n" +
		"tre alpha.\ntre bravo.\ntre charly\ntre delta."
	// a table drawn row by row with the same white space
	table := "one alpha. two alpha. tre alpha.\nabcd efgh two bravo. tre bravo.\n" +
		"one charly two charly tre charly\none delta. two delta. tre delta."
	tests := []struct {
		name, content, want string
	}{
		{"columns drawn one after the other are read so", columnsContent(cells, xs, true), threeColumns},
		{"a table drawn row by row stays rows", columnsContent(cells, xs, false), table},
		{"a listing's aligned comments stay on their lines", "BT /F1 10 Tf 72 700 Td (x = 1;      // one) Tj 0 -12 Td (yy = 22;    // two) Tj" +
			" 0 -12 Td (zzz = 333;  // three) Tj 0 -12 Td (w = 4;      // four) Tj ET",
			"x = 1; // one\nyy = 22; // two\nzzz = 333; // three\nw = 4; // four"},
		{"two rows are no gutter", columnsContent(cells[:2], xs, true),
			"one alpha. two alpha. tre alpha.\nabcd efgh two bravo. tre bravo."},
		{"a justified column's line ending a hair into the gutter does not close it", justifiedColumns(), justifiedWant},
		{"a gutter goes on past lines on one side of it", footnoteColumns(), footnoteWant},
	}
	// A parallel text drawn row by row: Latin on the left, Hebrew (A, B: alef, bet) on the
	// right, 8 points apart.
	parallel := [][]string{{"one alpha.", "AAB BBA AB"}, {"one bravo.", "BBA AAB BA"}, {"one charly", "AB AB AB"}}
	hebrew := "1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <20> <0020> <41> <05D0> <42> <05D1> endbfchar"
	tests = append(tests, []struct{ name, content, want string }{
		{"a parallel text's two directions are two columns", columnsContent(parallel, xs[:2], false),
			"one alpha.\none bravo.\none charly\n\nבא אבב באא\nאב באא אבב\nבא בא בא"},
		{"two rows of a parallel text are no gutter", columnsContent(parallel[:2], xs[:2], false),
			"one alpha. בא אבב באא\none bravo. אב באא אבב"},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			font, toUnicode := simpleFont(""), ""
			if strings.Contains(tt.content, "(A") {
				font, toUnicode = simpleFont("/ToUnicode 6 0 R"), hebrew
			}
			pages, err := Read(pdfWith(font, toUnicode, tt.content), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(pages[0].Text); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// justifiedColumns draws two columns 8 points apart, the left one first, on one baseline
// grid; rows 2 and 5 have no right-hand line, and their left-hand lines end 0.05 points
// past the others (a justified column's edge, set by rounding: an IEEE paper of
// pdfminer.six's samples, whose left column ends between 291.70 and 291.76).
func justifiedColumns() string {
	var b strings.Builder
	b.WriteString("BT /F1 10 Tf ")
	for r := range 8 {
		x := 72.0
		if r == 2 || r == 5 {
			x = 72.05
		}
		fmt.Fprintf(&b, "1 0 0 1 %g %d Tm (left %d row) Tj ", x, 700-12*r, r)
	}
	for r := range 8 {
		if r != 2 && r != 5 {
			fmt.Fprintf(&b, "1 0 0 1 130 %d Tm (right %d ro) Tj ", 700-12*r, r)
		}
	}
	return b.String() + "ET"
}

const justifiedWant = "left 0 row\nleft 1 row\nleft 2 row\nleft 3 row\nleft 4 row\nleft 5 row\nleft 6 row\nleft 7 row\n\n" +
	"right 0 ro\nright 1 ro\n\nright 3 ro\nright 4 ro\n\nright 6 ro\nright 7 ro"

// footnoteColumns draws two columns 8 points apart, the left one first: four rows of both,
// then eight of the right column beside white space (a figure, a footnote's rule), then
// a footnote on the left beside the right column's last row (the first page of an IEEE
// paper of pdfminer.six's samples).
func footnoteColumns() string {
	var b strings.Builder
	b.WriteString("BT /F1 10 Tf ")
	for _, r := range []int{0, 1, 2, 3, 12} {
		fmt.Fprintf(&b, "1 0 0 1 72 %d Tm (left %02d ro) Tj ", 700-12*r, r)
	}
	for r := range 13 {
		fmt.Fprintf(&b, "1 0 0 1 130 %d Tm (right %02d r) Tj ", 700-12*r, r)
	}
	return b.String() + "ET"
}

var footnoteWant = "left 00 ro\nleft 01 ro\nleft 02 ro\nleft 03 ro\n\nleft 12 ro\n\n" +
	"right 00 r\nright 01 r\nright 02 r\nright 03 r\nright 04 r\nright 05 r\nright 06 r\nright 07 r\nright 08 r\nright 09 r\nright 10 r\nright 11 r\nright 12 r"

// TestGutterOneSharedBaseline: two columns 8 points apart, drawn one after the other on
// baselines that meet once (Distiller's two-column CFR pages, Tika's
// testPDF_bad_page_303226.pdf): the one line of each column on the shared baseline is
// merged across the gutter, which parts no other line; the columns' lines beside it, three
// and more on each side, make it a gutter.
func TestGutterOneSharedBaseline(t *testing.T) {
	content, want := sharedBaselineColumns(func(i int) (float64, string) { return 72, fmt.Sprintf("left %c end", 'a'+i) })
	got, err := pagesText(t, pdfWith(simpleFont(""), "", content))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Fewer lines beside it than minGutterLines on one side: no gutter, the line stays whole.
	var b strings.Builder
	b.WriteString("BT /F1 10 Tf 1 0 0 1 72 700 Tm (left a end) Tj 1 0 0 1 72 688 Tm (left b end) Tj 1 0 0 1 130 700 Tm (right a) Tj ET")
	if got, _ := pagesText(t, pdfWith(simpleFont(""), "", b.String())); got != "left a end right a\nleft b end" {
		t.Errorf("two lines beside: got %q", got)
	}
}

// TestGutterHangingHyphen: the columns of TestGutterOneSharedBaseline, with hyphens at the
// ends of two of the left column's lines below the shared line hanging 1.7 points (0.17
// em) past the others' ends into the gutter, as microtype's protrusion sets a pdfTeX paper
// (MinerU's demo3.pdf, an arXiv paper whose section heading shares a baseline with the
// other column's line: its page 2 read interleaved, "as andataset, ... the effecswer.").
func TestGutterHangingHyphen(t *testing.T) {
	content, want := sharedBaselineColumns(func(i int) (float64, string) {
		if i == 4 || i == 5 {
			// "left e 5" ends 1.7 points short of the others, the hyphen 1.7 past them
			return 78.7, fmt.Sprintf("left %c 5-", 'a'+i)
		}
		return 72, fmt.Sprintf("left %c end", 'a'+i)
	})
	got, err := pagesText(t, pdfWith(simpleFont(""), "", content))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("got %q,\nwant %q", got, want)
	}
	// A hyphen hanging deeper than hangTol closes the band: no gutter, the shared line stays whole.
	got, _ = pagesText(t, pdfWith(simpleFont(""), "", strings.ReplaceAll(content, "78.7", "82")))
	if !strings.Contains(got, "left d end right c") {
		t.Errorf("a hyphen 0.5 em into the gutter: got %q", got)
	}
}

// sharedBaselineColumns is the content of a page of two columns whose lines share one
// baseline (y 664): the left column's seven lines, each at the x and with the text
// leftLine gives, and the right column's six at x 130 on wider leads; and the text a
// reader gives of it, the left column first (the right column's wider leads around its
// shared line part it into blocks).
func sharedBaselineColumns(leftLine func(i int) (x float64, s string)) (content, want string) {
	left := []int{700, 688, 676, 664, 652, 640, 628}
	right := []int{694, 682, 664, 646, 634, 622}
	var b strings.Builder
	b.WriteString("BT /F1 10 Tf ")
	var lines []string
	for i, y := range left {
		x, s := leftLine(i)
		fmt.Fprintf(&b, "1 0 0 1 %g %d Tm (%s) Tj ", x, y, s)
		lines = append(lines, s)
	}
	for i, y := range right {
		fmt.Fprintf(&b, "1 0 0 1 130 %d Tm (right %c) Tj ", y, 'a'+i)
	}
	b.WriteString("ET")
	return b.String(), strings.Join(lines, "\n") + "\n\nright a\nright b\n\nright c\n\nright d\nright e\nright f"
}

// TestGutterSharedBaselineAtFoot: the lines of two columns 8 points apart, drawn one
// after the other, share a baseline only at the left column's foot (a listing's line at
// the foot of a paper's left column beside the right column's line: Ge and Mooney's
// CoNLL 2005 paper in science-parse's fixtures, read "provides infordatabase of U.S.").
// No line stands under the shared one on the left, but three stand over it on each side:
// they make the band a gutter as lines under it do, when they are running text
// (columnLineEms wide), not a table's short cells.
func TestGutterSharedBaselineAtFoot(t *testing.T) {
	// the left column's lines at left (the last at 664, the shared baseline), a line
	// across both columns at across (0: none; -1: none, and the left lines over the
	// shared one end 4.2 ems short of it), the right column's at right; the left
	// column ends at x 147, the right one starts at 155: lines 7.5 ems wide, or cells of
	// 3.5 ems
	page := func(left []int, across int, right []int, cells bool) string {
		var b strings.Builder
		b.WriteString("BT /F1 10 Tf ")
		lx, lf, rf := 72, "left %c line end", "right %c line e"
		switch {
		case cells:
			lx, lf, rf = 112, "cell %c", "cell %c"
		case across < 0: // lines 4.2 ems short of the band: another column of a table
			lx, lf, across = 40, "left %c line e", 0
		}
		for i, y := range left {
			if y == 664 && lx == 40 {
				lx, lf = 72, "left %c line end"
			}
			fmt.Fprintf(&b, "1 0 0 1 %d %d Tm ("+lf+") Tj ", lx, y, 'a'+i)
		}
		if across != 0 {
			fmt.Fprintf(&b, "1 0 0 1 72 %d Tm (a line across both of the columns) Tj ", across)
		}
		for i, y := range right {
			fmt.Fprintf(&b, "1 0 0 1 155 %d Tm ("+rf+") Tj ", y, 'A'+i)
		}
		return b.String() + "ET"
	}
	tests := []struct {
		name   string
		left   []int
		across int
		right  []int
		cells  bool
		want   string
	}{
		{"three lines over it on each side", []int{700, 688, 676, 664}, 0, []int{710, 698, 686, 664, 646}, false,
			"left a line end\nleft b line end\nleft c line end\nleft d line end\n\nright A line e\nright B line e\nright C line e\n\nright D line e\n\nright E line e"},
		// two lines of the right column beside it, none under it: too few, the shared
		// line stays whole
		{"two lines beside it on the right", []int{700, 688, 676, 664}, 0, []int{698, 686, 664}, false,
			"left a line end\nright A line e\nleft b line end\nright B line e\nleft c line end\nleft d line end right C line e"},
		// a line across the band right over it ends the count: the columns' lines over
		// that line are not beside this band
		{"a line across both over it", []int{712, 700, 688, 664}, 676, []int{706, 694, 682, 664, 646}, false,
			"left a line end\nright A line e\nleft b line end\nright B line e\nleft c line end\nright C line e\na line across both of the columns\nleft d line end right D line e\n\nright E line e"},
		// lines over it that end 4.2 ems short of the band: a table's other column
		{"lines short of the band", []int{700, 688, 676, 664}, -1, []int{710, 698, 686, 664, 646}, false,
			"right A line e\nleft a line e\nright B line e\nleft b line e\nright C line e\nleft c line e\nleft d line end right D line e\n\nright E line e"},
		// a table's cells, drawn column by column, stay rows
		{"cells over it", []int{700, 688, 676, 664}, 0, []int{710, 698, 686, 664, 646}, true,
			"cell A\ncell a\ncell B\ncell b\ncell C\ncell c\ncell d cell D\n\ncell E"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pagesText(t, pdfWith(simpleFont(""), "", page(tc.left, tc.across, tc.right, tc.cells)))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %q,\nwant %q", got, tc.want)
			}
		})
	}
}
