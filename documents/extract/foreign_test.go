package extract_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/documents/extract"
)

// TestHTMLForeignContent reads the text of inline SVG drawings (IDPF's sous-le-vent.epub
// draws every line of its pages as SVG text: recall 0.015 when it was skipped) and of
// formulas (MathML), both of which pandoc reads, and of an EPUB 3.0 epub:switch the form
// that pandoc and a reading system that renders MathML and SVG show.
func TestHTMLForeignContent(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{
			name: "svg lines",
			body: `<p>Before</p><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs/><style type="text/css"><![CDATA[.a {font-size:9px}]]></style>` +
				`<g><text transform="matrix(1 0 0 1 5 10)"><tspan x="0,5,9" y="0">Sirop de Liège</tspan><tspan x="48" y="0">, éditions Estuaire.</tspan>` +
				`<tspan x="0" y="11.7">Féroces Tropiques, </tspan><tspan x="53" y="11.7">av</tspan><tspan x="61" y="11.7">ec Thierry.</tspan></text>` +
				`<text><tspan x="0" y="0">l’histoire res-</tspan><tspan x="0" y="12">tait toujours</tspan><tspan x="0" dy="12">Jean -</tspan><tspan dy="0">Claude</tspan><tspan dy="1em">next</tspan></text></g></svg><p>After</p>`,
			want: "Before\n\nSirop de Liège, éditions Estuaire.\nFéroces Tropiques, avec Thierry.\n\nl’histoire res-tait toujours\nJean -Claude\nnext\n\nAfter",
		},
		{
			name: "svg not drawn",
			body: `<p>Map<svg><title>TOOLTIP</title><desc>DESCRIPTION</desc><metadata><rdf:RDF><dc:format>image/svg+xml</dc:format></rdf:RDF></metadata>` +
				`<script>var s = "SCRIPT"</script><text x="1" y="2">Paris</text><image href="m.png"/><foreignObject width="9" height="9"><p>Held <b>inside</b></p></foreignObject><svg/></svg> ends.</p>`,
			want: "Map\nParis\n\nHeld inside\nends.",
		},
		{
			name: "math",
			body: `<p>Energy <math xmlns="http://www.w3.org/1998/Math/MathML" alttext="Alternative text not available">
  <semantics><mrow><mi>E</mi> <mo>=</mo>
  <mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></mrow>
  <annotation encoding="application/x-tex">E=mc^2</annotation><annotation-xml encoding="MathML-Content"><apply><eq/><ci>E</ci></apply></annotation-xml></semantics></math> holds.</p>` +
				`<math display="block"><mi>f</mi><mo>=</mo><mn>1</mn><mtext>if x</mtext><mo>&gt;</mo><mn>0</mn></math><p>Done.</p>`,
			want: "Energy E=mc2 holds.\n\nf=1 if x >0\n\nDone.",
		},
		{
			// a matrix's cells kept apart (readium's Tiny-MathML: "((abcd)(efgh)0(ijkl))" and a
			// table of Greek letters read as one word)
			name: "matrix",
			body: `<p>M = <math><mrow><mo>(</mo><mtable><mtr><mtd><mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr><mtr><mtd><msub><mi>c</mi><mn>1</mn></msub></mtd><mtd><mn>0</mn></mtd></mtr></mtable><mo>)</mo></mrow></math>, and <m:math xmlns:m="m"><m:mtable><m:mlabeledtr><m:mtd><m:mtext>(1)</m:mtext></m:mtd><m:mtd><m:mi>x</m:mi><m:mo>=</m:mo><m:mn>2</m:mn></m:mtd></m:mlabeledtr></m:mtable></m:math>.</p>`,
			want: "M = ( a b c1 0 ), and (1) x=2 .",
		},
		{
			// pandoc's features.epub: a prefixed formula read as text, "2\u2061x" with its invisible times
			name: "prefixed",
			body: `<p>Sum <m:math xmlns:m="http://www.w3.org/1998/Math/MathML"><m:mrow><m:mn>2</m:mn><m:mo> &#x2061;</m:mo><m:mi>x</m:mi></m:mrow>` +
				`<m:annotation>2x</m:annotation></m:math> and <svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:title>T</svg:title><svg:text>drawn</svg:text></svg:svg>.</p>`,
			want: "Sum 2x and\ndrawn\n.",
		},
		{
			// IDPF's switch tests (pandoc's features.epub): the first case in MathML or SVG, else
			// the default; "FAIL" marks what a reading system leaves out
			name: "epub:switch",
			body: `<p>One</p><epub:switch><epub:case required-namespace="http://example.com/unsupported"><p>FAIL</p><epub:case><p>FAIL</p></epub:case></epub:case>` +
				`<epub:default><p>PASS</p></epub:default></epub:switch>` +
				`<epub:switch><epub:case required-namespace="http://www.w3.org/1998/Math/MathML"><math><mi>x</mi></math></epub:case>` +
				`<epub:case required-namespace="http://www.w3.org/2000/svg"><p>FAIL</p></epub:case><epub:default><p>FAIL</p></epub:default></epub:switch><p>Two</p>` +
				`<epub:case required-namespace="http://www.w3.org/2000/svg"><p>Stray</p></epub:case>`,
			want: "One\n\nPASS\nx\nTwo\n\nStray",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := extract.Bytes(context.Background(), "page.xhtml", []byte(`<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>T</title></head><body>`+tt.body+`</body></html>`), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for i, s := range doc.Sections {
				if i > 0 {
					got += "|"
				}
				if s.Heading != "" && s.Heading != s.Text {
					got += s.Heading + "|"
				}
				got += s.Text
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}
