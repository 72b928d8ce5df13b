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

// TestOddHexStrings: "<0>" has an odd number of digits, its last one followed by an implied
// 0. LaTeX's hyperref wrote /ID [<0> <0>] in libtommath's bn.pdf, and the object reader's
// "malformed hex string" lost the whole document where pdftotext reads it. The same string
// in a trailer and in a page object.
func TestOddHexStrings(t *testing.T) {
	page := func(extra string) []byte {
		return testdocs.RawPDF(1,
			[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
			[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
			[]byte("<< /Type /Page /Parent 2 0 R "+extra+"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
			testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (Odd digits <0>) Tj ET")),
			[]byte(simpleFont("")),
		)
	}
	for name, data := range map[string][]byte{
		"trailer":     bytes.Replace(page(""), []byte("trailer\n<<"), []byte("trailer\n<< /ID [<0> <0>]"), 1),
		"page object": page("/PieceInfo << /X << /Private <ABC> >> >> "),
	} {
		got, err := pagesText(t, data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if got != "Odd digits <0>" {
			t.Errorf("%s: got %q, want %q", name, got, "Odd digits <0>")
		}
	}
}

func TestWithEvenHexStrings(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/ID [<0> <0>]", "/ID [<00> <00>]"},
		{"<< /A <abc> /B <a b\nc d> >>", "<< /A <abc0> /B <a b\nc d> >>"},
		{"<</A<1>>>", "<</A<10>>>"},
		{"(a <1> string) <2>", "(a <1> string) <20>"},
		{`(\\) <3> (\)<4>)`, `(\\) <30> (\)<4>)`},
		{"<< >>\nstream\n<1>\nendstream <1>", "<< >>\nstream\n<1>\nendstream <10>"},
		{"% <1>\n<1>", "% <1>\n<10>"},
		{"1 < 2 > 3 <12> <1", "1 < 2 0> 3 <12> <1"},
		{"<x1>", "<x1>"},
	} {
		got, changed := withEvenHexStrings([]byte(tt.in))
		if string(got) != tt.want || changed != (tt.in != tt.want) {
			t.Errorf("withEvenHexStrings(%q) = %q, %v, want %q", tt.in, got, changed, tt.want)
		}
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

// FuzzUnknownEscapes: withoutUnknownEscapes only drops backslashes, withEvenHexStrings only
// writes zeros, and a file so changed reads without panicking.
func FuzzUnknownEscapes(f *testing.F) {
	f.Add([]byte(`1 0 obj << /Name (Visible\ Edges) >> endobj`))
	f.Add([]byte("<< >>\nstream\n(\\ \nendstream % (\\ \n(\\"))
	f.Add([]byte("trailer << /ID [<0> <0>] >> (<1>) <a b c>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, changed := withoutUnknownEscapes(data)
		if !changed && !bytes.Equal(got, data) {
			t.Fatal("changed without saying so")
		}
		if !bytes.Equal(bytes.ReplaceAll(got, []byte(`\`), nil), bytes.ReplaceAll(data, []byte(`\`), nil)) {
			t.Fatal("changed more than backslashes")
		}
		even, changed := withEvenHexStrings(got)
		if !changed && !bytes.Equal(even, got) {
			t.Fatal("hex strings changed without saying so")
		}
		if !bytes.Equal(bytes.ReplaceAll(even, []byte("0"), nil), bytes.ReplaceAll(got, []byte("0"), nil)) {
			t.Fatal("changed more than zeros")
		}
		if fixed, ok := rebuiltXref(even); ok {
			Read(fixed, Options{MaxPages: 10}) // must not panic or hang
		}
	})
}
