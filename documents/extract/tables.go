package extract

import "strings"

// tables collects the tables of a document walked element by element, row by row: a cell's
// words joined by single spaces, a row's cells by tabs, a row a line. Cells nest (a table
// inside a cell). It embeds in a walker beside its sectioner, which write falls back to.
type tables struct {
	// cells is the table cells open, innermost last; rows the cells of each open row;
	// cellRepeats and rowRepeats how many times each stands (ODF's
	// table:number-columns-repeated and number-rows-repeated).
	cells       []*strings.Builder
	rows        [][]string
	cellRepeats []int
	rowRepeats  []int
	// dropEmpty leaves out empty cells and rows (as pandoc reads ODF's repeated blanks).
	dropEmpty bool
}

// inCell says whether text now goes to a table cell.
func (t *tables) inCell() bool { return len(t.cells) > 0 }

func (t *tables) startRow()  { t.startRows(1) }
func (t *tables) startCell() { t.startCells(1) }

// maxRepeats is how many times a repeated cell or row is written at most: a cell or row
// with text is written as often as it stands, as LibreOffice shows it, up to this; an
// empty one (a styled but empty row of 1,024 columns, the 1,048,576 rows after a sheet's
// last) is dropped with dropEmpty, or written once.
const maxRepeats = 1000

// maxColumns is how many cells a row holds at most: the widest sheet Calc and Excel show
// (16,384 columns). Cells each repeated up to maxRepeats times stop there, so that a few
// kilobytes of XML cannot unpack into a row of millions of cells before the walker's check
// of the text's size, which comes at the row's end.
const maxColumns = 16384

// startRows opens a row that stands n times; startCells a cell that does.
func (t *tables) startRows(n int) {
	t.rows = append(t.rows, nil)
	t.rowRepeats = append(t.rowRepeats, min(max(n, 1), maxRepeats))
}

func (t *tables) startCells(n int) {
	t.cells = append(t.cells, &strings.Builder{})
	t.cellRepeats = append(t.cellRepeats, min(max(n, 1), maxRepeats))
}

// cell is the innermost open cell (inCell must be true).
func (t *tables) cell() *strings.Builder { return t.cells[len(t.cells)-1] }

// endCell closes the innermost cell and adds it to its row.
func (t *tables) endCell() {
	n := len(t.cells)
	if n == 0 {
		return
	}
	cell := strings.Join(strings.Fields(t.cells[n-1].String()), " ")
	repeats := t.cellRepeats[n-1]
	t.cells, t.cellRepeats = t.cells[:n-1], t.cellRepeats[:n-1]
	if cell == "" {
		repeats = 1
	}
	if r := len(t.rows); r > 0 && (cell != "" || !t.dropEmpty) {
		for range min(repeats, maxColumns-len(t.rows[r-1])) {
			t.rows[r-1] = append(t.rows[r-1], cell)
		}
	}
}

// endRow closes the innermost row and returns its line ("" for none).
func (t *tables) endRow() string {
	n := len(t.rows)
	if n == 0 {
		return ""
	}
	row := strings.Join(t.rows[n-1], "\t")
	repeats := t.rowRepeats[n-1]
	t.rows, t.rowRepeats = t.rows[:n-1], t.rowRepeats[:n-1]
	if row == "" {
		if t.dropEmpty {
			return ""
		}
		repeats = 1
	}
	return strings.Repeat(row+"\n", min(repeats, max(1, MaxTextBytes/(len(row)+1))))
}

// write adds s to the innermost open cell, else to body.
func (t *tables) write(body *strings.Builder, s string) {
	if t.inCell() {
		t.cell().WriteString(s)
		return
	}
	body.WriteString(s)
}
