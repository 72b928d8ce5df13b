package pdftext

import (
	"fmt"
	"strings"
	"testing"
)

// TestCMapLongBlock: a ToUnicode map with 1,821 entries in one bfchar block (the PDF
// reference asks for at most 100; PyMuPDF's test_4182.pdf, a Chinese paper merged by
// PyPDF2, has such blocks) maps every entry: those past the 1,536th were dropped, and
// their characters ("重", "院", "，") left out of the text.
func TestCMapLongBlock(t *testing.T) {
	var b strings.Builder
	b.WriteString("1 begincodespacerange <0000> <FFFF> endcodespacerange\n1821 beginbfchar\n")
	for i := range 1821 {
		fmt.Fprintf(&b, "<%04X> <%04X>\n", i, 0x4E00+i)
	}
	b.WriteString("endbfchar\n1 beginbfrange <2000> <2001> <0041> endbfrange\n")
	m := parseCMap([]byte(b.String()))
	for code, want := range map[uint32]string{0: "一", 1820: string(rune(0x4E00 + 1820)), 0x2001: "B"} {
		if got, ok := m.text(code, 2); !ok || got != want {
			t.Errorf("code %04X: got %q, %v, want %q", code, got, ok, want)
		}
	}
}
