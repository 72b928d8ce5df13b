package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
)

// TestHTMLDoctypeSubset reads an XHTML page whose document type declares entities (W3C's
// epub-tests pub-xml-external-id: "]>" and the head's title were read as its first words).
func TestHTMLDoctypeSubset(t *testing.T) {
	for _, c := range []struct{ name, page, want string }{
		{"subset", "<?xml version=\"1.0\"?>\n<!DOCTYPE html \n [\n <!ENTITY xxe SYSTEM \"foo.xhtml\">\n <!ENTITY copy \"&#169;\">\n ]>\n<html><head><title>NOT SHOWN</title></head><body><p>Text.</p></body></html>", "Text."},
		{"no subset", `<!DOCTYPE html><html><head><title>NOT SHOWN</title></head><body><p>A [b] c.</p></body></html>`, "A [b] c."},
		{"unclosed", `<!DOCTYPE html [ <!ENTITY x "y"> <p>Text.</p>`, "Text."},
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
