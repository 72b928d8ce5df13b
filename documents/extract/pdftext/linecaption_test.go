package pdftext

import (
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// TestLineCaption: a line annotation without an appearance that asks for its caption (/Cap
// true) shows its /Contents along the line, as poppler makes its appearance; EdgeChat drew
// nothing (pdfcpu's LineAnnotation.pdf: "Diagonal" along a 43° line, refused as textless).
func TestLineCaption(t *testing.T) {
	for _, c := range []struct{ name, annot, want string }{
		{"a level line's caption", "/L [100 400 300 400] /Cap true /Contents (12 mm)", "page text\n\n12 mm"},
		{"a diagonal line's caption", "/L [148.75 140.33 297.5 280.66] /Cap true /Contents (Diagonal)", "page text\n\nDiagonal"},
		{"a caption of two lines above a short line", "/L [100 400 140 400] /Cap true /CP /Top /Contents (first line\\rsecond)", "page text\n\nfirst line\nsecond"},
		{"a Hebrew caption", "/L [100 400 300 400] /Cap true /Contents " + pdfTextString("קו ישר"), "page text\n\nקו ישר"},
		{"no caption asked for", "/L [100 400 300 400] /Contents (note)", "page text"},
		{"an appearance of its own", "/L [100 400 300 400] /Cap true /Contents (note) /AP << /N 6 0 R >>", "page text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := testdocs.RawPDF(1,
				[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
				[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
				[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >> /Contents 5 0 R /Annots [4 0 R] >>"),
				[]byte("<< /Type /Annot /Subtype /Line /Rect [90 100 310 420] "+c.annot+" >>"),
				testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (page text) Tj ET")),
				testdocs.Stream("/Type /XObject /Subtype /Form /BBox [0 0 220 320]", []byte("0 0 m 200 0 l S")),
				[]byte(simpleFont("")),
			)
			got, err := pagesText(t, data)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
