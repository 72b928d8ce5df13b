package extract_test

import (
	"context"
	"testing"

	"edgechat/documents/extract"
	"edgechat/internal/testkit/testdocs"
)

// mathRun is an equation's run (m:r) of text s.
func mathRun(s string) string { return `<m:r><m:t>` + s + `</m:t></m:r>` }

// TestDOCXMath reads Word's equations as Word draws them: an n-ary operator's sign (∫
// where m:chr names none: docx2python's equations.docx read "01x" for ∫₀¹x) before its
// limits and argument, a delimiter's brackets ("(" and ")" by default, m:begChr and
// m:endChr, none where they are empty) with m:sepChr between its arguments.
func TestDOCXMath(t *testing.T) {
	nary := func(pr, sub, sup, e string) string {
		return `<m:nary><m:naryPr>` + pr + `<m:limLoc m:val="subSup"/><m:ctrlPr/></m:naryPr><m:sub>` + mathRun(sub) + `</m:sub><m:sup>` + mathRun(sup) + `</m:sup><m:e>` + e + `</m:e></m:nary>`
	}
	d := func(pr string, args ...string) string {
		s := `<m:d><m:dPr>` + pr + `<m:ctrlPr/></m:dPr>`
		for _, a := range args {
			s += `<m:e>` + a + `</m:e>`
		}
		return s + `</m:d>`
	}
	for _, c := range []struct{ name, math, want string }{
		{"integral by default", nary("", "0", "1", mathRun("x")), "∫01x"},
		{"sum", nary(`<m:chr m:val="∑"/>`, "i=1", "n", mathRun("i")), "∑i=1ni"},
		{"parentheses by default", mathRun("f") + d("", mathRun("x")), "f(x)"},
		{"braces, nested, separated", d(`<m:begChr m:val="{"/><m:endChr m:val="}"/>`, mathRun("a"), d("", mathRun("b"), mathRun("c"))), "{a|(b|c)}"},
		{"no closing bracket", d(`<m:begChr m:val="["/><m:endChr m:val=""/>`, mathRun("0,1")), "[0,1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `<w:p>` + wordRun("Area: ") + `<m:oMath>` + c.math + `</m:oMath></w:p>`
			data := testdocs.Zip(testdocs.File{Name: "word/document.xml", Body: `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`})
			doc, err := extract.Bytes(context.Background(), "a.docx", data, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, doc, "docx", []extract.Section{{Text: "Area: " + c.want}})
		})
	}
}
