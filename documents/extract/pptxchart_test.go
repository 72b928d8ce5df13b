package extract_test

import (
	"context"
	"strings"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

const chartNS = `xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

// chartFrame is a slide's graphic frame holding the chart its relationship id names.
func chartFrame(id string) string {
	return `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Chart"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><a:graphic>` +
		`<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="` + id + `"/></a:graphicData></a:graphic></p:graphicFrame>`
}

// series is a c:ser named name (by a cell reference's cache) over categories cats
// (a string cache, or a number cache of format code numFormat where it is not "").
func series(name, numFormat string, cats ...string) string {
	s := `<c:ser><c:idx val="0"/><c:order val="0"/>`
	if name != "" {
		s += `<c:tx><c:strRef><c:f>Sheet1!$B$1</c:f><c:strCache><c:ptCount val="1"/><c:pt idx="0"><c:v>` + name + `</c:v></c:pt></c:strCache></c:strRef></c:tx>`
	}
	cache := `<c:strRef><c:f>Sheet1!$A$2:$A$9</c:f><c:strCache>`
	end := `</c:strCache></c:strRef>`
	if numFormat != "" {
		cache = `<c:numRef><c:f>Sheet1!$A$2:$A$9</c:f><c:numCache><c:formatCode>` + numFormat + `</c:formatCode>`
		end = `</c:numCache></c:numRef>`
	}
	s += `<c:cat>` + cache
	for i, c := range cats {
		s += `<c:pt idx="` + string(rune('0'+i)) + `"><c:v>` + c + `</c:v></c:pt>`
	}
	s += end + `</c:cat><c:val><c:numRef><c:f>Sheet1!$B$2:$B$9</c:f><c:numCache><c:formatCode>General</c:formatCode><c:pt idx="0"><c:v>4.3</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>`
	return s
}

// chartTitle is a c:title of rich text paragraphs ("" paragraphs: a title with no text of
// its own).
func chartTitle(paras ...string) string {
	s := `<c:title>`
	if len(paras) > 0 {
		s += `<c:tx><c:rich><a:bodyPr/><a:p><a:pPr><a:defRPr/></a:pPr>` + strings.Join(paras, `</a:p><a:p>`) + `</a:p></c:rich></c:tx>`
	}
	return s + `<c:overlay val="0"/><c:txPr><a:bodyPr/><a:p><a:r><a:t>NOT SHOWN</a:t></a:r></a:p></c:txPr></c:title>`
}

// axes are a category axis (deleted, or its labels not drawn, as asked) and a value axis
// titled title.
func axes(catDeleted, noLabels bool, title string) string {
	del, pos := "0", "nextTo"
	if catDeleted {
		del = "1"
	}
	if noLabels {
		pos = "none"
	}
	s := `<c:catAx><c:axId val="1"/><c:scaling/><c:delete val="` + del + `"/><c:axPos val="b"/><c:tickLblPos val="` + pos + `"/></c:catAx><c:valAx><c:axId val="2"/><c:scaling/><c:delete val="0"/>`
	if title != "" {
		s += chartTitle(run(title))
	}
	return s + `<c:axPos val="l"/><c:numFmt formatCode="General" sourceLinked="1"/><c:tickLblPos val="nextTo"/></c:valAx>`
}

// chartDeck is a presentation of one slide titled "Results" whose chart's c:chart holds
// chart, before a text "After the chart".
func chartDeck(chart string) []byte {
	slide := `<p:sld ` + pmlNS + `><p:cSld><p:spTree>` + shape("title", run("Results")) + chartFrame("rId2") + shape("", run("After the chart")) + `</p:spTree></p:cSld></p:sld>`
	return ooxmlPackage("ppt/presentation.xml", presentType,
		testdocs.File{Name: "ppt/presentation.xml", Body: `<p:presentation ` + pmlNS + `><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`},
		testdocs.File{Name: "ppt/_rels/presentation.xml.rels", Body: rels("rId1", "slide slides/slide1.xml")},
		testdocs.File{Name: "ppt/slides/slide1.xml", Body: slide},
		testdocs.File{Name: "ppt/slides/_rels/slide1.xml.rels", Body: rels("rId2", "chart ../charts/chart1.xml")},
		testdocs.File{Name: "ppt/charts/chart1.xml", Body: `<c:chartSpace ` + chartNS + `><c:chart>` + chart + `</c:chart></c:chartSpace>`},
	)
}

