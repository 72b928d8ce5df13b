package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// TestXLSXChart reads a worksheet's charts under its cells, and a chart sheet's chart under
// the sheet's name, as the words they show (as a slide's chart reads: TestPPTXChart); a
// drawing or chart that is missing or damaged costs only itself, and a chart sheet whose
// chart shows nothing is no section. The values its data labels show are the sheet's cells,
// read already, and are not read again (xlsxwriter's chart files: precision 1.000 → 0.762
// against xlsx2csv when they were).
func TestXLSXChart(t *testing.T) {
	frame := func(id string) string {
		return `<xdr:graphicFrame><xdr:nvGraphicFramePr><xdr:cNvPr id="2" name="Chart 1"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr><a:graphic>` +
			`<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="` + id + `"/></a:graphicData></a:graphic></xdr:graphicFrame>`
	}
	drawing := func(frames ...string) string {
		s := `<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="` + relNS + `" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">`
		for _, f := range frames {
			s += `<xdr:twoCellAnchor><xdr:from/><xdr:to/>` + f + `<xdr:clientData/></xdr:twoCellAnchor>`
		}
		return s + `</xdr:wsDr>`
	}
	chart := func(body string) string {
		return `<c:chartSpace ` + chartNS + `><c:chart>` + body + `</c:chart></c:chartSpace>`
	}
	line := `<c:plotArea><c:lineChart>` + series("Visits", "", "Mon", "Tue") + `<c:dLbls><c:showVal val="1"/></c:dLbls></c:lineChart>` + axes(false, false, "") + `</c:plotArea><c:legend/>`
	data := ooxmlPackage("xl/workbook.xml", sheetType,
		testdocs.File{Name: "xl/workbook.xml", Body: `<workbook ` + ssNS + `><sheets><sheet name="Data" sheetId="1" r:id="rId1"/><sheet name="Trend" sheetId="2" r:id="rId2"/><sheet name="Broken" sheetId="3" r:id="rId3"/><sheet name="Last" sheetId="4" r:id="rId4"/></sheets></workbook>`},
		testdocs.File{Name: "xl/_rels/workbook.xml.rels", Body: rels("rId1", "worksheet worksheets/sheet1.xml", "rId2", "chartsheet chartsheets/sheet1.xml", "rId3", "chartsheet chartsheets/sheet2.xml", "rId4", "worksheet worksheets/sheet2.xml")},
		testdocs.File{Name: "xl/worksheets/sheet1.xml", Body: `<worksheet ` + ssNS + `><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Day</t></is></c><c r="B1"><v>4</v></c></row></sheetData><drawing r:id="rId1"/></worksheet>`},
		testdocs.File{Name: "xl/worksheets/_rels/sheet1.xml.rels", Body: rels("rId1", "drawing ../drawings/drawing1.xml")},
		// the second frame's chart is missing; a fallback's chart is not read twice
		testdocs.File{Name: "xl/drawings/drawing1.xml", Body: drawing(frame("rId1"), frame("rId2"), `<mc:AlternateContent><mc:Choice Requires="x"/><mc:Fallback>`+frame("rId1")+`</mc:Fallback></mc:AlternateContent>`)},
		testdocs.File{Name: "xl/drawings/_rels/drawing1.xml.rels", Body: rels("rId1", "chart ../charts/chart1.xml", "rId2", "chart ../charts/chart9.xml")},
		testdocs.File{Name: "xl/charts/chart1.xml", Body: chart(chartTitle(run("Weekly")) + line)},
		testdocs.File{Name: "xl/chartsheets/sheet1.xml", Body: `<chartsheet ` + ssNS + `><drawing r:id="rId1"/></chartsheet>`},
		testdocs.File{Name: "xl/chartsheets/_rels/sheet1.xml.rels", Body: rels("rId1", "drawing ../drawings/drawing2.xml")},
		testdocs.File{Name: "xl/drawings/drawing2.xml", Body: drawing(frame("rId1"))},
		testdocs.File{Name: "xl/drawings/_rels/drawing2.xml.rels", Body: rels("rId1", "chart ../charts/chart2.xml")},
		testdocs.File{Name: "xl/charts/chart2.xml", Body: chart(chartTitle(run("Share")) + `<c:plotArea><c:pieChart>` + series("2024", "", "Tea", "Coffee") + `</c:pieChart></c:plotArea><c:legend/>`)},
		// a chart sheet whose drawing is damaged
		testdocs.File{Name: "xl/chartsheets/sheet2.xml", Body: `<chartsheet ` + ssNS + `><drawing r:id="rId1"/></chartsheet>`},
		testdocs.File{Name: "xl/chartsheets/_rels/sheet2.xml.rels", Body: rels("rId1", "drawing ../drawings/drawing3.xml")},
		testdocs.File{Name: "xl/drawings/drawing3.xml", Body: `<xdr:wsDr><<`},
		testdocs.File{Name: "xl/worksheets/sheet2.xml", Body: `<worksheet ` + ssNS + `><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>End</t></is></c></row></sheetData></worksheet>`},
	)
	doc, err := extract.Bytes(context.Background(), "book.xlsx", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "xlsx", []extract.Section{
		{Heading: "Data", Text: "Day\t4\n\nWeekly\nVisits\nMon\tTue"},
		{Heading: "Trend", Text: "Share\nTea\tCoffee"},
		{Heading: "Last", Text: "End"},
	})
}
