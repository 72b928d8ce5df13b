package extract

import (
	"encoding/xml"
	"strings"
)

// A Word table's alt text: the title and description Word's Table Properties → Alt Text
// keeps (w:tblPr/w:tblCaption and w:tblDescription). Like a picture's description it is
// text the document holds for a reader who cannot see the table, and pandoc prints it as
// the table's caption after the table; EdgeChat writes the title and the description each
// as a paragraph after the table.

// startTableAlt notes a table's start, or adds its alt title or description.
func (w *wordWalker) startTableAlt(t xml.StartElement) {
	if t.Name.Space != "w" && t.Name.Space != "" {
		return
	}
	switch t.Name.Local {
	case "tbl":
		w.tableAlt = append(w.tableAlt, nil)
	case "tblCaption", "tblDescription":
		if n := len(w.tableAlt); n > 0 {
			if s := strings.Join(strings.Fields(attr(t, "val")), " "); s != "" {
				w.tableAlt[n-1] = append(w.tableAlt[n-1], s)
			}
		}
	}
}

// endTableAlt writes the alt text of the table that ends after it: into the cell around
// a nested table, else as paragraphs of their own.
func (w *wordWalker) endTableAlt(t xml.EndElement) {
	n := len(w.tableAlt)
	if n == 0 || t.Name.Space != "w" && t.Name.Space != "" {
		return
	}
	alt := w.tableAlt[n-1]
	w.tableAlt = w.tableAlt[:n-1]
	for _, s := range alt {
		if w.inCell() {
			w.cell().WriteString(s + " ")
		} else {
			w.out().WriteString(s + "\n\n")
		}
	}
}
