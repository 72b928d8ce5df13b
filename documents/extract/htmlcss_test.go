package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
)

// TestHTMLListStyles reads the markers CSS gives lists (list-style-type, list-style) from
// the style attribute and from simple rules of the page's style elements, as a browser
// draws them: the most specific rule wins, the style attribute over rules, CSS over the
// type attribute; none draws nothing; a ul styled decimal is numbered.
func TestHTMLListStyles(t *testing.T) {
	for _, c := range []struct{ name, head, page, want string }{
		{"inline", "", `<ol style="list-style-type: upper-roman"><li>One</li><li style="list-style-type:lower-alpha">Two</li></ol><ul style="list-style: decimal inside"><li>Milk</li></ul>`,
			"I. One\n\nb. Two\n\n1. Milk"},
		{"rules", `<style>/* steps */ ol { list-style-type: lower-alpha } ol.steps, .zero { list-style-type: decimal-leading-zero !important; }
ol.plain{list-style:none} #roman { list-style-type: upper-roman } div ol { list-style-type: lower-roman } @media print { ol { list-style-type: disc } }</style>`,
			`<ol><li>Alpha</li></ol><ol class="x steps"><li>Step</li></ol><ol class="plain"><li>Bare</li><li>Bare too</li></ol><ol id="roman" class="steps"><li>Roman</li></ol><ol type="I" style="list-style-type: decimal"><li>Decimal</li></ol>`,
			"a. Alpha\n\n01. Step\n\nBare\n\nBare too\n\nI. Roman\n\n1. Decimal"},
		{"item none", "", `<ol><li>One</li><li style="list-style-type:none">Unmarked</li><li>Three</li></ol>`, "1. One\n\nUnmarked\n\n3. Three"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := extract.Bytes(context.Background(), "a.html", []byte("<html><head>"+c.head+"</head><body>"+c.page+"</body></html>"), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "html", []extract.Section{{Text: c.want}})
		})
	}
}
