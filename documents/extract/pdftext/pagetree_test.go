package pdftext

import (
	"errors"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// TestPageTreeLoops: a Pages node listed among its own kids, or below a kid of its own
// (pdf-rs's crash-121-2.pdf: "3 0 obj << /Type /Pages /Kids [3 0 R 14 0 R 19 0 R 24 0 R]"),
// loses that kid only; its other pages are read, as pdftotext reads them ("Loop in Pages
// tree"). The whole document was refused ("its page tree loops").
func TestPageTreeLoops(t *testing.T) {
	// objects 1 and 2 are filled in per case: the catalog (1) and the root Pages (2); 3 is
	// an inner Pages node; 4–6 are pages, 7 their font
	objs := func(root, inner string) [][]byte {
		return [][]byte{
			[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
			[]byte(root),
			[]byte(inner),
			[]byte("<< /Type /Page /Resources << /Font << /F1 7 0 R >> >> /Contents 8 0 R >>"),
			[]byte("<< /Type /Page /Resources << /Font << /F1 7 0 R >> >> /Contents 9 0 R >>"),
			[]byte("<< /Type /Page /Resources << /Font << /F1 7 0 R >> >> /Contents 10 0 R >>"),
			[]byte(simpleFont("")),
			testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (one) Tj ET")),
			testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (two) Tj ET")),
			testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (three) Tj ET")),
		}
	}
	const leaf = "<< /Type /Pages /Kids [6 0 R] /Count 1 >>"
	for _, c := range []struct {
		name, root, inner string
		want              []string // the pages' text
		err               error    // or the error
	}{
		{"no loop", "<< /Type /Pages /Kids [4 0 R 5 0 R 3 0 R] /Count 3 >>", leaf,
			[]string{"one", "two", "three"}, nil},
		{"the root lists itself", "<< /Type /Pages /Kids [2 0 R 4 0 R 5 0 R] /Count 2 >>", leaf,
			[]string{"one", "two"}, nil},
		{"the root lists itself last", "<< /Type /Pages /Kids [4 0 R 5 0 R 2 0 R] /Count 2 >>", leaf,
			[]string{"one", "two"}, nil},
		{"an inner node lists the root", "<< /Type /Pages /Kids [4 0 R 3 0 R] /Count 3 >>",
			"<< /Type /Pages /Kids [2 0 R 5 0 R] /Count 1 >>",
			[]string{"one", "two"}, nil},
		{"an inner node lists itself", "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 3 >>",
			"<< /Type /Pages /Kids [5 0 R 3 0 R 6 0 R] /Count 2 >>",
			[]string{"two", "three", "one"}, nil},
		{"every kid loops", "<< /Type /Pages /Kids [2 0 R] /Count 1 >>", leaf,
			nil, ErrDamaged},
	} {
		t.Run(c.name, func(t *testing.T) {
			pages, err := Read(testdocs.RawPDF(1, objs(c.root, c.inner)...), Options{})
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("error %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range pages {
				got = append(got, strings.TrimSpace(p.Text))
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("pages %q, want %q", got, c.want)
			}
		})
	}
}
