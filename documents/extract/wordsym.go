package extract

import (
	"strconv"
	"strings"
)

// symbolChar is the character of a DOCX w:sym element, a character of a symbol font that
// Word's Insert Symbol writes as a code rather than as text (w:char "F061" in the font
// Symbol is α). Symbol's codes are its own encoding, read as Unicode (as pandoc reads them);
// a code of a text font is that font's Unicode character; the codes of picture fonts
// (Wingdings, Webdings), which have no Unicode letters, and unknown codes read as nothing.
func symbolChar(font, char string) string {
	c, err := strconv.ParseUint(char, 16, 32)
	if err != nil {
		return ""
	}
	return symbolCode(font, c)
}

// symbolCode is the character font draws at code c, a w:sym code or a symbol run's
// character (symbolChar, symbolText).
func symbolCode(font string, c uint64) string {
	if c == 0 {
		return ""
	}
	private := c >= 0xF000 && c <= 0xF0FF // symbol fonts' codes in the private-use area
	if private {
		c -= 0xF000
	}
	switch f := strings.ToLower(strings.TrimSpace(font)); {
	case f == "symbol" && c >= 0x20 && c < 0x7F:
		return string(symbolLow[c-0x20])
	case f == "symbol" && c <= 0xFF:
		return symbolHigh[byte(c)] // "" where unmapped
	case private || strings.Contains(f, "dings"):
		return ""
	case c < 0x20 || c == 0xFFFD || c > 0x10FFFF || c >= 0xD800 && c <= 0xDFFF:
		return ""
	}
	return string(rune(c))
}

// isSymbolFont reports whether a run in font draws codes rather than letters: Symbol, whose
// codes are Greek and mathematical signs, and the picture fonts (Wingdings, Webdings).
func isSymbolFont(font string) bool {
	f := strings.ToLower(strings.TrimSpace(font))
	return f == "symbol" || strings.Contains(f, "dings")
}

// symbolText is a run's text in a symbol font as the font draws it. Word writes such text
// as the font's codes, either as they are ("a" in Symbol is α) or moved into the
// private-use area (U+F061); both read as symbolChar reads a w:sym code. A picture font's
// text outside the private-use area is left as it is written.
func symbolText(font, s string) string {
	symbol := strings.EqualFold(strings.TrimSpace(font), "symbol")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0xF020 && r <= 0xF0FF, symbol && r >= 0x20 && r <= 0xFF && r != ' ':
			b.WriteString(symbolCode(font, uint64(r)))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// symbolLow is the Symbol font's characters at codes 0x20–0x7E: Greek letters where
// ASCII has Latin ones, and mathematical signs.
var symbolLow = []rune(" !∀#∃%&∋()∗+,−./0123456789:;<=>?≅ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ[∴]⊥_‾αβχδεφγηιϕκλμνοπθρστυϖωξψζ{|}∼")

// symbolHigh is the Symbol font's characters at codes 0xA1–0xFE.
var symbolHigh = map[byte]string{
	0xA0: "€", 0xA1: "ϒ", 0xA2: "′", 0xA3: "≤", 0xA4: "⁄", 0xA5: "∞", 0xA6: "ƒ", 0xA7: "♣",
	0xA8: "♦", 0xA9: "♥", 0xAA: "♠", 0xAB: "↔", 0xAC: "←", 0xAD: "↑", 0xAE: "→", 0xAF: "↓",
	0xB0: "°", 0xB1: "±", 0xB2: "″", 0xB3: "≥", 0xB4: "×", 0xB5: "∝", 0xB6: "∂", 0xB7: "•",
	0xB8: "÷", 0xB9: "≠", 0xBA: "≡", 0xBB: "≈", 0xBC: "…", 0xBF: "↵", 0xC0: "ℵ", 0xC1: "ℑ",
	0xC2: "ℜ", 0xC3: "℘", 0xC4: "⊗", 0xC5: "⊕", 0xC6: "∅", 0xC7: "∩", 0xC8: "∪", 0xC9: "⊃",
	0xCA: "⊇", 0xCB: "⊄", 0xCC: "⊂", 0xCD: "⊆", 0xCE: "∈", 0xCF: "∉", 0xD0: "∠", 0xD1: "∇",
	0xD2: "®", 0xD3: "©", 0xD4: "™", 0xD5: "∏", 0xD6: "√", 0xD7: "⋅", 0xD8: "¬", 0xD9: "∧",
	0xDA: "∨", 0xDB: "⇔", 0xDC: "⇐", 0xDD: "⇑", 0xDE: "⇒", 0xDF: "⇓", 0xE0: "◊", 0xE1: "〈",
	0xE2: "®", 0xE3: "©", 0xE4: "™", 0xE5: "∑", 0xF1: "〉", 0xF2: "∫",
}
