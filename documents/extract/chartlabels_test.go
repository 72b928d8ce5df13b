package extract_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"edgechat/documents/extract"
)

// valueSeries is a c:ser of no name whose values' cache (format code code) holds vals
// ("" for a point left out), with labels (a c:dLbls, or "") before them.
func valueSeries(labels, code string, vals ...string) string {
	s := `<c:ser><c:idx val="0"/><c:order val="0"/>` + labels + `<c:val><c:numRef><c:f>Sheet1!$B$2:$B$9</c:f><c:numCache><c:formatCode>` + code + `</c:formatCode>`
	for i, v := range vals {
		if v != "" {
			s += `<c:pt idx="` + strconv.Itoa(i) + `"><c:v>` + v + `</c:v></c:pt>`
		}
	}
	return s + `</c:numCache></c:numRef></c:val></c:ser>`
}

// TestChartValueLabels reads the values a DrawingML chart's data labels show (c:showVal:
// a series', or its group's for series without their own; one point's c:dLbl), a line a
// series, in the labels' own format (sourceLinked="0") or the cache's. They were left out
// (rust_xlsxwriter's chart_data_labels01.xlsx: "1 2 3 4 5" and "2 4 6 8 10" not read).
func TestChartValueLabels(t *testing.T) {
	show := `<c:dLbls><c:showLegendKey val="0"/><c:showVal val="1"/><c:showCatName val="0"/></c:dLbls>`
	for _, c := range []struct{ name, plot, want string }{
		{"a series' labels", `<c:barChart>` + valueSeries(show, "General", "1", "2.5", "3") + valueSeries("", "General", "7", "8") + `</c:barChart>`, "1\t2.5\t3"},
		{"the group's labels", `<c:barChart>` + valueSeries("", "General", "1", "2") + valueSeries(`<c:dLbls><c:showVal val="0"/></c:dLbls>`, "General", "7", "8") + valueSeries("", "General", "", "5") + show + `</c:barChart>`,
			"1\t2\n5"},
		{"one point on, one off", `<c:lineChart>` + valueSeries(`<c:dLbls><c:dLbl><c:idx val="1"/><c:showVal val="1"/></c:dLbl><c:showVal val="0"/></c:dLbls>`, "General", "1", "2", "3") +
			valueSeries(`<c:dLbls><c:dLbl><c:idx val="0"/><c:delete val="1"/></c:dLbl><c:showVal val="1"/></c:dLbls>`, "General", "4", "5", "6") + `</c:lineChart>`, "2\n5\t6"},
		{"the labels' format", `<c:pieChart>` + valueSeries(`<c:dLbls><c:numFmt formatCode="0.0%" sourceLinked="0"/><c:showVal val="1"/></c:dLbls>`, "General", "0.25", "0.75") + `</c:pieChart>`, "25.0%\t75.0%"},
		{"the cache's format", `<c:barChart>` + valueSeries(`<c:dLbls><c:numFmt formatCode="0.0%" sourceLinked="1"/><c:showVal val="1"/></c:dLbls>`, `#,##0`, "1234", "56789.4") + `</c:barChart>`, "1,234\t56,789"},
		{"deleted labels", `<c:barChart>` + valueSeries(`<c:dLbls><c:delete val="1"/></c:dLbls>`, "General", "1", "2") + `</c:barChart>`, ""},
		{"text properties only", `<c:barChart>` + valueSeries(`<c:dLbls><c:txPr><a:bodyPr/><c:showVal val="1"/></c:txPr></c:dLbls>`, "General", "1", "2") + `</c:barChart>`, ""},
		{"a scatter's y values", `<c:scatterChart><c:ser><c:idx val="0"/><c:order val="0"/>` + show + `<c:xVal><c:numRef><c:numCache><c:pt idx="0"><c:v>10</c:v></c:pt></c:numCache></c:numRef></c:xVal><c:yVal><c:numRef><c:numCache><c:formatCode>0.00</c:formatCode><c:pt idx="0"><c:v>3</c:v></c:pt></c:numCache></c:numRef></c:yVal></c:ser></c:scatterChart>`, "3.00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := strings.TrimPrefix(c.want+"\n\nAfter the chart", "\n\n")
			doc, err := extract.Bytes(context.Background(), "deck.pptx", chartDeck(`<c:plotArea>`+c.plot+`</c:plotArea>`), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "pptx", []extract.Section{{Heading: "Slide 1: Results", Text: want}})
		})
	}
}
