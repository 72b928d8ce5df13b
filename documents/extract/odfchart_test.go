package extract_test

import (
	"context"
	"strings"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

const odfChartNS = odfNS + ` xmlns:chart="urn:oasis:names:tc:opendocument:xmlns:chart:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0"`

// odfChartPart is an embedded chart's content.xml: styles, then a chart of class class
// holding body, then its own table of rows (cells apart by "|", the first row the header).
func odfChartPart(styles, class, body string, rows ...string) string {
	var table strings.Builder
	for i, r := range rows {
		if i == 0 {
			table.WriteString("<table:table-header-rows>")
		}
		table.WriteString("<table:table-row>")
		for _, c := range strings.Split(r, "|") {
			if c == "" {
				table.WriteString("<table:table-cell/>")
			} else {
				table.WriteString(`<table:table-cell office:value-type="string"><text:p>` + c + `</text:p></table:table-cell>`)
			}
		}
		table.WriteString("</table:table-row>")
		if i == 0 {
			table.WriteString("</table:table-header-rows><table:table-rows>")
		}
	}
	if len(rows) > 0 {
		table.WriteString("</table:table-rows>")
	}
	return `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfChartNS + `><office:automatic-styles>` + styles +
		`</office:automatic-styles><office:body><office:chart><chart:chart chart:class="` + class + `">` + body +
		`<table:table table:name="local-table">` + table.String() + `</table:table></chart:chart></office:chart></office:body></office:document-content>`
}

// TestODFChart reads an embedded chart (draw:object → Object N/content.xml of office:chart)
// as the words it shows, in the model of a DOCX's, slide's or sheet's chart: title and
// subtitle, axes' titles, series' names where a legend or data labels show them, categories
// where a category axis, a pie's legend or data labels do. Charts were skipped (odfdo's
// chart.odt: "Column 2", "Column 3", "Row 1"… not read; odftoolkit's chart_title_import
// ODS: "Manual Chart Title", "X Axis Title" not read).
func TestODFChart(t *testing.T) {
	bars := `<chart:plot-area><chart:axis chart:dimension="x"><chart:categories table:cell-range-address="local-table.$A$2:.$A$4"/></chart:axis>` +
		`<chart:axis chart:dimension="y"><chart:title><text:p>Euros</text:p></chart:title></chart:axis>` +
		`<chart:series chart:label-cell-address="local-table.$B$1" chart:values-cell-range-address="local-table.$B$2:.$B$4"/>` +
		`<chart:series chart:label-cell-address="local-table.$C$1" chart:values-cell-range-address="local-table.$C$2:.$C$4"/></chart:plot-area>`
	rows := []string{"|North|South", "Q1|10|20", "Q2|30|40", "Q3|50|60"}
	title := `<chart:title><text:p>Sales<text:line-break/>by quarter</text:p></chart:title><chart:subtitle><text:p>2026</text:p></chart:subtitle>`
	legend := `<chart:legend chart:legend-position="end"/>`
	frame := `<draw:frame><draw:object xlink:href="./Object 1" xlink:type="simple"/></draw:frame>`
	for _, c := range []struct{ name, chart, body, want string }{
		{"bars with a legend", odfChartPart("", "chart:bar", title+legend+bars, rows...),
			`<text:p>Before.</text:p><text:p>` + frame + `</text:p><text:p>After.</text:p>`,
			"Before.\n\nSales by quarter\n2026\nEuros\nNorth\tSouth\nQ1\tQ2\tQ3\n\nAfter."},
		{"in a sentence", odfChartPart("", "chart:bar", title+bars, rows...),
			`<text:p>See ` + frame + ` here.</text:p>`,
			"See\nSales by quarter\n2026\nEuros\nQ1\tQ2\tQ3\nhere."},
		// a pie's legend lists its categories; no axis is drawn
		{"pie", odfChartPart("", "chart:circle", legend+bars, rows...), `<text:p>` + frame + `</text:p>`,
			"Euros\nQ1\tQ2\tQ3"},
		// an axis whose style draws no labels, data labels that show series' names
		{"hidden axis, labels", odfChartPart(`<style:style style:name="ax"><style:chart-properties chart:display-label="false"/></style:style><style:style style:name="s1"><style:chart-properties chart:data-label-series="true"/></style:style>`,
			"chart:bar", strings.Replace(strings.Replace(bars, `dimension="x"`, `dimension="x" chart:style-name="ax"`, 1), `<chart:series `, `<chart:series chart:style-name="s1" `, 1), rows...),
			`<text:p>` + frame + `</text:p>`, "Euros\nNorth\tSouth"},
		// a scatter chart's x axis is of values, not categories
		{"scatter", odfChartPart("", "chart:scatter", legend+bars, rows...), `<text:p>` + frame + `</text:p>`,
			"Euros\nNorth\tSouth"},
		// categories stored as serial numbers under an axis of a date style read as dates
		// (calligraplan's ProjectPerformanceEffort.odt: "42856", "42857"…); a time style too
		{"date categories", odfChartPart(`<number:date-style style:name="N1"><number:day number:style="long"/><number:text>/</number:text><number:month number:style="long"/><number:text>/</number:text><number:year number:style="long"/></number:date-style>`+
			`<number:time-style style:name="N2"><number:hours/><number:text>:</number:text><number:minutes number:style="long"/></number:time-style><style:style style:name="ax" style:family="chart" style:data-style-name="N1"/><style:style style:name="ay" style:data-style-name="N2"/>`,
			"chart:line", strings.Replace(bars, `dimension="x"`, `dimension="x" chart:style-name="ax"`, 1), "|North|South", "42856|1|2", "42857.5|3|4", "total|5|6"),
			`<text:p>` + frame + `</text:p>`, "Euros\n2017-05-01\t2017-05-02\ttotal"},
		{"time categories", odfChartPart(`<number:time-style style:name="N2"><number:hours/><number:text>:</number:text><number:minutes number:style="long"/></number:time-style><style:style style:name="ax" style:data-style-name="N2"/>`,
			"chart:line", strings.Replace(bars, `dimension="x"`, `dimension="x" chart:style-name="ax"`, 1), "|North|South", "0.5|1|2", "0.75|3|4", "1|5|6"),
			`<text:p>` + frame + `</text:p>`, "Euros\n12:00\t18:00\t0:00"},
		// a slide's chart stands in no paragraph
		{"on a slide", odfChartPart("", "chart:bar", title, rows...), `<text:p>Text.</text:p>` + frame, "Text.\n\nSales by quarter\n2026"},
		// no chart: a damaged chart, one not in the archive, one linked from elsewhere
		{"damaged", `<office:document-content><office:body><chart:chart>`, `<text:p>Kept.` + frame + `</text:p>`, "Kept."},
		{"missing, linked", "", `<text:p>Kept.<draw:frame><draw:object xlink:href="./Object 7"/></draw:frame><draw:frame><draw:object xlink:href="http://example.com/Object 1"/></draw:frame></text:p>`, "Kept."},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := testdocs.Zip(
				testdocs.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text"},
				testdocs.File{Name: "content.xml", Body: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfChartNS + `><office:body><office:text>` + c.body + `</office:text></office:body></office:document-content>`},
				testdocs.File{Name: "Object 1/content.xml", Body: c.chart},
			)
			doc, err := extract.Bytes(context.Background(), "a.odt", data, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "odf", []extract.Section{{Text: c.want}})
		})
	}
}

// TestODSChart reads a spreadsheet's chart, whose series' names and categories stand in the
// sheets' cells ("Data.$B$1", "'My data'.$A$2:.$A$3"), under the cells of the sheet that holds
// it, as an XLSX's charts read. The values its data labels show are those cells too, and are
// not read twice.
func TestODSChart(t *testing.T) {
	chart := `<?xml version="1.0"?><office:document-content ` + odfChartNS + `><office:automatic-styles><style:style style:name="v"><style:chart-properties chart:data-label-number="value"/></style:style></office:automatic-styles><office:body><office:chart><chart:chart chart:class="chart:line">` +
		`<chart:title><text:p>Visits</text:p></chart:title><chart:legend/><chart:plot-area>` +
		`<chart:axis chart:dimension="x"><chart:categories table:cell-range-address="'My data'.$A$2:.$A$3"/></chart:axis><chart:axis chart:dimension="y"/>` +
		`<chart:series chart:style-name="v" chart:label-cell-address="'My data'.$B$1" chart:values-cell-range-address="'My data'.$B$2:.$B$3"/><chart:series chart:label-cell-address="'My data'.$C$1"/></chart:plot-area></chart:chart></office:chart></office:body></office:document-content>`
	sheet := `<table:table table:name="My data"><table:table-row><table:table-cell/><table:table-cell office:value-type="string"><text:p>Web</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>Shop</text:p></table:table-cell></table:table-row>` +
		`<table:table-row><table:table-cell office:value-type="string"><text:p>Monday</text:p></table:table-cell><table:table-cell table:number-columns-repeated="2" office:value-type="float" office:value="5"><text:p>5</text:p></table:table-cell></table:table-row>` +
		`<table:table-row><table:table-cell office:value-type="string"><text:p>Tuesday</text:p></table:table-cell><table:table-cell><draw:frame><draw:object xlink:href="./Object 1"/></draw:frame></table:table-cell><table:table-cell office:value-type="float" office:value="7"><text:p>7</text:p></table:table-cell></table:table-row></table:table>` +
		`<table:table table:name="Other"><table:table-row><table:table-cell office:value-type="string"><text:p>Note</text:p></table:table-cell></table:table-row></table:table>`
	data := testdocs.Zip(
		testdocs.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.spreadsheet"},
		testdocs.File{Name: "content.xml", Body: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfChartNS + `><office:body><office:spreadsheet>` + sheet + `</office:spreadsheet></office:body></office:document-content>`},
		testdocs.File{Name: "Object 1/content.xml", Body: chart},
	)
	doc, err := extract.Bytes(context.Background(), "a.ods", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "odf", []extract.Section{
		{Heading: "My data", Text: "Web\tShop\nMonday\t5\t5\nTuesday\t7\n\nVisits\nWeb\tShop\nMonday\tTuesday"},
		{Heading: "Other", Text: "Note"},
	})
}

// FuzzODFChart puts arbitrary XML into an embedded chart's content.xml, or into the content
// of a spreadsheet whose chart names its cells: each must be read or refused, never panic.
func FuzzODFChart(f *testing.F) {
	frame := `<draw:frame><draw:object xlink:href="./Object 1"/></draw:frame>`
	sheet := `<office:document-content ` + odfChartNS + `><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell table:number-columns-repeated="3"><text:p>a</text:p></table:table-cell><table:table-cell>` + frame + `</table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>`
	chart := odfChartPart(`<style:style style:name="s"><style:chart-properties chart:data-label-text="true"/></style:style>`, "chart:bar",
		`<chart:title><text:p>T</text:p></chart:title><chart:legend/><chart:plot-area><chart:axis chart:dimension="x"><chart:categories table:cell-range-address="S.$A$1:.$C$1 'S'.$A$2"/></chart:axis><chart:series chart:style-name="s" chart:label-cell-address="local-table.$B$1"/></chart:plot-area>`,
		"|x", "c|1")
	f.Add(uint8(0), chart)
	f.Add(uint8(1), sheet)
	f.Add(uint8(0), `<office:chart><chart:chart><chart:plot-area><chart:axis chart:dimension="x"><chart:categories table:cell-range-address="local-table.$A$1:.$ZZZZ$999999999"/></chart:axis></chart:plot-area><table:table><table:table-row table:number-rows-repeated="-5"><table:table-cell table:number-columns-repeated="99999999"><text:p>x</text:p></table:table-cell></table:table-row></table:table></chart:chart></office:chart>`)
	f.Add(uint8(0), odfChartPart(`<number:currency-style style:name="P"><number:currency-symbol>$</number:currency-symbol><number:number number:decimal-places="2" number:grouping="true"/></number:currency-style><number:number-style style:name="N"><number:text>-</number:text><number:fraction number:denominator-value="4"/><style:map style:condition="value()>=0" style:apply-style-name="P"/></number:number-style>`+
		`<style:style style:name="s" style:data-style-name="N"><style:chart-properties chart:data-label-number="value" chart:link-data-style-to-source="false"/></style:style><style:style style:name="x" style:data-style-name="N"/>`, "chart:bar",
		`<chart:plot-area><chart:axis chart:dimension="x" chart:style-name="x"><chart:categories table:cell-range-address="local-table.$A$2:.$A$3"/></chart:axis><chart:series chart:style-name="s" chart:values-cell-range-address="local-table.$B$2:.$B$3"><chart:data-point chart:repeated="99999999" chart:style-name="s"/></chart:series></chart:plot-area>`,
		"|x", "-1.5|1234.5", "2|-0.25"))
	f.Fuzz(func(t *testing.T, kind uint8, xml string) {
		content, object := sheet, chart
		if kind%2 == 0 {
			object = xml
		} else {
			content = xml
		}
		data := testdocs.Zip(
			testdocs.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.spreadsheet"},
			testdocs.File{Name: "content.xml", Body: content},
			testdocs.File{Name: "Object 1/content.xml", Body: object},
		)
		checkReadOrRefused(t, "a.ods", data)
	})
}
