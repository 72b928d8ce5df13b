package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// TestFormatOfMisnamed reads a document saved under another kind's name as what its bytes
// say it is (libdds's "Par Calculation.rtf" is a DOCX, and was refused as "does not start
// as RTF does"), while names still decide between zip packages and for plain text.
func TestFormatOfMisnamed(t *testing.T) {
	docx := wordBody(`<w:p>` + wordRun("Par calculation.") + `</w:p>`)
	sheet := testdocs.Zip(testdocs.File{Name: "xl/workbook.xml", Body: `<workbook/>`})
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"Par Calculation.rtf", docx, "docx"},
		{"report.pdf", []byte(`{\rtf1\ansi hello}`), "rtf"},
		{"letter.docx", []byte("%PDF-1.4\n"), "pdf"},
		{"notes.odt", []byte(`{\rtf1\ansi hello}`), "rtf"},
		{"book.xlsx", docx, "xlsx"},   // both zip packages: the name decides
		{"sheet.docx", sheet, "docx"}, // the same
		{"notes.rtf", nil, "rtf"},     // nothing read yet: the name decides
		{"notes.rtf", []byte("garbage"), "rtf"},
		{"source.txt", []byte("%PDF-1.4\n"), "text"}, // text is what the user says it is
		{"page.html", []byte(`{\rtf1`), "html"},
		{"upload", docx, "docx"},
	} {
		if got := extract.FormatOf(c.name, c.data); got != c.want {
			t.Errorf("FormatOf(%q, %.12q) = %q, want %q", c.name, c.data, got, c.want)
		}
	}
	doc, err := extract.Bytes(context.Background(), "Par Calculation.rtf", docx, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkSections(t, doc, "docx", []extract.Section{{Text: "Par calculation."}})
}
