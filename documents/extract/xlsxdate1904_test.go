package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// TestXLSXDateSystem reads a workbook's date system from its own workbookPr, not from the
// extension of the same name Excel 2013 and later write after the sheets
// (x15:workbookPr chartTrackingRefBase="1"), which set it back to 1900: SheetJS's
// 1904_1904.xlsx read serial 1 as 1900-01-01, where Excel shows 1904-01-02.
func TestXLSXDateSystem(t *testing.T) {
	const ext = `<extLst><ext uri="{140A7094-0E35-4892-8432-C4D2E57EDEB5}" xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main"><x15:workbookPr chartTrackingRefBase="1"/></ext></extLst>`
	styles := `<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd;@"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs>`
	for _, c := range []struct{ name, workbook, want string }{
		{"1904 with extension", `<workbookPr date1904="1"/><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets>` + ext, "1904-01-02\t1934-06-03"},
		{"1904 alone", `<workbookPr date1904="true"/><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets>`, "1904-01-02\t1934-06-03"},
		{"1900 with extension", `<workbookPr/><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets>` + ext, "1900-01-01\t1930-06-02"},
		// an extension that names the attribute is still not the workbook's own
		{"1900, extension says 1904", `<workbookPr/><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets><extLst><ext><x:workbookPr xmlns:x="urn:x" date1904="1"/></ext></extLst>`, "1900-01-01\t1930-06-02"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := ooxmlPackage("xl/workbook.xml", sheetType,
				testdocs.File{Name: "xl/workbook.xml", Body: `<workbook ` + ssNS + `>` + c.workbook + `</workbook>`},
				testdocs.File{Name: "xl/_rels/workbook.xml.rels", Body: rels("rId1", "worksheet worksheets/sheet1.xml", "rT", "styles styles.xml")},
				testdocs.File{Name: "xl/styles.xml", Body: `<styleSheet ` + ssNS + `>` + styles + `</styleSheet>`},
				testdocs.File{Name: "xl/worksheets/sheet1.xml", Body: sheet(`<row r="1"><c r="A1" s="1"><v>1</v></c><c r="B1" s="1"><v>11111</v></c></row>`)},
			)
			doc, err := extract.Bytes(context.Background(), "book.xlsx", data, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "xlsx", []extract.Section{{Heading: "S", Text: c.want}})
		})
	}
}