// TestPPTXChart reads a chart as the words it shows on its slide: its title (or, untitled
// in words, its one series' name), axis titles, the series' names a legend shows and the
// categories its axis (a pie's legend) labels; not its numbers. ShapeCrawler's
// charts/001_bar_chart.pptx ("Bar Chart", three series over four categories) was refused
// as having no text.
func TestPPTXChart(t *testing.T) {
	legend := `<c:legend><c:legendPos val="r"/></c:legend>`
	bar := func(sers ...string) string {
		return `<c:barChart><c:barDir val="bar"/>` + strings.Join(sers, "") + `</c:barChart>`
	}
	for _, c := range []struct {
		name, chart, want string
	}{
		{"bar", chartTitle(run("Bar ")+run("Chart")) + `<c:autoTitleDeleted val="0"/><c:plotArea>` + bar(series("Series 1", "", "Category 1", "Category 2"), series("Series 2", "", "Category 1", "Category 2")) + axes(false, false, "Millions") + `</c:plotArea>` + legend,
			"Bar Chart\nMillions\nSeries 1\tSeries 2\nCategory 1\tCategory 2"},
		// a title of no text of its own shows the one series' name; no legend, no names
		{"auto title", chartTitle() + `<c:plotArea>` + bar(series("Sales", "", "North", "South")) + axes(false, false, "") + `</c:plotArea>`,
			"Sales\nNorth\tSouth"},
		// a deleted category axis, or one drawn without labels, shows no categories
		{"deleted axis", `<c:plotArea>` + bar(series("Sales", "", "North", "South")) + axes(true, false, "") + `</c:plotArea>` + legend, "Sales"},
		{"axis without labels", `<c:plotArea>` + bar(series("Sales", "", "North", "South")) + axes(false, true, "") + `</c:plotArea>` + legend, "Sales"},
		// a pie's legend lists its categories, not its series
		{"pie", chartTitle(run("Share")) + `<c:plotArea><c:pieChart><c:varyColors val="1"/>` + series("2024", "", "Tea", "Coffee") + `</c:pieChart></c:plotArea>` + legend,
			"Share\nTea\tCoffee"},
		// number categories in their cache's format (dates as ISO, as in sheets)
		{"date categories", `<c:plotArea><c:lineChart>` + series("Visits", `mmm\-yy`, "45292", "45323") + `</c:lineChart>` + axes(false, false, "") + `</c:plotArea>`,
			"2024-01-01\t2024-02-01"},
		// a markup-compatibility fallback is not read twice
		{"fallback", `<mc:AlternateContent><mc:Choice Requires="c14"><c14:style xmlns:c14="x" val="102"/></mc:Choice><mc:Fallback>` + chartTitle(run("OLD")) + `</mc:Fallback></mc:AlternateContent>` +
			chartTitle(run("New")) + `<c:plotArea>` + bar(series("", "", "A1")) + axes(false, false, "") + `</c:plotArea>`, "New\nA1"},
		// series filtered out of the chart (Office 2013's extension) are not drawn
		{"filtered series", `<c:plotArea>` + bar(series("Shown", "", "A1")) + axes(false, false, "") + `<c:extLst><c:ext uri="{02D57815-91ED-43cb-92C2-25804820EDAC}"><c15:filteredBarSeries xmlns:c15="x">` +
			series("Hidden", "", "B1") + `</c15:filteredBarSeries></c:ext></c:extLst></c:plotArea>` + legend, "Shown\nA1"},
		// a damaged chart reads as none; the slide's text is read
		{"damaged", chartTitle(run("Lost")) + `<c:plotArea><</c:plotArea>`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := c.want + "\n\nAfter the chart"
			if c.want == "" {
				want = "After the chart"
			}
			doc, err := extract.Bytes(context.Background(), "deck.pptx", chartDeck(c.chart), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "pptx", []extract.Section{{Heading: "Slide 1: Results", Text: want}})
		})
	}
}
