package pdftext

import "strings"

// zapfDingbatsEncoding is the built-in encoding of the standard font ZapfDingbats, as
// Unicode: its codes follow the Dingbats block (U+2700), which was made from it, except where
// that block left a hole for a character coded elsewhere (☎ ★ ● ■ ▲ ▼ ◆ ◗, the card suits,
// ①–⑩, → ↔ ↕); its ornamental brackets have no code. pdftotext reads the font's codes so
// (through the glyph names a1–a191); read as no text, a PDF's check marks, crosses and
// numbered circles were left out (pdf.js's ZapfDingbats.pdf, a chart of all its codes: recall
// 0.719, now 1.000).
var zapfDingbatsEncoding = func() *encoding {
	var e encoding
	e[0x20] = " "
	for c := 0x21; c <= 0x7E; c++ {
		e[c] = string(rune(0x2700 + c - 0x20))
	}
	for c := 0xA1; c <= 0xFE; c++ {
		e[c] = string(rune(0x2760 + c - 0xA0))
	}
	holes := map[int]rune{
		0x25: 0x260E, 0x2A: 0x261B, 0x2B: 0x261E, 0x48: 0x2605, 0x6C: 0x25CF, 0x6E: 0x25A0,
		0x73: 0x25B2, 0x74: 0x25BC, 0x75: 0x25C6, 0x77: 0x25D7,
		0xA8: 0x2663, 0xA9: 0x2666, 0xAA: 0x2665, 0xAB: 0x2660,
		0xD5: 0x2192, 0xD6: 0x2194, 0xD7: 0x2195,
	}
	for c, r := range holes {
		e[c] = string(r)
	}
	for c := 0xAC; c <= 0xB5; c++ {
		e[c] = string(rune(0x2460 + c - 0xAC))
	}
	e[0xF0] = ""
	return &e
}()

// zapfDingbatsNames are the glyph names of ZapfDingbats' built-in encoding, code by code from
// 0x21 ("-" where a code has none), as its AFM gives them: names of the form "a<n>" whose
// number is not their code. They read through that encoding, as the ZapfDingbats glyph list
// reads them; taken for numbers, as TeX's bitmap fonts' code-named glyphs are, a71 read as
// "G" where the page shows "●" (Tika's TIKA-469-0, a Differences array [1 /a71]).
var zapfDingbatsNames = map[string]string{}

func init() {
	ranges := []struct {
		first int
		names string
	}{
		{0x21, "a1 a2 a202 a3 a4 a5 a119 a118 a117 a11 a12 a13 a14 a15 a16 a105 a17 a18 a19 a20 a21 " +
			"a22 a23 a24 a25 a26 a27 a28 a6 a7 a8 a9 a10 a29 a30 a31 a32 a33 a34 a35 a36 a37 a38 a39 " +
			"a40 a41 a42 a43 a44 a45 a46 a47 a48 a49 a50 a51 a52 a53 a54 a55 a56 a57 a58 a59 a60 a61 " +
			"a62 a63 a64 a65 a66 a67 a68 a69 a70 a71 a72 a73 a74 a203 a75 a204 a76 a77 a78 a79 a81 a82 " +
			"a83 a84 a97 a98 a99 a100"},
		{0x80, "a89 a90 a93 a94 a91 a92 a205 a85 a206 a86 a87 a88 a95 a96"},
		{0xA1, "a101 a102 a103 a104 a106 a107 a108 a112 a111 a110 a109 a120 a121 a122 a123 a124 a125 " +
			"a126 a127 a128 a129 a130 a131 a132 a133 a134 a135 a136 a137 a138 a139 a140 a141 a142 " +
			"a143 a144 a145 a146 a147 a148 a149 a150 a151 a152 a153 a154 a155 a156 a157 a158 a159 " +
			"a160 a161 a163 a164 a196 a165 a192 a166 a167 a168 a169 a170 a171 a172 a173 a162 a174 " +
			"a175 a176 a177 a178 a179 a193 a180 a199 a181 a200 a182 - a201 a183 a184 a197 a185 a194 " +
			"a198 a186 a195 a187 a188 a189 a190 a191"},
	}
	for _, r := range ranges {
		for i, name := range strings.Fields(r.names) {
			c := r.first + i
			switch {
			case name == "-":
			case c >= 0x80 && c <= 0x8D:
				// the ornamental brackets, which the encoding leaves without text: the glyph
				// list gives them U+2768–U+2775 in the order of their codes
				zapfDingbatsNames[name] = string(rune(0x2768 + c - 0x80))
			default:
				zapfDingbatsNames[name] = zapfDingbatsEncoding[c]
			}
		}
	}
}

// isZapfDingbats tells whether a font's base name (without a subset's tag) is ZapfDingbats'.
func isZapfDingbats(base string) bool {
	return strings.HasPrefix(base, "ZapfDingbats") || strings.HasPrefix(base, "Dingbats")
}

// dingbatNames reads the codes of a ZapfDingbats font that name its glyphs a1–a206 (in its
// Differences or its program's encoding) through the ZapfDingbats glyph list.
func dingbatNames(t *encoding, names *[256]string) {
	for c, n := range names {
		if s, ok := zapfDingbatsNames[n]; ok {
			t[c] = s
		}
	}
}
