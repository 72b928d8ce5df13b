package extract_test

import (
	"context"
	"strings"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// TestODFChartValueLabels reads the values an ODF chart's data labels show
// (chart:data-label-number="value" in a series' or a data point's style), a line a series,
// drawn by the style's data style where it does not take the cells' own; they were left
// out (odftoolkit's chart_series_import ODS: the labels "10 10 15 10" not read).
// odtWithChart is a text document of body then a paragraph of a frame holding the chart
// whose content.xml is chart ("Object 1").
func odtWithChart(body, chart string) []byte {
	return testdocs.Zip(
		testdocs.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text"},
		testdocs.File{Name: "content.xml", Body: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfChartNS + `><office:body><office:text>` + body + `<text:p><draw:frame><draw:object xlink:href="./Object 1"/></draw:frame></text:p></office:text></office:body></office:document-content>`},
		testdocs.File{Name: "Object 1/content.xml", Body: chart},
	)
}

func TestODFChartValueLabels(t *testing.T) {
	plot := `<chart:plot-area><chart:axis chart:dimension="x" chart:style-name="hide"><chart:categories table:cell-range-address="local-table.$A$2:.$A$4"/></chart:axis>` +
		`<chart:series chart:style-name="s1" chart:values-cell-range-address="local-table.$B$2:.$B$4">%s</chart:series>` +
		`<chart:series chart:style-name="s2" chart:values-cell-range-address="local-table.$C$2:.$C$4"/></chart:plot-area>`
	hide := `<style:style style:name="hide"><style:chart-properties chart:display-label="false"/></style:style>`
	pct := `<number:percentage-style style:name="N5"><number:number number:decimal-places="1" number:min-integer-digits="1"/><number:text>%</number:text></number:percentage-style>`
	rows := []string{"|North|South", "Q1|0.1|20", "Q2|0.25|40", "Q3|0.5|60"}
	for _, c := range []struct{ name, styles, points, want string }{
		{"series labels", `<style:style style:name="s1"><style:chart-properties chart:data-label-number="value"/></style:style>`, "", "0.1\t0.25\t0.5"},
		{"both series, value and percentage", `<style:style style:name="s1"><style:chart-properties chart:data-label-number="value-and-percentage"/></style:style><style:style style:name="s2"><style:chart-properties chart:data-label-number="value"/></style:style>`, "",
			"0.1\t0.25\t0.5\n20\t40\t60"},
		{"one point's label", `<style:style style:name="p"><style:chart-properties chart:data-label-number="value"/></style:style>`,
			`<chart:data-point chart:repeated="2"/><chart:data-point chart:style-name="p"/>`, "0.5"},
		{"a point without the series' label", `<style:style style:name="s1"><style:chart-properties chart:data-label-number="value"/></style:style><style:style style:name="p"><style:chart-properties chart:data-label-number="none"/></style:style>`,
			`<chart:data-point chart:style-name="p"/><chart:data-point chart:repeated="2"/>`, "0.25\t0.5"},
		{"the style's own data style", pct + `<style:style style:name="s1" style:data-style-name="N5"><style:chart-properties chart:data-label-number="value" chart:link-data-style-to-source="false"/></style:style>`, "",
			"10.0%\t25.0%\t50.0%"},
		{"the source's data style", pct + `<style:style style:name="s1" style:data-style-name="N5"><style:chart-properties chart:data-label-number="value" chart:link-data-style-to-source="true"/></style:style>`, "",
			"0.1\t0.25\t0.5"},
		{"percentages only", `<style:style style:name="s1"><style:chart-properties chart:data-label-number="percentage"/></style:style>`, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			chart := odfChartPart(hide+c.styles, "chart:bar", strings.Replace(plot, "%s", c.points, 1), rows...)
			doc, err := extract.Bytes(context.Background(), "a.odt", odtWithChart(`<text:p>Chart.</text:p>`, chart), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := "Chart."
			if c.want != "" {
				want += "\n\n" + c.want
			}
			checkSections(t, doc, "odf", []extract.Section{{Text: want}})
		})
	}
}
