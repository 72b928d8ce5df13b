package extract_test

import (
	"context"
	"strings"
	"testing"

	"edgechat/documents/extract"
)

// TestODFChartNumberStyles draws a chart's numeric categories by its category axis's data
// style, as LibreOffice shows them: number styles of decimals and thousands, percentages,
// currencies (with the map LibreOffice writes for positive numbers), scientific numbers.
// Only date and time styles were applied ("0.25" for "25%"); General leaves a number as it
// stands.
func TestODFChartNumberStyles(t *testing.T) {
	axis := `<chart:plot-area><chart:axis chart:dimension="x" chart:style-name="ax"><chart:categories table:cell-range-address="local-table.$A$2:.$A$4"/></chart:axis>` +
		`<chart:series chart:label-cell-address="local-table.$B$1" chart:values-cell-range-address="local-table.$B$2:.$B$4"/></chart:plot-area>`
	for _, c := range []struct{ name, style, a, b, cc, want string }{
		{"decimals and thousands", `<number:number-style style:name="N1"><number:number number:decimal-places="2" number:min-integer-digits="1" number:grouping="true"/></number:number-style>`,
			"1234.5", "0.125", "-7", "1,234.50\t0.13\t-7.00"},
		{"percentage", `<number:percentage-style style:name="N1"><number:number number:decimal-places="0" number:min-integer-digits="1"/><number:text>%</number:text></number:percentage-style>`,
			"0.25", "0.5", "1", "25%\t50%\t100%"},
		{"currency with a map", `<number:currency-style style:name="N1P0" style:volatile="true"><number:currency-symbol number:language="de" number:country="DE">€</number:currency-symbol><number:text> </number:text><number:number number:decimal-places="2" number:min-integer-digits="1" number:grouping="true"/></number:currency-style>` +
			`<number:currency-style style:name="N1"><style:text-properties fo:color="#ff0000"/><number:text>-</number:text><number:currency-symbol>€</number:currency-symbol><number:text> </number:text><number:number number:decimal-places="2" number:min-integer-digits="1" number:grouping="true"/><style:map style:condition="value()&gt;=0" style:apply-style-name="N1P0"/></number:currency-style>`,
			"1500", "-2.5", "0", "€ 1,500.00\t-€ 2.50\t€ 0.00"},
		{"scientific", `<number:number-style style:name="N1"><number:scientific-number number:decimal-places="2" number:min-integer-digits="1" number:min-exponent-digits="2"/></number:number-style>`,
			"12345", "0.001", "x", "1.23E+04\t1.00E-03\tx"},
		{"literal text", `<number:number-style style:name="N1"><number:number number:decimal-places="1" number:min-integer-digits="1"/><number:text> km</number:text></number:number-style>`,
			"3", "4.25", "5", "3.0 km\t4.3 km\t5.0 km"},
		{"general", `<number:number-style style:name="N1"><number:number number:min-integer-digits="1"/></number:number-style>`,
			"42856", "0.5", "7", "42856\t0.5\t7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			chart := odfChartPart(c.style+`<style:style style:name="ax" style:family="chart" style:data-style-name="N1"/>`, "chart:bar", axis,
				"|Sales", c.a+"|1", c.b+"|2", c.cc+"|3")
			doc, err := extract.Bytes(context.Background(), "a.odt", odtWithChart("", strings.Replace(chart, "<office:document-content ", `<office:document-content xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" `, 1)), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "odf", []extract.Section{{Text: c.want}})
		})
	}
}
