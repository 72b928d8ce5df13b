package pdftext

import (
	"bytes"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// TestUnknownEscapes: a page object holding "(\ )" (AutoCAD's pdfplot writes its viewport's
// measure so: pypdf's AutoCad_Diagram.pdf) lost the whole document ("invalid escape
// sequence"); without the backslash it reads as pdftotext reads it.
func TestUnknownEscapes(t *testing.T) {
	data := testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /VP [<< /Measure << /Subtype /RL /R (\\ ) >> >>] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
		testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (Strip the\\ cable) Tj ET")),
		[]byte(simpleFont("")),
	)
	got, err := pagesText(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if got != "Strip the cable" {
		t.Errorf("got %q, want %q", got, "Strip the cable")
	}
}

func TestWithoutUnknownEscapes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`<< /Name (Visible\ Edges\(ISO\)) >>`, `<< /Name (Visible Edges\(ISO\)) >>`},
		{`(a (nested\ x) \q) (\\ ok)`, `(a (nested x) q) (\\ ok)`},
		{"(known \\n\\r\\t\\b\\f\\(\\)\\\\\\053\\\nend)", "(known \\n\\r\\t\\b\\f\\(\\)\\\\\\053\\\nend)"},
		{"<< /Length 5 >>\nstream\n(\\ )\nendstream (\\ )", "<< /Length 5 >>\nstream\n(\\ )\nendstream ( )"},
		{"% a comment (\\ \n(\\ )", "% a comment (\\ \n( )"},
		{"<</Subtype/Image>>stream\r\n)(\\x endstream(\\y)", "<</Subtype/Image>>stream\r\n)(\\x endstream(y)"},
		{`(a\`, `(a\`},
	} {
		got, changed := withoutUnknownEscapes([]byte(tt.in))
		if string(got) != tt.want || changed != (tt.in != tt.want) {
			t.Errorf("withoutUnknownEscapes(%q) = %q, %v, want %q", tt.in, got, changed, tt.want)
		}
	}
}

// FuzzUnknownEscapes: withoutUnknownEscapes only drops backslashes, and a file so changed
// reads without panicking.
func FuzzUnknownEscapes(f *testing.F) {
	f.Add([]byte(`1 0 obj << /Name (Visible\ Edges) >> endobj`))
	f.Add([]byte("<< >>\nstream\n(\\ \nendstream % (\\ \n(\\"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, changed := withoutUnknownEscapes(data)
		if !changed && !bytes.Equal(got, data) {
			t.Fatal("changed without saying so")
		}
		if !bytes.Equal(bytes.ReplaceAll(got, []byte(`\`), nil), bytes.ReplaceAll(data, []byte(`\`), nil)) {
			t.Fatal("changed more than backslashes")
		}
		if fixed, ok := rebuiltXref(got); ok {
			Read(fixed, Options{MaxPages: 10}) // must not panic or hang
		}
	})
}
