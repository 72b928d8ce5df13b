package pdftext

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
