package extract

import (
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
)

// odfTable reads the cells of one table (table:table) from its XML tokens: the text of
// each cell that has any, by column and row from 0, as far as keep allows. Repeated rows
// and columns (number-rows-repeated, number-columns-repeated) count as many as they say;
// a repeated row's cells are kept once, at its first row. Tables nested in cells are not
// its cells.
type odfTable struct {
	name                 string
	depth                int
	row, col             int
	rowRepeat, colRepeat int
	inCell               bool
	cellText             strings.Builder
	cells                map[[2]int]string
	// keep says whether a cell is kept (nil: all, up to odfMaxTableCells).
	keep func(col, row int) bool
}

// odfMaxTableCells bounds the cells a chart's own table keeps.
const odfMaxTableCells = 100_000

func newODFTable() *odfTable { return &odfTable{cells: map[[2]int]string{}} }

// odfRepeat is how many times a row or cell stands (its table:number-rows-repeated or
// number-columns-repeated, the attribute name): 1 where it is missing, not a number or
// below 1. The document's tables and a chart's cells read it alike.
func odfRepeat(t xml.StartElement, name string) int {
	n, err := strconv.Atoi(attr(t, name))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func (t *odfTable) start(e xml.StartElement) {
	if e.Name.Space == "table" {
		switch e.Name.Local {
		case "table":
			if t.depth++; t.depth == 1 {
				t.name, t.row = attr(e, "name"), 0
			}
			return
		case "table-row":
			if t.depth == 1 {
				t.rowRepeat, t.col = odfRepeat(e, "number-rows-repeated"), 0
			}
			return
		case "table-cell", "covered-table-cell":
			if t.depth == 1 {
				t.colRepeat, t.inCell = odfRepeat(e, "number-columns-repeated"), true
				t.cellText.Reset()
			}
			return
		}
	}
	if e.Name.Local == "p" && t.inCell && t.depth == 1 && t.cellText.Len() > 0 {
		t.cellText.WriteByte(' ')
	}
}

func (t *odfTable) end(e xml.EndElement) {
	if e.Name.Space != "table" {
		return
	}
	switch e.Name.Local {
	case "table":
		t.depth--
	case "table-row":
		if t.depth == 1 {
			t.row += t.rowRepeat
		}
	case "table-cell", "covered-table-cell":
		if t.depth != 1 {
			return
		}
		if s := strings.Join(strings.Fields(t.cellText.String()), " "); s != "" {
			for i := range min(t.colRepeat, maxRepeats) {
				if t.keep != nil && !t.keep(t.col+i, t.row) || t.keep == nil && len(t.cells) >= odfMaxTableCells {
					continue
				}
				t.cells[[2]int{t.col + i, t.row}] = s
			}
		}
		t.col += t.colRepeat
		t.inCell = false
	}
}

func (t *odfTable) text(data []byte) {
	if t.inCell && t.depth == 1 {
		t.cellText.Write(data)
	}
}

// odfSheetCells reads the cells of a spreadsheet's sheets that its charts name (a Calc
// chart's series' names and categories stand in the sheets, not in the chart), walking
// content.xml for the cells not read yet.
type odfSheetCells struct {
	a     *archive
	got   map[odfCellRef]string
	asked map[odfCellRef]bool
	walks int
}

// odfMaxSheetWalks bounds how many times a spreadsheet's content is walked for its charts'
// cells: charts past it read without names and categories from the sheets.
const odfMaxSheetWalks = 50

// load reads the cells of refs not read yet.
func (s *odfSheetCells) load(refs []odfCellRef) error {
	want := map[string]map[[2]int]bool{}
	for _, r := range refs {
		if s.asked[r] {
			continue
		}
		s.asked[r] = true
		if want[r.table] == nil {
			want[r.table] = map[[2]int]bool{}
		}
		want[r.table][[2]int{r.col, r.row}] = true
	}
	if len(want) == 0 || s.walks >= odfMaxSheetWalks {
		return nil
	}
	s.walks++
	var cur *odfTable // the sheet open
	err := s.a.walkXML("content.xml", func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			if cur == nil && t.Name.Space == "table" && t.Name.Local == "table" {
				if cells := want[attr(t, "name")]; cells != nil {
					cur = newODFTable()
					cur.keep = func(col, row int) bool { return cells[[2]int{col, row}] }
				}
			}
			if cur != nil {
				cur.start(t)
			}
		case xml.EndElement:
			if cur != nil {
				cur.end(t)
				if cur.depth == 0 {
					for k, v := range cur.cells {
						s.got[odfCellRef{cur.name, k[0], k[1]}] = v
					}
					cur = nil
				}
			}
		case xml.CharData:
			if cur != nil {
				cur.text(t)
			}
		}
		return nil
	})
	if errors.Is(err, ErrCorrupt) {
		return nil
	}
	return err
}
