package pdftext

import (
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// TestUnreadableFontObject: a font whose object the object reader cannot read (pdf-rs's
// crash-121-2.pdf: "/Encoding 30 0`R" inside Times-Roman's dictionary, a key that is not a
// name) reads its text with the fallback font, and the page's other text stands, as
// pdftotext reads it. The whole page was lost ("unexpected non-name key").
func TestUnreadableFontObject(t *testing.T) {
	for _, c := range []struct {
		name, font2, want string
	}{
		{"a readable font", simpleFont(""), "first second"},
		{"a key that is not a name", "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding 9 0`R >>",
			"first second"},
		{"a dictionary cut short", "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Widths [ >>",
			"first second"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := testdocs.RawPDF(1,
				[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
				[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
				[]byte("<< /Type /Page /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> /Contents 4 0 R >>"),
				testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (first) Tj /F2 10 Tf 0 -20 Td (second) Tj ET")),
				[]byte(simpleFont("")),
				[]byte(c.font2))
			pages, err := Read(data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if pages[0].Err != nil {
				t.Fatalf("page lost: %v", pages[0].Err)
			}
			if got := strings.Join(strings.Fields(pages[0].Text), " "); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
