package extract

import "strings"

// tables collects the tables of a document walked element by element, row by row: a cell's
// words joined by single spaces, a row's cells by tabs, a row a line. Cells nest (a table
// inside a cell). It embeds in a walker beside its sectioner, which write falls back to.
type tables struct {
	// cells is the table cells open, innermost last; rows the cells of each open row.
	cells []*strings.Builder
	rows  [][]string
	// dropEmpty leaves out empty cells and rows (as pandoc reads ODF's repeated blanks).
	dropEmpty bool
}

// inCell says whether text now goes to a table cell.
func (t *tables) inCell() bool { return len(t.cells) > 0 }

func (t *tables) startRow()  { t.rows = append(t.rows, nil) }
func (t *tables) startCell() { t.cells = append(t.cells, &strings.Builder{}) }

// cell is the innermost open cell (inCell must be true).
func (t *tables) cell() *strings.Builder { return t.cells[len(t.cells)-1] }

// endCell closes the innermost cell and adds it to its row.
func (t *tables) endCell() {
	n := len(t.cells)
	if n == 0 {
		return
	}
	cell := strings.Join(strings.Fields(t.cells[n-1].String()), " ")
	t.cells = t.cells[:n-1]
	if r := len(t.rows); r > 0 && (cell != "" || !t.dropEmpty) {
		t.rows[r-1] = append(t.rows[r-1], cell)
	}
}

// endRow closes the innermost row and returns its line ("" for none).
func (t *tables) endRow() string {
	n := len(t.rows)
	if n == 0 {
		return ""
	}
	row := strings.Join(t.rows[n-1], "\t")
	t.rows = t.rows[:n-1]
	if row == "" && t.dropEmpty {
		return ""
	}
	return row + "\n"
}

// write adds s to the innermost open cell, else to body.
func (t *tables) write(body *strings.Builder, s string) {
	if t.inCell() {
		t.cell().WriteString(s)
		return
	}
	body.WriteString(s)
}
