package pdftext

import (
	"strings"
	"unicode/utf8"
)

// The Symbol font's characters in the Private Use Area. Windows producers (Word through
// Acrobat Distiller, rtklib's manual) map SymbolMT's codes in ToUnicode to U+F000 plus the
// code, the font's own (3,0) cmap, not to the characters it draws: λ read "\uf06c", + read
// "\uf02b", a bracket's upper piece "\uf0e6". pdftotext prints those code points; a reader
// or a model sees no letter in them. The Symbol font's encoding names each code.

// symbolFontName says whether a font's base name (its subset tag taken off) is Adobe's or
// Monotype's Symbol font ("Symbol", "SymbolMT", "SymbolMT,Bold", "Symbol-Identity-H").
func symbolFontName(base string) bool {
	if i := strings.IndexByte(base, '+'); i == 6 {
		base = base[i+1:]
	}
	rest, ok := strings.CutPrefix(base, "Symbol")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, "MT")
	return rest == "" || rest[0] == ',' || rest[0] == '-'
}

// symbolPUAText is text with a lone Private Use character U+F020–U+F0FF read as the Symbol
// font's code it stands for; other text is as it was.
func symbolPUAText(text string) string {
	r, n := utf8.DecodeRuneInString(text)
	if n != len(text) || r < 0xF020 || r > 0xF0FF {
		return text
	}
	if t := symbolEncoding[r-0xF000]; t != "" {
		return t
	}
	return text
}
