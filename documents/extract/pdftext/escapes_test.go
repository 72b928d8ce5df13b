package pdftext

import (
	"bytes"
	"testing"
)

// TestUnknownEscapes: a page object holding "(\ )" (AutoCAD's pdfplot writes its viewport's
// measure so: pypdf's AutoCad_Diagram.pdf) lost the whole document ("invalid escape
// sequence"); without the backslash it reads as pdftotext reads it.
func TestUnknownEscapes(t *testing.T) {
	data := onePagePDF(`Strip the\ cable`, `/VP [<< /Measure << /Subtype /RL /R (\ ) >> >>] `)
	readsAs(t, "", data, "Strip the cable")
}

// TestOddHexStrings: "<0>" has an odd number of digits, its last one followed by an implied
// 0. LaTeX's hyperref wrote /ID [<0> <0>] in libtommath's bn.pdf, and the object reader's
// "malformed hex string" lost the whole document where pdftotext reads it. The same string
// in a trailer and in a page object.
func TestOddHexStrings(t *testing.T) {
	for name, data := range map[string][]byte{
		"trailer":     bytes.Replace(onePagePDF("Odd digits <0>", ""), []byte("trailer\n<<"), []byte("trailer\n<< /ID [<0> <0>]"), 1),
		"page object": onePagePDF("Odd digits <0>", "/PieceInfo << /X << /Private <ABC> >> >> "),
	} {
		readsAs(t, name, data, "Odd digits <0>")
	}
}

func TestWithEvenHexStrings(t *testing.T) {
	checkRepair(t, "withEvenHexStrings", withEvenHexStrings, []repairCase{
		{"/ID [<0> <0>]", "/ID [<00> <00>]"},
		{"<< /A <abc> /B <a b\nc d> >>", "<< /A <abc0> /B <a b\nc d> >>"},
		{"<</A<1>>>", "<</A<10>>>"},
		{"(a <1> string) <2>", "(a <1> string) <20>"},
		{`(\\) <3> (\)<4>)`, `(\\) <30> (\)<4>)`},
		{"<< >>\nstream\n<1>\nendstream <1>", "<< >>\nstream\n<1>\nendstream <10>"},
		{"% <1>\n<1>", "% <1>\n<10>"},
		{"1 < 2 > 3 <12> <1", "1 < 2 0> 3 <12> <1"},
		{"<x1>", "<x1>"},
	})
}

func TestWithoutUnknownEscapes(t *testing.T) {
	checkRepair(t, "withoutUnknownEscapes", withoutUnknownEscapes, []repairCase{
		{`<< /Name (Visible\ Edges\(ISO\)) >>`, `<< /Name (Visible Edges\(ISO\)) >>`},
		{`(a (nested\ x) \q) (\\ ok)`, `(a (nested x) q) (\\ ok)`},
		{"(known \\n\\r\\t\\b\\f\\(\\)\\\\\\053\\\nend)", "(known \\n\\r\\t\\b\\f\\(\\)\\\\\\053\\\nend)"},
		{"<< /Length 5 >>\nstream\n(\\ )\nendstream (\\ )", "<< /Length 5 >>\nstream\n(\\ )\nendstream ( )"},
		{"% a comment (\\ \n(\\ )", "% a comment (\\ \n( )"},
		{"<</Subtype/Image>>stream\r\n)(\\x endstream(\\y)", "<</Subtype/Image>>stream\r\n)(\\x endstream(y)"},
		{`(a\`, `(a\`},
	})
}

// FuzzUnknownEscapes: withoutUnknownEscapes only drops backslashes, withEvenHexStrings only
// writes zeros, and a file so changed reads without panicking.
func FuzzUnknownEscapes(f *testing.F) {
	f.Add([]byte(`1 0 obj << /Name (Visible\ Edges) >> endobj`))
	f.Add([]byte("<< >>\nstream\n(\\ \nendstream % (\\ \n(\\"))
	f.Add([]byte("trailer << /ID [<0> <0>] >> (<1>) <a b c>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		plain := fuzzRepair(t, data, withoutUnknownEscapes, without(`\`))
		fuzzRepair(t, plain, withEvenHexStrings, without("0"))
	})
}
