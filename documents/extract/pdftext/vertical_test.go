package pdftext

import (
	"strconv"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// verticalPDF is a one-page PDF whose font F1 is a Type0 font of encoding enc (a name, or
// "6 0 R" for the embedded CMap given as cmapStream) over a CIDFont with the widths and
// vertical metrics cidExtra gives, its codes <0001>… reading 日本語一二三四五六 and
// <0011>… the letters A–Z; F2 is a horizontal Type1 font.
func verticalPDF(enc, cidExtra, content string, cmapStream []byte) []byte {
	var toUni strings.Builder
	toUni.WriteString("1 begincodespacerange <0000> <FFFF> endcodespacerange ")
	cjk := []rune("日本語一二三四五六")
	toUni.WriteString(strconv.Itoa(len(cjk)) + " beginbfchar ")
	for i, r := range cjk {
		toUni.WriteString("<" + hex4(i+1) + "> <" + hex4(int(r)) + "> ")
	}
	toUni.WriteString("endbfchar 1 beginbfrange <0011> <002A> <0041> endbfrange")
	objs := [][]byte{
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R /F2 8 0 R >> >> /Contents 4 0 R >>"),
		testdocs.Stream("", []byte(content)),
		[]byte("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /" + enc + " /DescendantFonts [7 0 R] /ToUnicode 9 0 R >>"),
		cmapStream,
		[]byte("<< /Type /Font /Subtype /CIDFontType0 /BaseFont /X /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> " + cidExtra + " >>"),
		[]byte(simpleFont("")),
		testdocs.Stream("", []byte(toUni.String())),
	}
	if cmapStream == nil {
		objs[5] = []byte("null")
	} else {
		objs[4] = []byte(strings.Replace(string(objs[4]), "/"+enc, enc, 1))
	}
	return testdocs.RawPDF(1, objs...)
}

func hex4(n int) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[n>>12&15], digits[n>>8&15], digits[n>>4&15], digits[n&15]})
}

// latin is the codes of the vertical font's capital letters spelling s.
func latin(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(hex4(int(r-'A') + 0x11))
	}
	return "<" + b.String() + ">"
}

