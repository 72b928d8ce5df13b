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
// m:endChr, none where they are empty) with m:sepChr between its arguments; fractions,
// scripts and radicals in a linear form ("x²/2!", "x_(i)²", "√(x+1)"), whose parts' text
// ran together ("x22!").
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
	frac := func(num, den string) string {
		return `<m:f><m:fPr><m:ctrlPr/></m:fPr><m:num>` + num + `</m:num><m:den>` + den + `</m:den></m:f>`
	}
	sSup := func(e, sup string) string {
		return `<m:sSup><m:sSupPr><m:ctrlPr/></m:sSupPr><m:e>` + e + `</m:e><m:sup>` + sup + `</m:sup></m:sSup>`
	}
	for _, c := range []struct{ name, math, want string }{
		{"integral by default", nary("", "0", "1", mathRun("x")), "∫₀¹x"},
		{"sum", nary(`<m:chr m:val="∑"/>`, "i=1", "n", mathRun("i")), "∑_(i=1)^(n)i"},
		// fractions, scripts and radicals in a linear form, where their parts ran together
		// ("x22!" for x²/2!)
		{"fraction of scripts", frac(sSup(mathRun("x"), mathRun("2")), mathRun("2!")), "x²/2!"},
		{"fraction of sums", frac(mathRun("a+b"), mathRun("c")), "(a+b)/c"},
		{"sub and sup", `<m:sSubSup><m:sSubSupPr><m:ctrlPr/></m:sSubSupPr><m:e>` + mathRun("x") + `</m:e><m:sub>` + mathRun("i") + `</m:sub><m:sup>` + mathRun("2") + `</m:sup></m:sSubSup>`, "x_(i)²"},
		{"subscript", `<m:sSub><m:e>` + mathRun("a") + `</m:e><m:sub>` + mathRun("n+1") + `</m:sub></m:sSub>`, "a_(n+1)"},
		{"digit subscript", `<m:sSub><m:e>` + mathRun("a") + `</m:e><m:sub>` + mathRun("12") + `</m:sub></m:sSub>`, "a₁₂"},
		{"exponent", sSup(mathRun("e"), mathRun("iπ")), "e^(iπ)"},
		{"square root", `<m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/><m:e>` + mathRun("x+1") + `</m:e></m:rad>`, "√(x+1)"},
		{"cube root", `<m:rad><m:deg>` + mathRun("3") + `</m:deg><m:e>` + mathRun("y") + `</m:e></m:rad>`, "∛y"},
		{"function", `<m:func><m:funcPr><m:ctrlPr/></m:funcPr><m:fName>` + mathRun("cos") + `</m:fName><m:e>` + frac(mathRun("nπx"), mathRun("L")) + `</m:e></m:func>`, "cos nπx/L"},
		{"nested in brackets", d("", frac(mathRun("1"), sSup(mathRun("n"), mathRun("2")))), "(1/n²)"},
		{"parentheses by default", mathRun("f") + d("", mathRun("x")), "f(x)"},
		{"braces, nested, separated", d(`<m:begChr m:val="{"/><m:endChr m:val="}"/>`, mathRun("a"), d("", mathRun("b"), mathRun("c"))), "{a|(b|c)}"},
		// a matrix's and an equation array's entries apart, not one word ("(abcd)")
		{"matrix", d("", `<m:m><m:mPr><m:mcs><m:mc><m:mcPr><m:count m:val="2"/></m:mcPr></m:mc></m:mcs></m:mPr><m:mr><m:e>`+mathRun("a")+`</m:e><m:e>`+mathRun("b")+`</m:e></m:mr><m:mr><m:e>`+sSup(mathRun("c"), mathRun("2"))+`</m:e><m:e>`+mathRun("0")+`</m:e></m:mr></m:m>`), "(a b c² 0)"},
		{"equation array", `<m:eqArr><m:e>` + mathRun("x=1") + `</m:e><m:e>` + mathRun("y=2") + `</m:e></m:eqArr>`, "x=1 y=2"},
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
