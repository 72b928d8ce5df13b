package extract_test

import (
	"context"
	"fmt"
	"testing"
	"unicode/utf16"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// utf16Part returns s as UTF-16 with its byte-order mark, little- or big-endian.
func utf16Part(s string, little bool) string {
	units := append([]uint16{0xFEFF}, utf16.Encode([]rune(s))...)
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if little {
			out = append(out, byte(u), byte(u>>8))
		} else {
			out = append(out, byte(u>>8), byte(u))
		}
	}
	return string(out)
}

// TestXMLPartUTF16 reads XML parts written in UTF-16 with a byte-order mark, which XML
// allows beside UTF-8: epub-rs's book2.epub has its package document so (declared "UTF-8"
// inside, as iconv left it) and was refused as damaged ("invalid UTF-8").
func TestXMLPartUTF16(t *testing.T) {
	opf := `<?xml version="1.0" encoding="%s"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0"><metadata/><manifest>
<item id="c1" href="one.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>`
	chapter := testdocs.File{Name: "OEBPS/one.xhtml", Body: `<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Gregor Samsa’s dream.</p></body></html>`}
	for _, tc := range []struct {
		name, label string
		little      bool
	}{
		{"little-endian, declared UTF-8", "UTF-8", true},
		{"little-endian, declared UTF-16", "UTF-16", true},
		{"big-endian, declared utf-16be", "utf-16be", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := utf16Part(fmt.Sprintf(opf, tc.label), tc.little)
			doc, err := extract.Bytes(context.Background(), "book.epub", epub(testdocs.File{Name: "OEBPS/content.opf", Body: body}, chapter), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "epub", []extract.Section{{Text: "Gregor Samsa’s dream."}})
		})
	}
}
