package extract_test

import "testing"

// TestRTFCodePages decodes \'hh bytes in the code pages pandoc or Word honour that were read
// as Windows-1252: IBM PC's \pc (437) and \pca (850), which pandoc reads ("caf\'82" is
// "café", not "caf‚"); Word's \ansicpgN of KOI8, ISO 8859, Mac Cyrillic and the DOS pages;
// and a font's Unicode pages, UTF-16 little endian (\cpg1200) and big endian (\cpg1201).
func TestRTFCodePages(t *testing.T) {
	for _, c := range []struct{ name, rtf, want string }{
		{"pc", `{\rtf1\pc\deff0{\fonttbl{\f0 Courier;}}\f0 caf\'82 na\'8bve \'9a\'e1\par}`, "café naïve Üß"},
		{"pca", `{\rtf1\pca\deff0{\fonttbl{\f0 Courier;}}\f0 caf\'82 \'d5\par}`, "café ı"},
		{"pc, then a document page", `{\rtf1\pc\ansicpg1251\deff0{\fonttbl{\f0 Courier;}}\f0 \'cc\'e8\'f0\par}`, "Мир"},
		{"koi8-r", `{\rtf1\ansi\ansicpg20866\deff0{\fonttbl{\f0 Courier;}}\f0 \'f0\'d2\'c9\'d7\'c5\'d4\par}`, "Привет"},
		{"koi8-u", `{\rtf1\ansi\ansicpg21866\deff0{\fonttbl{\f0 Courier;}}\f0 \'a4\'b6\par}`, "єІ"},
		{"iso 8859-5", `{\rtf1\ansi\ansicpg28595\deff0{\fonttbl{\f0 Courier;}}\f0 \'bf\'e0\'d8\'d2\'d5\'e2\par}`, "Привет"},
		{"iso 8859-2", `{\rtf1\ansi\ansicpg28592\deff0{\fonttbl{\f0 Courier;}}\f0 \'b3\'f3d\'bc\par}`, "łódź"},
		{"iso 8859-15", `{\rtf1\ansi\ansicpg28605\deff0{\fonttbl{\f0 Courier;}}\f0 \'a4\par}`, "€"},
		{"mac cyrillic", `{\rtf1\mac\ansicpg10007\deff0{\fonttbl{\f0 Geneva;}}\f0 \'8c\'e8\'f0\par}`, "Мир"},
		{"dos latin 2", `{\rtf1\ansi\ansicpg852\deff0{\fonttbl{\f0 Courier;}}\f0 \'88\'a2d\'ab\par}`, "łódź"},
		{"font of utf-16le", `{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fcharset0 Arial;}{\f1\cpg1200 Arial Unicode MS;}}caf\'e9 {\f1 \'16\'04\'38\'04\'32\'04}\par}`, "café Жив"},
		{"font of utf-16be", `{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fcharset0 Arial;}{\f1\cpg1201 Arial Unicode MS;}}{\f1 \'4e\'2d\'65\'87}\par}`, "中文"},
	} {
		t.Run(c.name, func(t *testing.T) { checkRTF(t, c.rtf, c.want) })
	}
}
