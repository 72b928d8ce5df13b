package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// TestEPUBSpineKinds reads the spine items EPUB 3 allows besides XHTML (W3C's epub-tests
// cnt-svg-support, pkg-spine-order-svg, pub-foreign_*-spine were read as no text): SVG
// pages by their text elements, and foreign resources through their manifest fallbacks.
func TestEPUBSpineKinds(t *testing.T) {
	opf := `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/><manifest>
<item id="svg" href="page.svg" media-type="image/svg+xml"/>
<item id="json" href="moby.json" media-type="application/json" fallback="xml"/>
<item id="xml" href="moby.xml" media-type="application/xml" fallback="html"/>
<item id="html" href="moby.xhtml" media-type="application/xhtml+xml"/>
<item id="dmg" href="foo.dmg" media-type="application/octet-stream" fallback="psd"/>
<item id="psd" href="bar.psd" media-type="image/psd" fallback="dmg"/>
<item id="pic" href="cover.png" media-type="image/png"/>
</manifest><spine><itemref idref="svg"/><itemref idref="json"/><itemref idref="dmg"/><itemref idref="pic"/></spine></package>`
	svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><title>NOT SHOWN</title><defs><style>.t{font-size:9px}</style></defs><g><path d="M0 0"/><text x="0" y="15" class="t">Page one</text><text x="0" y="30">of the book.</text></g></svg>`
	data := epub(
		testdocs.File{Name: "OEBPS/content.opf", Body: opf},
		testdocs.File{Name: "OEBPS/page.svg", Body: svg},
		testdocs.File{Name: "OEBPS/moby.json", Body: `{"text": "NOT READ"}`},
		testdocs.File{Name: "OEBPS/moby.xml", Body: `<book>NOT READ EITHER</book>`},
		testdocs.File{Name: "OEBPS/moby.xhtml", Body: `<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Call me Ishmael.</p></body></html>`},
		testdocs.File{Name: "OEBPS/foo.dmg", Body: "\x00\x01"},
		testdocs.File{Name: "OEBPS/cover.png", Body: "\x89PNG"},
	)
	doc, err := extract.Bytes(context.Background(), "book.epub", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "epub", []extract.Section{{Text: "Page one\n\nof the book."}, {Text: "Call me Ishmael."}})
}
