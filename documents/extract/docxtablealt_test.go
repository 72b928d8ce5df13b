package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
)

// TestDOCXTableAltText reads a table's alt text (w:tblCaption, w:tblDescription) after the
// table, as pandoc prints it (NPOI's table_properties.docx, OfficeIMO's
// TableExamples.docx: the title and description were left out).
func TestDOCXTableAltText(t *testing.T) {
	row := func(cells ...string) string {
		s := `<w:tr>`
		for _, c := range cells {
			s += `<w:tc><w:p>` + wordRun(c) + `</w:p></w:tc>`
		}
		return s + `</w:tr>`
	}
	table := func(pr string, rows ...string) string {
		s := `<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/>` + pr + `</w:tblPr>`
		for _, r := range rows {
			s += r
		}
		return s + `</w:tbl>`
	}
	for _, c := range []struct{ name, body, want string }{
		{"title and description",
			table(`<w:tblCaption w:val="Table Title"/><w:tblDescription w:val="Table  Description"/>`, row("Header 1", "Header 2")),
			"Header 1\tHeader 2\n\nTable Title\n\nTable Description"},
		{"title only, text after",
			table(`<w:tblCaption w:val="#TESTTABLE#"/>`, row("Table Header")) + `<w:p>` + wordRun("After.") + `</w:p>`,
			"Table Header\n\n#TESTTABLE#\n\nAfter."},
		{"none", table(``, row("a", "b")), "a\tb"},
		{"empty value", table(`<w:tblCaption w:val=" "/>`, row("a")), "a"},
		// a nested table's alt text stays in the cell that holds it
		{"nested",
			`<w:tbl><w:tr><w:tc>` + table(`<w:tblDescription w:val="inner alt"/>`, row("x")) + `<w:p/></w:tc><w:tc><w:p>` + wordRun("y") + `</w:p></w:tc></w:tr></w:tbl>`,
			"x inner alt\ty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := extract.Bytes(context.Background(), "a.docx", wordBody(c.body), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "docx", []extract.Section{{Text: c.want}})
		})
	}
}
