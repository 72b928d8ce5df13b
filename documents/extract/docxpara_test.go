package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// wordBody is a DOCX whose document.xml holds body.
func wordBody(body string) []byte {
	return testdocs.Zip(testdocs.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`})
}

// wordRun is a run of text.
func wordRun(s string) string { return `<w:r><w:t xml:space="preserve">` + s + `</w:t></w:r>` }

// TestDOCXParagraphs reads paragraphs Word lays out in ways of its own as one reads them.
func TestDOCXParagraphs(t *testing.T) {
	dropCap := func(kind, letter string) string {
		return `<w:p><w:pPr><w:keepNext/><w:framePr w:dropCap="` + kind + `" w:lines="3" w:wrap="around"/></w:pPr>` + wordRun(letter) + `</w:p>`
	}
	for _, c := range []struct{ name, body, want string }{
		// a drop cap is a framed paragraph of the first letter: it begins the next
		// (pandoc's drop_cap.docx read "D" and "rop cap." as two words)
		{"drop cap", dropCap("drop", "D") + `<w:p>` + wordRun("rop cap.") + `</w:p>` + dropCap("margin", "D") + `<w:p>` + wordRun("rop cap in margin.") + `</w:p>` +
			`<w:p><w:pPr><w:framePr w:dropCap="none" w:wrap="around"/></w:pPr>` + wordRun("A framed note.") + `</w:p>` + dropCap("drop", "E"),
			"Drop cap.\n\nDrop cap in margin.\n\nA framed note.\n\nE"},
		// a paragraph's tab stops (w:pPr/w:tabs/w:tab) are not tab characters (pandoc's
		// lists_restarting.docx read "\tInterruption"); a run's w:tab is
		{"tab stops", `<w:p>` + wordRun("Before.") + `</w:p><w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="250"/><w:tab w:val="right" w:pos="900"/></w:tabs></w:pPr>` + wordRun("Interruption") + `<w:r><w:tab/></w:r>` + wordRun("here") + `</w:p>`,
			"Before.\n\nInterruption\there"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := extract.Bytes(context.Background(), "a.docx", wordBody(c.body), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "docx", []extract.Section{{Text: c.want}})
		})
	}
}
