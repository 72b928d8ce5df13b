package extract_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/documents/extract"
)

// TestHTMLObjectFallback reads an object's content, what shows where the object cannot
// be shown, as pandoc reads it: EPUB 3's bindings (IDPF's quiz-bindings.epub, recall
// 0.437 when it was skipped) put a quiz's questions there. An iframe's content is never shown.
func TestHTMLObjectFallback(t *testing.T) {
	page := `<html><body><p>Text.</p><object data="solar-system.xml" type="application/x-epub-quiz"><param name="a" value="b"/>` +
		`<h2>Quiz</h2><ol><li>Which planet is largest?</li></ol></object><iframe src="x.html">NO IFRAMES</iframe></body></html>`
	doc, err := extract.Bytes(context.Background(), "page.html", []byte(page), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []extract.Section{{Text: "Text."}, {Heading: "Quiz", Text: "1. Which planet is largest?"}}
	if diff := cmp.Diff(want, doc.Sections); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
}
