package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
)

// TestHTMLListNumbers reads an ordered list's items with the numbers a browser draws (W3C's
// epub-tests read "The Reading System provides…" where pandoc and the page show "1.").
func TestHTMLListNumbers(t *testing.T) {
	for _, c := range []struct{ name, page, want string }{
		{"plain", `<ol><li>Mix</li><li>Bake</li></ol>`, "1. Mix\n\n2. Bake"},
		{"start, type, value, nested, ul", `<ol start="3" type="a"><li>Third</li><li value="7">Seventh<ol type="I"><li>Sub</li></ol></li><li>Eighth</li></ol><ul><li>Milk</li></ul>`,
			"c. Third\n\ng. Seventh\n\nI. Sub\n\nh. Eighth\n\nMilk"},
		{"reversed", `<ol reversed start="2"><li>Two</li><li>One</li></ol><ol reversed><li>Unknown</li></ol>`, "2. Two\n\n1. One\n\nUnknown"},
		{"skipped", `<ol><li>Shown</li><script><ol><li>x</li></ol></script><li>Next</li></ol>`, "1. Shown\n\n2. Next"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := extract.Bytes(context.Background(), "a.html", []byte("<html><body>"+c.page+"</body></html>"), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "html", []extract.Section{{Text: c.want}})
		})
	}
}