func TestVerticalWriting(t *testing.T) {
	// Latin letters of the vertical font are proportional (W: I narrow), CJK a full em (DW 1000).
	widths := "/W [17 42 700 25 [280]]"
	tests := []struct {
		name, enc, cid, content, want string
		cmap                          []byte
	}{
		{"a column of CJK in one Tj", "Identity-V", "", "BT /F1 10 Tf 300 700 Td <000100020003> Tj ET", "日本語", nil},
		{"columns read right to left, whatever order they are drawn in", "Identity-V", "",
			"BT /F1 10 Tf 260 700 Td <000700080009> Tj 20 0 Td <000400050006> Tj ET BT /F1 10 Tf 300 700 Td <000100020003> Tj ET",
			"日本語\n\n一二三\n\n四五六", nil},
		{"glyphs placed one by one down a column", "Identity-V", "",
			"BT /F1 10 Tf 1 0 0 1 300 700 Tm <0001> Tj 1 0 0 1 300 690 Tm <0002> Tj 1 0 0 1 300 680 Tm <0003> Tj ET", "日本語", nil},
		{"a horizontal line on the page keeps its order", "Identity-V", "",
			"BT /F2 10 Tf 72 740 Td (Title line) Tj ET BT /F1 10 Tf 300 700 Td <000100020003> Tj 260 700 Td ET BT /F2 10 Tf 72 600 Td (After) Tj ET",
			"Title line\n\nAfter\n\n日本語", nil},
		{"a page of columns: its folio under them reads after them, its head before", "Identity-V", "",
			// pTeX's vertical books (pxrubrica's test-sf.pdf): the folio "1" was the page's first line
			"BT /F2 10 Tf 72 740 Td (Head) Tj ET BT /F2 10 Tf 300 100 Td (7) Tj ET" +
				" BT /F1 10 Tf 260 700 Td <000700080009> Tj 20 0 Td <000400050006> Tj ET BT /F1 10 Tf 300 700 Td <000100020003> Tj ET",
			"Head\n\n日本語\n\n一二三\n\n四五六\n\n7", nil},
		{"one TJ string with adjustments spacing the column", "Identity-V", "",
			"BT /F1 10 Tf 300 700 Td [<0001> -100 <0002> -100 <0003> 1000 <0004>] TJ ET", "日本語 一", nil},
		{"a predefined -V CMap's name", "UniJIS-UCS2-V", "",
			"BT /F1 10 Tf 260 700 Td <000700080009> Tj 20 0 Td <000400050006> Tj ET BT /F1 10 Tf 300 700 Td <000100020003> Tj ET",
			"日本語\n\n一二三\n\n四五六", nil},
		{"an embedded CMap of WMode 1", "6 0 R", "",
			// columns, as a horizontal font would not read them
			"BT /F1 10 Tf 260 700 Td <000700080009> Tj 20 0 Td <000400050006> Tj ET BT /F1 10 Tf 300 700 Td <000100020003> Tj ET",
			"日本語\n\n一二三\n\n四五六",
			testdocs.Stream("", []byte("/CIDInit /ProcSet findresource begin 12 dict begin begincmap /WMode 1 def 1 begincodespacerange <0000> <FFFF> endcodespacerange 1 begincidrange <0000> <FFFF> 0 endcidrange endcmap end end"))},
		{"an embedded CMap of WMode 0 stays horizontal", "6 0 R", "",
			// a glyph, then one an em lower: two lines, where a column would read them as one
			"BT /F1 10 Tf 300 700 Td <0001> Tj 0 -10 Td <0002> Tj ET", "日\n本",
			testdocs.Stream("/WMode 0", []byte("1 begincodespacerange <0000> <FFFF> endcodespacerange 1 begincidrange <0000> <FFFF> 0 endcidrange"))},
		{"DW2 and W2 set the advance down the column", "Identity-V", "/DW2 [880 -500] /W2 [3 [-1000 500 880]]",
			"BT /F1 10 Tf 300 700 Td <00010002> Tj 0 -10 Td <0003> Tj 0 -15 Td <0004> Tj ET", "日本語 一", nil},
		{"a W2 position vector ems off is not believed", "Identity-V", "/W2 [2 [-1000 500 -30122]]",
			"BT /F1 10 Tf 300 700 Td <000100020003> Tj ET", "日本語", nil},
		// Acrobat Distiller's Word text in Arial Unicode with Identity-V: each glyph centred
		// on a point TD moves along a horizontal line (PDFBox's PDFBOX-3127-…-VFont.pdf).
		{"glyphs set side by side along a line by TD", "Identity-V", widths,
			"BT /F1 1 Tf 10 0 0 10 100 700 Tm " + spread("NOTICE") + "1.2 0 TD " + spread("OF") + "ET",
			"NOTICE OF", nil},
		// Latin words in a column drawn upright with the vertical font, a full em apart.
		{"upright Latin letters in a column", "Identity-V", "",
			"BT /F1 10 Tf 300 700 Td <0001> Tj " + latin("PDF") + " Tj <0002> Tj ET", "日PDF本", nil},
		// A Latin word turned clockwise, in a horizontal font, among a column's glyphs.
		{"a Latin word turned into a column", "Identity-V", "",
			"BT /F1 10 Tf 300 700 Td <00010002> Tj ET BT /F2 10 Tf 0 -1 1 0 297 680 Tm (PDF) Tj ET BT /F1 10 Tf 300 665 Td <0003> Tj ET",
			"日本PDF語", nil},
	}
	for _, tc := range tests {
		cid := tc.cid
		if !strings.Contains(cid, "/W ") {
			cid += " " + widths
		}
		readsAs(t, tc.name, verticalPDF(tc.enc, cid, tc.content, tc.cmap), tc.want)
	}
}

// spread draws the letters of s, each by its own Tj, each centred on a point TD moves by
// half the widths of the letters on either side (I 0.28 em, the others 0.7).
func spread(s string) string {
	w := func(r rune) float64 {
		if r == 'I' {
			return 0.28
		}
		return 0.7
	}
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		b.WriteString(latin(string(r)) + " Tj ")
		if i+1 < len(rs) {
			b.WriteString(strconv.FormatFloat((w(r)+w(rs[i+1]))/2, 'f', -1, 64) + " 0 TD ")
		}
	}
	return b.String()
}

func FuzzVertical(f *testing.F) {
	f.Add("/DW2 [880 -1000] /W2 [1 [-1000 500 880] 2 9 -500 250 880]", "BT /F1 10 Tf 300 700 Td [<0001> -100 <00020003>] TJ 0 1 -1 0 9 9 Tm <0004> Tj ET")
	f.Add("/W2 [1 [-1000 500] 2 3 4 5 [[[", "BT /F1 10 Tf 100 700 Td <0001> Tj 0.6 0 TD <0002> Tj 0.6 0 TD <0003> Tj ET")
	f.Add("/DW2 [0 0] /W2 [4294967295 4294967296 0 0 0]", "BT /F1 -10 Tf -1 0 0 1 9 9 Tm <0001> Tj 3 Tc 2 Tw <0020> Tj ET")
	f.Fuzz(func(t *testing.T, cidExtra, content string) {
		Read(verticalPDF("Identity-V", cidExtra, content, nil), Options{}) // must not panic or hang
	})
}
