package extract_test

import "testing"

// TestRTFListLabels reads the labels RTF writers put before list items (\listtext, the
// older \pntext) as Word and LibreOffice draw them: Tika's testRTFListMicrosoftWord.rtf and
// testRTFListLibreOffice.rtf read "one", "two" without their "1.", "2.".
func TestRTFListLabels(t *testing.T) {
	const fonts = `{\fonttbl{\f0\fswiss\fcharset0 Arial;}{\f3\fnil\fprq0\fcharset128 OpenSymbol;}}`
	for _, c := range []struct{ name, rtf, want string }{
		{"word", `{\rtf1\ansi\deff0` + fonts + `\pard{\listtext\pard\plain\f0 2.\tab}Two\par{\listtext\pard\plain\f0 a.\tab}Sub\par}`, "2. Two\n\na. Sub"},
		// LibreOffice's: a space before the number; a bullet byte of OpenSymbol, which it
		// calls Shift-JIS, read in the document's code page
		{"libreoffice", `{\rtf1\ansi\deff0` + fonts + `\pard{\listtext\pard\plain  1.\tab}one\par{\listtext\pard\plain \hich\af3\dbch\af3\loch\f3 \'96\tab}first\par}`, "1. one\n\n– first"},
		// TextEdit's: tabs around the bullet, lines ended by a backslash
		{"cocoa", "{\\rtf1\\ansi\\pard{\\listtext\t\\uc0\\u8226 \t}one\\\n{\\listtext\t\\uc0\\u8259 \t}sub\\par}", "• one\n⁃ sub"},
		// a picture font's bullet as a private-use code (Wingdings' square, \u-3929 =
		// U+F0A7: rtf2xml's bullet_list.rtf) is a bullet, not a code no font here draws
		{"symbol font bullet", `{\rtf1\ansi\deff0{\fonttbl{\f0\fswiss\fcharset0 Arial;}{\f14\fnil\fcharset2 Wingdings;}}\pard{\listtext\pard\plain\f14 \u-3929\'a7\tab}First\par}`, "• First"},
		// the same square as a byte of a symbol character set font (libdds's DLL-dds_x.rtf:
		// "\f10 \'a7" with Wingdings \fcharset2 read as "§ Solve:")
		{"symbol font byte", `{\rtf1\ansi\deff0{\fonttbl{\f0\fswiss\fcharset0 Arial;}{\f10\fbidi \fnil\fcharset2\fprq2 Wingdings;}}\pard{\listtext\pard\plain\f10 \loch\af10\hich\f10 \'a7\tab}Solve\par}`, "• Solve"},
		{"legacy", `{\rtf1\ansi\deff0` + fonts + `\pard{\pntext\pard\plain\f0 iv)\tab}{\*\pn\pnlvlbody\pnlcrm{\pntxta )}}Fourth\par}`, "iv) Fourth"},
	} {
		t.Run(c.name, func(t *testing.T) { checkRTF(t, c.rtf, c.want) })
	}
}

// TestRTFStarredMidGroup: "\*" marks an ignorable destination only at the start of a group;
// StarWriter writes it amid a run's formatting (Tika's testRTFIgnoredControlWord.rtf, whose
// only sentence was skipped: "no text").
func TestRTFStarredMidGroup(t *testing.T) {
	for _, c := range []struct{ name, rtf, want string }{
		{"mid group", `{\rtf1\ansi\pard{\loch\f2\fs24\i0\b0\*\cs7\cf0\rtlch\ltrch The quick brown fox}\par}`, "The quick brown fox"},
		{"destination", `{\rtf1\ansi\pard{\*\generator Writer;}{\*\unknown SKIPPED}Kept\par}`, "Kept"},
		// a line break between the brace and "\*" is no text: it still starts the group
		// (Aspose.Words writes "{\n\*\latentstyles …}" and "{\n\*\wgrffmtfilter 013f}";
		// unstructured's eng_spa_mult.rtf read 130 latent style names and "013f")
		{"after a line break", "{\\rtf1\\ansi{\r\n\\*\\latentstyles\\lsdstimax267{\\lsdpriority0 Normal;}}{\n\\*\\wgrffmtfilter 013f}\\pard Kept\\par}", "Kept"},
	} {
		t.Run(c.name, func(t *testing.T) { checkRTF(t, c.rtf, c.want) })
	}
}
