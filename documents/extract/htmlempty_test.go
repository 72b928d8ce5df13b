package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
)

// TestHTMLEmptyElements reads an XHTML page whose elements of raw text (title, iframe,
// script, style, textarea) are written empty, "<iframe …/>": the tokenizer took the rest
// of the page for the element's raw text, up to an end tag that never comes, and the page
// read as its markup (readium's epub30-test-0100, "<p class="eval">If the preceding …"), or
// as nothing after an empty title.
func TestHTMLEmptyElements(t *testing.T) {
	const head = `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">`
	for _, c := range []struct{ name, page, want string }{
		{"iframe", head + `<head><title>T</title></head><body><p>Before.</p><iframe src="x.xhtml" width="300"/><p>The <b>test</b> passes.</p></body></html>`, "Before.\n\nThe test passes."},
		{"title", head + `<head><title/></head><body><p>First words.</p><p>Second.</p></body></html>`, "First words.\n\nSecond."},
		{"script and style", head + `<head><script src="a.js"/><style type="text/css"/></head><body><p>One.</p><script src="b.js"/><p>Two.</p></body></html>`, "One.\n\nTwo."},
		{"textarea", head + `<body><p>One.</p><textarea/><p>Two.</p></body></html>`, "One.\n\nTwo."},
		{"an open iframe is still skipped", head + `<body><p>One.</p><iframe src="x">fallback</iframe><p>Two.</p></body></html>`, "One.\n\nTwo."},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := extract.Bytes(context.Background(), "a.xhtml", []byte(c.page), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "html", []extract.Section{{Text: c.want}})
		})
	}
}
