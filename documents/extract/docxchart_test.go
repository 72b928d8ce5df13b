package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// TestDOCXChart reads a Word document's chart where its drawing stands, as the words the
// chart shows (as a slide's chart reads: TestPPTXChart); a chart whose part is missing or
// damaged, or one only a fallback repeats, costs only itself.
func TestDOCXChart(t *testing.T) {
	para := func(s string) string { return `<w:p><w:r><w:t>` + s + `</w:t></w:r></w:p>` }
	drawing := func(id string) string {
		return `<w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:docPr id="1" name="Chart 1"/>` +
			`<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">` +
			`<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="` + id + `"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`
	}
	chart := func(body string) string {
		return `<c:chartSpace ` + chartNS + `><c:chart>` + body + `</c:chart></c:chartSpace>`
	}
	bar := `<c:plotArea><c:barChart><c:barDir val="col"/>` + series("2024", "", "North", "South") + series("2025", "", "North", "South") + `</c:barChart>` + axes(false, false, "Tonnes") + `</c:plotArea><c:legend/>`
	for _, c := range []struct {
		name, body, want string
	}{
		{"own paragraph", para("Before.") + `<w:p>` + drawing("rId1") + `</w:p>` + para("After."),
			"Before.\n\nHarvest\nTonnes\n2024\t2025\nNorth\tSouth\n\nAfter."},
		{"after text in its paragraph", `<w:p><w:r><w:t>Figure 1:</w:t></w:r>` + drawing("rId1") + `<w:r><w:t>as sold.</w:t></w:r></w:p>`,
			"Figure 1:\nHarvest\nTonnes\n2024\t2025\nNorth\tSouth\nas sold."},
		{"missing part", para("Before.") + `<w:p>` + drawing("rId2") + `</w:p>` + para("After."), "Before.\n\nAfter."},
		{"damaged part", para("Before.") + `<w:p>` + drawing("rId3") + `</w:p>` + para("After."), "Before.\n\nAfter."},
		{"fallback only", para("Before.") + `<mc:AlternateContent><mc:Choice Requires="x"/><mc:Fallback><w:p>` + drawing("rId1") + `</w:p></mc:Fallback></mc:AlternateContent>` + para("After."),
			"Before.\n\nAfter."},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := testdocs.Zip(
				testdocs.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><w:document ` + wordNS + ` xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>` + c.body + `</w:body></w:document>`},
				testdocs.File{Name: "word/_rels/document.xml.rels", Body: rels("rId1", "chart charts/chart1.xml", "rId2", "chart charts/chart9.xml", "rId3", "chart charts/chart3.xml")},
				testdocs.File{Name: "word/charts/chart1.xml", Body: chart(chartTitle(run("Harvest")) + bar)},
				testdocs.File{Name: "word/charts/chart3.xml", Body: chart(chartTitle(run("Lost")) + `<c:plotArea><</c:plotArea>`)},
			)
			doc, err := extract.Bytes(context.Background(), "report.docx", data, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "docx", []extract.Section{{Text: c.want}})
		})
	}
}
