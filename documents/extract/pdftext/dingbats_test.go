package pdftext

import (
	"strings"
	"testing"
)

// ZapfDingbats' glyph names a1–a206 read through the ZapfDingbats glyph list, not as the
// codes their numbers look like; glyphs of other fonts named by their codes still read so.
func TestZapfDingbatsNames(t *testing.T) {
	dingbats := func(base, extra string) string {
		return strings.Replace(simpleFont(extra), "/BaseFont /Test", "/BaseFont /"+base, 1)
	}
	tests := []struct {
		name, font, content, want string
	}{
		{"a Differences array of ZapfDingbats' names", dingbats("ZapfDingbats", "/Encoding << /Differences [1 /a71 /a20 /a1 /a120] >>"),
			// Tika's TIKA-469-0: [1 /a71], a bullet, read "G"
			"BT /F1 10 Tf 72 700 Td (\\001 \\002\\003 \\004) Tj ET", "● ✔✁ ①"},
		{"a subset's tag and the ornamental brackets", dingbats("ABCDEF+ZapfDingbats", "/Encoding << /Differences [65 /a89 /a90] >>"),
			"BT /F1 10 Tf 72 700 Td (ABA) Tj ET", "❨❩❨"},
		{"a name outside the list keeps the glyph list's reading", dingbats("ZapfDingbats", "/Encoding << /Differences [65 /a71 /bullet /space /a20] >>"),
			"BT /F1 10 Tf 72 700 Td (ABCD) Tj ET", "●• ✔"},
		{"code-named glyphs of another font read as their codes", simpleFont("/Encoding << /Differences [1 /a71 /a72] >>"),
			"BT /F1 10 Tf 72 700 Td (\\001\\002) Tj ET", "GH"},
		{"a TeX bitmap font's code-named glyphs read as their codes", texBitmapFont("GH"),
			"BT /F1 10 Tf 72 700 Td (GH) Tj ET", "GH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAs(t, tt.name, pdfWith(tt.font, "", tt.content), tt.want)
		})
	}
}
