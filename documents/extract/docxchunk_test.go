package extract_test

import (
	"context"
	"strings"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// TestDOCXAltChunks reads the parts w:altChunk names (content Word imports as it opens the
// file: HTML, an MHT web archive, RTF, plain text, another DOCX) where they stand, with
// the readers of their formats; a missing or external part, or one of another kind, is
// left out and the rest read.
func TestDOCXAltChunks(t *testing.T) {
	para := func(s string) string { return `<w:p><w:r><w:t>` + s + `</w:t></w:r></w:p>` }
	chunk := func(id string) string { return `<w:altChunk r:id="` + id + `"/>` }
	docXML := func(body string) string {
		return `<?xml version="1.0"?><w:document ` + wordNS + ` xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>` + body + `</w:body></w:document>`
	}
	rels := func(targets ...string) string {
		s := `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`
		for i, t := range targets {
			mode := ""
			if strings.HasPrefix(t, "http") {
				mode = ` TargetMode="External"`
			}
			s += `<Relationship Id="rId` + string(rune('1'+i)) + `" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="` + t + `"` + mode + `/>`
		}
		return s + `</Relationships>`
	}
	mht := "MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"text/html\"; boundary=\"XX\"\r\n\r\n--XX\r\nContent-Type: text/html; charset=\"windows-1252\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<html><body><p>Archived caf=E9 page with a long=\r\n line.</p></body></html>\r\n--XX\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n--XX--\r\n"
	inner := testdocs.Zip(testdocs.File{Name: "word/document.xml", Body: docXML(para("Inner document."))})
	data := testdocs.Zip(
		testdocs.File{Name: "word/document.xml", Body: docXML(para("Before.") + chunk("rId1") + para("Between.") + chunk("rId2") + chunk("rId3") + chunk("rId4") +
			chunk("rId5") + chunk("rId6") + chunk("rId7") + chunk("rId8") +
			`<w:tbl><w:tr><w:tc>` + chunk("rId9") + `</w:tc><w:tc>` + para("Cell.") + `</w:tc></w:tr></w:tbl>` + para("After."))},
		testdocs.File{Name: "word/_rels/document.xml.rels", Body: rels("chunk1.htm", "/word/chunk2.rtf", "chunk3.txt", "chunk4.mht", "chunk5.docx",
			"missing.htm", "http://example.com/x.htm", "chunk8.bin", "cell.html")},
		testdocs.File{Name: "word/chunk1.htm", Body: `<html><body><h1>Imported</h1><p>From HTML.</p><h2>Part</h2><p>Deeper.</p></body></html>`},
		testdocs.File{Name: "word/chunk2.rtf", Body: `{\rtf1\ansi {\b From} RTF.\par}`},
		testdocs.File{Name: "word/chunk3.txt", Body: "From plain text."},
		testdocs.File{Name: "word/chunk4.mht", Body: mht},
		testdocs.File{Name: "word/chunk5.docx", Body: string(inner)},
		testdocs.File{Name: "word/chunk8.bin", Body: "\x00\x01\x02"},
		testdocs.File{Name: "word/cell.html", Body: `<p>Cell chunk.</p>`},
	)
	doc, err := extract.Bytes(context.Background(), "a.docx", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "docx", []extract.Section{
		{Text: "Before."},
		{Heading: "Imported", Text: "From HTML."},
		{Heading: "Imported › Part", Text: "Deeper.\n\nBetween.\n\nFrom RTF.\n\nFrom plain text.\n\nArchived café page with a long line.\n\nInner document.\n\nCell chunk.\tCell.\n\nAfter."},
	})
}
