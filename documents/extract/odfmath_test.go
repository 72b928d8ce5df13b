package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// TestODFMath reads LibreOffice Math formulas, embedded objects of their own, where they
// stand, as MathML in an EPUB reads (pandoc's formula.odt was read as no text).
func TestODFMath(t *testing.T) {
	const mathNS = `xmlns="http://www.w3.org/1998/Math/MathML"`
	energy := `<?xml version="1.0" encoding="UTF-8"?><math ` + mathNS + `><semantics><mrow><mi>E</mi><mo stretchy="false">=</mo><mrow><mi>m</mi><mo>⋅</mo><msup><mi>c</mi><mn>2</mn></msup></mrow></mrow><annotation encoding="StarMath 5.0">E = m cdot c^2</annotation></semantics></math>`
	words := `<math ` + mathNS + `><semantics><mrow><mi>f</mi><mo>&#x2061;</mo><mo>(</mo><mi>x</mi><mo>)</mo><mtext> if  x is even</mtext></mrow><annotation-xml encoding="MathML-Content"><ci>NOT READ</ci></annotation-xml></semantics></math>`
	chart := `<?xml version="1.0"?><office:document-content ` + odfNS + `><office:body><office:chart><text:p>CHART TITLE</text:p></office:chart></office:body></office:document-content>`
	frame := func(href string) string {
		return `<draw:frame text:anchor-type="as-char"><draw:object xlink:href="` + href + `" xlink:type="simple"/><draw:image xlink:href="./ObjectReplacements/Object 1"/></draw:frame>`
	}
	for _, c := range []struct{ name, body, want string }{
		{"in a sentence", `<text:p>Einstein:` + frame("./Object 1") + `, famously.</text:p>`, "Einstein: E=m⋅c2, famously."},
		{"alone", `<text:p>` + frame("Object 1/") + `</text:p><text:p>` + frame("./Object 2") + `</text:p>`, "E=m⋅c2\n\nf(x) if x is even"},
		// a chart, an object not in the archive, one linked from elsewhere: nothing
		{"not formulas", `<text:p>Sales` + frame("./Object 3") + frame("./Object 9") + frame("http://example.com/Object 1") + `</text:p>`, "Sales"},
		// MathML written into the text, as a flat ODT holds it
		{"inline", `<text:p>Where <draw:frame><draw:object>` + words + `</draw:object></draw:frame>holds.</text:p>`, "Where f(x) if x is even holds."},
		// a matrix's cells apart, not one word ("ab c0")
		{"matrix", `<text:p>Let <draw:frame><draw:object><math ` + mathNS + `><mtable><mtr><mtd><mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr><mtr><mtd><mi>c</mi></mtd><mtd><mn>0</mn></mtd></mtr></mtable></math></draw:object></draw:frame> be.</text:p>`, "Let a b c 0 be."},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := testdocs.Zip(
				testdocs.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text"},
				testdocs.File{Name: "content.xml", Body: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS + ` xmlns:xlink="http://www.w3.org/1999/xlink"><office:body><office:text>` + c.body + `</office:text></office:body></office:document-content>`},
				testdocs.File{Name: "Object 1/content.xml", Body: energy},
				testdocs.File{Name: "Object 2/content.xml", Body: words},
				testdocs.File{Name: "Object 3/content.xml", Body: chart},
			)
			doc, err := extract.Bytes(context.Background(), "a.odt", data, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "odf", []extract.Section{{Text: c.want}})
		})
	}
}
