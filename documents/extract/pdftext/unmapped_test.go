package pdftext

import (
	"fmt"
	"strings"
	"testing"
)

// TestClusterRest: fpdf2's shaped Hindi, whose ToUnicode map gives a cluster's text to its
// first glyph and leaves its other glyphs out; those read by the font's own map.
func TestClusterRest(t *testing.T) {
	// glyphs as the font's cmap reads them: 1 ह, 2 न, 3 ा, 4 ि, 5 े
	byFont := map[uint32]string{1: "ह", 2: "न", 3: "ा", 4: "ि", 5: "े"}
	tests := []struct{ name, toUnicode, codes, want string }{
		{"the sign ि drawn first spells हि, the letter after it adds nothing",
			"<0004> <0939093F>", "\x00\x04\x00\x01", "हि"},
		{"the letter spells ने, its sign after it adds nothing",
			"<0002> <09280947>", "\x00\x02\x00\x05", "ने"},
		{"two glyphs left out of one cluster",
			"<0002> <0928093E0947>", "\x00\x02\x00\x03\x00\x05", "नाे"},
		{"a glyph left out that the cluster does not hold is read by the font",
			"<0002> <09280947>", "\x00\x02\x00\x03", "नेा"},
		{"after a glyph mapped to one letter, the next unmapped is read",
			"<0002> <0928>", "\x00\x02\x00\x05\x00\x05", "नेे"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &font{toUni: parseCMap([]byte("1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfchar " + tt.toUnicode + " endbfchar")),
				cidText: byFont, dw: 1}
			var got string
			f.each(tt.codes, func(_ uint32, _ int, text string, _ float64) { got += text })
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestClusterRestJoins: the glyph of a cluster left out of the ToUnicode map, its text
// (here by the CIDFont's collection, Adobe-Japan1) held by the cluster, fills its place in
// the word: "いあう", not "いあ う"; a glyph that nothing names leaves its gap.
func TestClusterRestJoins(t *testing.T) {
	coll := collectionText("Adobe-Japan1")
	if coll == nil {
		t.Skip("no Adobe-Japan1 table")
	}
	a, _ := coll.cidOf('あ')
	i, _ := coll.cidOf('い')
	font := "<< /Type /Font /Subtype /Type0 /BaseFont /Test /Encoding /Identity-H /ToUnicode 6 0 R" +
		" /DescendantFonts [<< /Type /Font /Subtype /CIDFontType0 /BaseFont /Test" +
		" /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 6 >> /DW 500 >>] >>"
	toUni := fmt.Sprintf("1 begincodespacerange <0000> <FFFF> endcodespacerange 2 beginbfchar <%04X> <30443042> <0001> <3046> endbfchar", i)
	for _, tt := range []struct{ name, codes, want string }{
		{"held by the cluster", fmt.Sprintf("<%04X%04X0001>", i, a), "いあう"},
		{"named by nothing", fmt.Sprintf("<%04XFFF00001>", i), "いあ う"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := Read(pdfWith(font, toUni, "BT /F1 10 Tf 72 700 Td "+tt.codes+" Tj ET"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(pages[0].Text); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
