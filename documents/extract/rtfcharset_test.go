package extract_test

import "testing"

// TestRTFFontCharsets decodes the bytes of a font's text in its character set's code page
// (\fcharsetN, \cpgN), not only the document's (\ansicpgN): Tika's testRTFJapanese.rtf,
// Shift-JIS in fonts of \fcharset128, read as Windows-1252 ("ƒ]ƒ‹ƒQ" for "ゾルゲ").
func TestRTFFontCharsets(t *testing.T) {
	const fonts = `{\fonttbl{\f0\froman\fcharset0 Times New Roman;}{\f1\fmodern\fprq1\fcharset128 MS Gothic{\*\falt MS ????};}{\f2\fswiss\fcharset204 Arial;}{\f3\fnil\fcharset2 Symbol;}{\f4\fnil\cpg936 SimSun;}{\f5\fnil\fcharset136 MingLiU;}}`
	for _, c := range []struct{ name, rtf, want string }{
		{"japanese", `{\rtf1\ansi\ansicpg1252\deff0` + fonts + `\pard\plain {\f1 \'83\'5d\'83\'8b\'83\'51}\par}`, "ゾルゲ"},
		{"cyrillic, back to the default font", `{\rtf1\ansi\ansicpg1252\deff0` + fonts + `\pard {\f2 \'cf\'f0\'e8\'e2\'e5\'f2} caf\'e9 \f2\'ec\'e8\'f0\plain\'e9\par}`, "Привет café мирé"},
		{"default font", `{\rtf1\ansi\ansicpg1252\deff2` + fonts + `\pard \'cc\'e8\'f0\par}`, "Мир"},
		{"code page, big5", `{\rtf1\ansi\deff0` + fonts + `\pard {\f4 \'d6\'d0\'ce\'c4}{\f5 \'a4\'a4\'a4\'e5}\par}`, "中文中文"},
		{"symbol set: the document's", `{\rtf1\ansi\ansicpg1252\deff0` + fonts + `\pard {\f3 \'e9}\par}`, "é"},
		// an ANSI font (\fcharset0) in a document of a double-byte code page: its bytes that
		// are not of that page are Windows-1252's (RtfPipe's RtfParserTest_5 "J\'e4rvi" and
		// _7's \'93 \'94 quotes, \ansicpg932; they read "�"); bytes of the page stay its
		{"ansi font, shift-jis document", `{\rtf1\ansi\ansicpg932\deff0` + fonts + `\pard J\'e4rvi {\f0 \'93Test\'94} \'82\'b1\par}`, "Järvi “Test” こ"},
		// a Mac document (Cocoa's TextEdit): \fcharset78 and \ansicpg10001, Mac Japanese
		// (Shift-JIS), besides Mac Roman's \fcharset77 (RtfPipe's RtfParserTest_6 read as
		// Windows-1252 mojibake, "ƒVƒ“ƒZƒT")
		{"mac japanese", `{\rtf1\mac\ansicpg10001{\fonttbl\f0\fswiss\fcharset77 Helvetica;\f1\fnil\fcharset78 HiraKakuPro-W3;}\f1 \'82\'cd\'82\'b6\'82\'df\'82\'c9\f0  caf\'8e\par}`, "はじめに café"},
		{"mac japanese document", `{\rtf1\mac\ansicpg10001 \'83\'56\'83\'93\par}`, "シン"},
		{"mac roman document", `{\rtf1\mac caf\'8e\par}`, "café"},
		{"ansi font, cyrillic document", `{\rtf1\ansi\ansicpg1251\deff0` + fonts + `\pard \'cc\'e8\'f0\par}`, "Мир"},
	} {
		t.Run(c.name, func(t *testing.T) { checkRTF(t, c.rtf, c.want) })
	}
}

// TestRTFUTF8Font decodes the bytes of a font whose code page is UTF-8 (\cpg65001) as UTF-8:
// rtfparserkit's testJapaneseUtf8Encoding.rtf ("\'e4\'b8\'ad\'e5\'9c\'8b" in a font of
// \fcharset128\cpg65001), read as Windows-1252 ("ä¸­åœ‹") where it says "中國".
func TestRTFUTF8Font(t *testing.T) {
	for _, c := range []struct{ name, rtf, want string }{
		{"font of code page 65001", `{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fnil\fcharset128\cpg65001 Arial Unicode MS;}}` + "\r\n" + `\'e4\'b8\'ad\'e5\'9c\'8b` + "\r\n}", "中國"},
		{"another font beside it", `{\rtf1\ansi\ansicpg1252\deff1{\fonttbl{\f0\fnil\cpg65001 A;}{\f1\fnil\fcharset0 B;}}caf\'e9 {\f0 \'c3\'a9t\'c3\'a9}\par}`, "café été"},
	} {
		t.Run(c.name, func(t *testing.T) { checkRTF(t, c.rtf, c.want) })
	}
}
