package pdftext

import (
	"fmt"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// pdfWith is a one-page PDF drawing content with font F1 (fontDict) and an optional
// ToUnicode map.
func pdfWith(fontDict, toUnicode, content string) []byte {
	if toUnicode == "" {
		return pdfWithFont(fontDict, content)
	}
	return pdfWithFont(fontDict, content, testdocs.Stream("", []byte(toUnicode)))
}

const widths = "/FirstChar 0 /LastChar 255 /Widths [" // + 256 widths of 500

func simpleFont(extra string) string {
	return "<< /Type /Font /Subtype /Type1 /BaseFont /Test " + widths + strings.Repeat("500 ", 256) + "] " + extra + " >>"
}

func TestText(t *testing.T) {
	tests := []struct {
		name, font, toUnicode, content, want string
	}{
		{"TJ spacing makes words", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td [(for)-333(example)] TJ ET", "for example"},
		{"kerning does not", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td [(W)80(ord)] TJ ET", "Word"},
		{"code set in fixed columns wider than its glyphs breaks words only at a skipped column", simpleFont(""), "",
			// yosys's beamer slides (listings, columns=fixed): glyphs 0.5 em wide in columns of
			// about 0.6, each 0.10–0.13 em from the next, a space a whole column more
			"BT /F1 10 Tf 72 700 Td [(d) -100 (e) -130 (s) -110 (i) -100 (g) -130 (n) -110 (-) -100 (>) -130 (m) -110 (o) -100 (d) -130 (u) -110 (l) -100 (e) -130 (s) -110 (\\() -100 (a) -130 (,) -700 (b) -110 (\\)) -100 (;)] TJ ET",
			"design->modules(a, b);"},
		{"a fixed-columns line with typographic quotes in its font's columns", simpleFont("/Encoding << /Differences [147 /quotedblright] >>"), "",
			// debian-edu's bookworm manual (dblatex, xdvipdfmx): glyphs 0.06 em apart, the
			// hyphens a little farther; the quotes kept the column rule off and the line read
			// "ldap -createuser -krb5 ”Harry Hirsch ”"
			"BT /F1 10 Tf 72 700 Td [(l) -60 (d) -60 (a) -60 (p) -60 (-) -200 (c) -60 (r) -60 (e) -60 (a) -60 (t) -60 (e) -60 (-) -200 (k) -60 (r) -60 (b) -660 (\223) -60 (H) -60 (a) -60 (r) -60 (r) -60 (y) -660 (H) -60 (i) -60 (r) -60 (s) -60 (c) -60 (h) -60 (\223)] TJ ET",
			"ldap-create-krb ”Harry Hirsch”"},
		{"a line at the margin under indented code follows it, not read as a column before it", simpleFont(""), "",
			// enfuse's manual: a class's "};" under its method, indented four columns, read
			// before the method ("}" "};" "double weight(double y) override {")
			"BT /F1 10 Tf 72 700 Td (struct Linear {) Tj ET BT /F1 10 Tf 92 676 Td (double w\\(\\) {) Tj 20 -12 Td (return 0;) Tj -20 -12 Td (}) Tj -20 -12 Td (};) Tj ET",
			"struct Linear {\n\ndouble w() {\nreturn 0;\n}\n};"},
		{"but not glyphs drawn closer than their widths", simpleFont(""), "",
			// dblatex's manual, a figure's font of one default width: "bla bla", drawn overlapping
			"BT /F1 10 Tf 72 700 Td [(b) 50 (l) 50 (a) -250 (b) 50 (l) 50 (a) -250 (b) 50 (l) 50 (a) -250 (b) 50 (l) 50 (a) -250 (b) 50 (l) 50 (a) -250 (b) 50 (l) 50 (a) -250 (b) 50 (l) 50 (a) -250 (b) 50 (l) 50 (a) -250 (b) 50 (l) 50 (a)] TJ ET",
			"bla bla bla bla bla bla bla bla bla"},
		{"Td moves make lines", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (go to) Tj 0 -12 Td (Start) Tj ET", "go to\nStart"},
		{"Differences and glyph names", simpleFont("/Encoding << /Differences [65 /uni0418 /afii10032 /fi /f_l /u1F600] >>"), "",
			"BT /F1 10 Tf 72 700 Td (ABCDE) Tj ET", "ИОfifl😀"},
		{"ToUnicode ligature and presentation forms", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 2 beginbfchar <41> <FB01> <42> <0065> endbfchar",
			"BT /F1 10 Tf 72 700 Td (AB) Tj ET", "fie"},
		{"vertical forms of punctuation read as their horizontal characters", simpleFont("/ToUnicode 6 0 R"),
			// Distiller's VFont notice (PDFBox's PDFBOX-3127): "Section 38-3-110(5)" drawn
			// with the vertical parentheses ︵ ︶ of a Japanese font
			"1 begincodespacerange <00> <FF> endcodespacerange 4 beginbfchar <41> <FE35> <42> <FE36> <43> <FE11> <35> <0035> endbfchar",
			"BT /F1 10 Tf 72 700 Td (A5BC) Tj ET", "(5)、"},
		{"a zero-width non-joiner between CJK and Latin text joins nothing", simpleFont("/ToUnicode 6 0 R"),
			// zxjafont.pdf (xdvipdfmx): xeCJK's boundary glyph, mapped to U+200C, drawn on
			// both sides of a Latin word in Japanese text
			"1 begincodespacerange <00> <FF> endcodespacerange 8 beginbfchar <41> <65E5> <42> <672C> <5A> <200C> <69> <0069> <70> <0070> <61> <0061> <65> <0065> <78> <0078> endbfchar",
			"BT /F1 10 Tf 72 700 Td (AB ZipaexZ BA) Tj ET", "日本 ipaex 本日"},
		{"a ToUnicode map's block ends written onto the next token", simpleFont("/ToUnicode 6 0 R"),
			// llPDFLib's (PdfPig's issue_1331.pdf): "endcodespacerange4 beginbfchar…endbfcharendcmap"
			"1 begincodespacerange <20> <23> endcodespacerange2 beginbfchar<41> <00DC><42> <00E4>endbfcharendcmap",
			"BT /F1 10 Tf 72 700 Td (ABmardus) Tj ET", "Üämardus"},
		{"the Symbol font's Private Use code points read as its characters", strings.Replace(simpleFont("/ToUnicode 6 0 R"), "/Test", "/JFBJJA+SymbolMT", 1),
			// rtklib's manual (Word, Distiller 9.5): SymbolMT's ToUnicode maps codes to U+F000
			// plus the code; pdftotext prints "\uf06c" for λ
			"1 begincodespacerange <00> <FF> endcodespacerange 4 beginbfchar <6C> <F06C> <2B> <F02B> <66> <F066> <B4> <F0B4> endbfchar",
			"BT /F1 10 Tf 72 700 Td (l + f \264 f) Tj ET", "λ + φ × φ"},
		{"another font's Private Use code points stay", strings.Replace(simpleFont("/ToUnicode 6 0 R"), "/Test", "/Wingdings-Regular", 1),
			"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <6C> <F06C> endbfchar",
			"BT /F1 10 Tf 72 700 Td (l) Tj ET", "\uf06c"},
		{"a space glyph mapped to a tab parts words (Word on the Mac: Calibri's space is U+0009)", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <25> <0009> endbfchar",
			"BT /F1 10 Tf 72 700 Td [(As%)-100(noted%earlier)] TJ ET", "As noted earlier"},
		{"a line drawn four times a third of a point apart reads once (Quartz's fake bold)", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (Subject:) Tj ET BT /F1 10 Tf 72.33 700 Td (Subject:) Tj ET BT /F1 10 Tf 72.33 700 Td (Subject:) Tj ET " +
				"BT /F1 10 Tf 72.67 700 Td (Subject:) Tj ET BT /F1 10 Tf 120 700 Td (Re: mail) Tj ET", "Subject: Re: mail"},
		{"a word drawn again over itself after other text reads once", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (Ab) Tj 13 0 Td (cd) Tj ET BT /F1 10 Tf 72.8 700 Td (Ab) Tj ET", "Ab cd"},
		{"hyphenated line ends rejoin", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (a hyphen-) Tj 0 -12 Td (ated word) Tj ET", "a hyphenated word"},
		{"hyphenated line ends rejoin in a text set one and a half spaced (INSTEAD's manuals)", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (a \"hyphen-) Tj 0 -15.5 Td (ated\" word) Tj ET", "a \"hyphenated\" word"},
		{"a hyphen after a digit at a line's end joins its compound, the hyphen kept", simpleFont(""), "",
			// CERMINE's test3.pdf and example3.pdf (Distiller): "H3-" "26)", "2.17-" "2.06(9H,",
			// "amino)-2-" "phenylethyl)": hyphens of the text, which pdftotext drops ("H326)")
			"BT /F1 10 Tf 72 700 Td (the H3-) Tj 0 -12 Td (26 and 3,6-) Tj 0 -12 Td (dione, pages 3-) Tj 0 -12 Td (26 or 5-) Tj 0 -12 Td (lines apart) Tj ET",
			"the H3-26 and 3,6-dione, pages 3-26 or 5-\nlines apart"},
		{"a hyphen after a letter before a digit joins a name and its number, the hyphen kept", simpleFont(""), "",
			// bibtool's Changes.pdf (pdfTeX): "to work with UTF-" "8."; pdftotext drops the
			// hyphen ("UTF8."). A label of one word stays on its line.
			"BT /F1 10 Tf 72 700 Td (routines to work with UTF-) Tj 0 -12 Td (8. The MPEG-) Tj 0 -12 Td (4 codec) Tj 0 -20 Td (Pin-) Tj 0 -12 Td (12 volts) Tj ET",
			"routines to work with UTF-8. The MPEG-4 codec\n\nPin-\n12 volts"},
		{"but not before a folio or a section's number", simpleFont(""), "",
			// lshort-finnish: "muutamia ko-" over its page's number; pari's users.pdf: "analytic
			// con-" over the heading "3.11.44 incgam(s, x, {g})"
			"BT /F1 10 Tf 72 700 Td (on muutamia ko-) Tj 0 -12 Td (4) Tj 0 -12 Td (by analytic con-) Tj 0 -12 Td (3.11.44 incgam of s) Tj ET",
			"on muutamia ko-\n4\nby analytic con-\n3.11.44 incgam of s"},
		{"nor after a word of code", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (compdef -value-,-default-) Tj 0 -15.5 Td (specifies that) Tj ET", "compdef -value-,-default-\n\nspecifies that"},
		{"but not across a paragraph's gap", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (a hyphen-) Tj 0 -40 Td (ated word) Tj ET", "a hyphen-\n\nated word"},
		{"a word in capitals rejoins (a licence's disclaimer)", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (BUT NOT LIMIT-) Tj 0 -12 Td (ED WARRANTY) Tj ET", "BUT NOT LIMITED WARRANTY"},
		{"a capital after a line in lower case keeps the hyphen (an acronym's compound)", simpleFont(""), "",
			// CERMINE's papers' "Ac-" "SDKP", "Cornell-" "Bell" read as two lines, the compound
			// parted (pdftotext drops the hyphen: "CNFSAT", "AcSDKP")
			"BT /F1 10 Tf 72 700 Td (the corresponding CNF-) Tj 0 -12 Td (SAT instance) Tj ET", "the corresponding CNF-SAT instance"},
		{"but not after a line of one word or an option", simpleFont(""), "",
			// xfig's labels "Motor-" over "Vcc"; zsh's "-array-value-" before its description
			"BT /F1 10 Tf 72 700 Td (Motor-) Tj 0 -12 Td (Vcc) Tj 0 -12 Td (the context -array-value-) Tj 0 -12 Td (The value) Tj ET",
			"Motor-\nVcc\nthe context -array-value-\nThe value"},
		{"a capital after a hyphen joins into a word the document writes so (TraceMonkey)", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (TraceMonkey runs. We call it Trace-) Tj 0 -12 Td (Monkey and Sun-) Tj 0 -12 Td (Spider) Tj ET",
			"TraceMonkey runs. We call it TraceMonkey and Sun-Spider"},
		{"right to left in logical order", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <41> <0633> <42> <0644> <43> <0627> endbfchar",
			// drawn left to right as seen: alef, lam, sin (سلا read right to left)
			"BT /F1 10 Tf 72 700 Td (CBA) Tj ET", "سلا"},
		{"a Thai mark drawn without advance stays after its letter, its origin a hair past the next", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 65 /LastChar 67 /Widths [500 0 500] /ToUnicode 6 0 R >>",
			"1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <41> <0E04> <42> <0E37> <43> <0E2D> endbfchar",
			// ค, the mark ื and อ, the TJ adjustment drawing อ a hair back: คือ, not คอื
			"BT /F1 10 Tf 72 700 Td [(AB) 0.01 (C)] TJ ET", "คือ"},
		{"a Cyrillic titlo drawn without advance a hair past the next letter's origin stays after its letter", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 65 /LastChar 68 /Widths [500 500 0 500] /ToUnicode 6 0 R >>",
			"1 begincodespacerange <00> <FF> endcodespacerange 4 beginbfchar <41> <0411> <42> <043B> <43> <0483> <44> <0433> endbfchar",
			// XeTeX's Church Slavonic: Б, л, the titlo 0.15 pt past the advance, г: Бл҃г, not Блг҃
			"BT /F1 10 Tf 72 700 Td (AB) Tj 1 0 0 1 82.15 700 Tm (C) Tj 1 0 0 1 82 700 Tm (D) Tj ET", "Бл҃г"},
		{"a math accent drawn before its letter, over it, reads after it", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 65 /LastChar 67 /Widths [400 0 500] /ToUnicode 6 0 R >>",
			"1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <41> <0028> <42> <0304> <43> <007A> endbfchar",
			// exam-zh's firstpage.pdf (XeTeX, \bar z): "(", the macron past z's origin, then z: (z̄, not ( ̄z
			"BT /F1 10 Tf 72 700 Td (A) Tj 1 0 0 1 78.5 700 Tm (B) Tj 1 0 0 1 76 700 Tm (C) Tj ET", "(z\u0304"},
		{"a narrow glyph drawn twice by its advance is two glyphs, not a redraw", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 65 /LastChar 66 /Widths [116 500] /ToUnicode 6 0 R >>",
			"1 begincodespacerange <00> <FF> endcodespacerange 2 beginbfchar <41> <0648> <42> <0635> endbfchar",
			// docling's right_to_left_02.pdf (Word): the glyph its ToUnicode maps to و, 1.5 pt
			// wide, drawn again 0.54 pt back from its advance: both read, as pdftotext reads them
			"BT /F1 12.96 Tf 72 700 Td [(BA) 42 (A)] TJ ET", "ووص"},
		{"a Khmer vowel sign drawn without advance a hair past the next letter's origin stays after its letter", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 65 /LastChar 66 /Widths [500 0] /ToUnicode 6 0 R >>",
			"1 begincodespacerange <00> <FF> endcodespacerange 2 beginbfchar <41> <179F> <42> <17BD> endbfchar",
			// fpdf2's KhmerOS line: ស, the sign ួ placed 0.5 pt past its advance, ស: សួស, not សសួ
			"BT /F1 10 Tf 72 700 Td (A) Tj 1 0 0 1 77.5 700 Tm (B) Tj 1 0 0 1 77 700 Tm (A) Tj ET", "សួស"},
		{"digits in right-to-left text keep their order", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 6 beginbfchar <20> <0020> <41> <0633> <42> <0644> <43> <0627> <44> <06F4> <45> <06F5> endbfchar",
			// seen left to right: the number ۴۵ (read left to right), then سلا
			"BT /F1 10 Tf 72 700 Td (DE CBA) Tj ET", "سلا ۴۵"},
		{"punctuation at a right-to-left word's ends in a left-to-right line stays in place", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 7 beginbfchar <20> <0020> <21> <0021> <2C> <002C> <41> <05D0> <42> <05D1> <61> <0061> <62> <0062> endbfchar",
			// seen left to right: "ab !AB," — the Hebrew word בא between ! and ,
			"BT /F1 10 Tf 72 700 Td (ab !BA, ab) Tj ET", "ab !אב, ab"},
		{"a word mixing Latin and Arabic keeps its Latin letters in order", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 5 beginbfchar <20> <0020> <41> <0633> <42> <0644> <43> <0627> <7B> <007B> endbfchar",
			// seen left to right: "abcd", then "xy={" and the Arabic word سلا (drawn as alef,
			// lam, sin) with no space between
			"BT /F1 10 Tf 72 700 Td (abcd xy={CBA) Tj ET", "abcd xy={سلا"},
		{"a number between right-to-left words in a left-to-right line", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 5 beginbfchar <20> <0020> <41> <05D0> <42> <05D1> <31> <0031> <32> <0032> endbfchar",
			// seen left to right: "abc", then Hebrew בא 12 אב, read right to left: "אב 12 בא"
			"BT /F1 10 Tf 72 700 Td (abcdef AB 12 BA) Tj ET", "abcdef אב 12 בא"},
		{"a space drawn and taken back is no word break", simpleFont(""), "",
			// XeTeX draws a zero-width non-joiner inside a Persian word as the space glyph
			// moved back by its own width (500 units)
			"BT /F1 10 Tf 72 700 Td [(ab ) 500 (cd) -500 (ef)] TJ ET", "abcd ef"},
		{"a number after Latin letters in a right-to-left line stays with them", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 7 beginbfchar <20> <0020> <41> <0633> <42> <0644> <43> <0627> <55> <0055> <2D> <002D> <38> <0038> endbfchar",
			// seen left to right: "U-8" then سلا twice: the line is right to left
			"BT /F1 10 Tf 72 700 Td (U-8 CBA CBA) Tj ET", "سلا سلا U-8"},
		{"a Devanagari i sign drawn before its conjunct comes after it", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 6 beginbfchar <41> <0935> <42> <0948> <43> <0915> <44> <093F> <45> <0932094D> <46> <092A> endbfchar",
			// drawn as seen: va, ai sign, ka, i sign, half la, pa, ka
			"BT /F1 10 Tf 72 700 Td (ABCDEFC) Tj ET", "वैकल्पिक"},
		{"a Devanagari vowel sign set lower after its letter stays in its word", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 4 beginbfchar <41> <0926> <42> <0942> <43> <0938> <44> <0930> endbfchar",
			// refcard-hi-a4.pdf (XeTeX): da, then its uu sign a hair after it and a point
			// lower, then sa, ra: one word, where a footnote mark so placed would be a word
			// of its own
			"BT /F1 10 Tf 72 700 Td (A) Tj -1 Ts [-50 (B)] TJ 0 Ts (CD) Tj ET", "दूसर"},
		{"i signs drawn in text order by a program that did not shape stay", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <20> <0020> <43> <0915> <44> <093F> endbfchar",
			"BT /F1 10 Tf 72 700 Td (CD CDC) Tj ET", "कि किक"},
		{"an i sign inside a word, drawn in text order, stays where a second vowel follows the cluster", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 6 beginbfchar <41> <0939> <42> <093F> <43> <0928> <44> <094D> <45> <0926> <46> <0940> endbfchar",
			// fpdf2 with its shaping off: ha, i sign, na, virama, da, ii sign (हिन्दी); moved
			// over न्द the i sign would give that cluster two vowels: हन्दिी
			"BT /F1 10 Tf 72 700 Td (ABCDEF) Tj ET", "हिन्दी"},
		{"a Malayalam e sign drawn before its letter, the next cluster's e sign after it", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <41> <0D46> <42> <0D33> <43> <0D2F> endbfchar",
			// as shaped: e sign, lla, e sign, ya: ളെയെ
			"BT /F1 10 Tf 72 700 Td (ABAC) Tj ET", "\u0D33\u0D46\u0D2F\u0D46"},
		{"a Bengali e sign drawn before its letter joins the aa sign after it", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <41> <09C7> <42> <0995> <43> <09BE> endbfchar",
			// as shaped: e sign, ka, aa sign: কো
			"BT /F1 10 Tf 72 700 Td (ABC) Tj ET", "\u0995\u09C7\u09BE"},
		{"brackets a producer names by the characters they stand for, drawn mirrored in a right-to-left line", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 11 beginbfchar <20> <0020> <28> <0028> <29> <0029> <3A> <003A> <45> <0045> <6E> <006E> " +
				"<41> <05D0> <42> <05D1> <43> <05D2> <44> <05D3> <48> <05D4> endbfchar",
			// fpdf2's "אב (גד: En) ה" as HarfBuzz lays it out, left to right: ה, ")", "En", ":",
			// דג, "(", בא, its mirrored brackets mapped to "(" and ")" as the text has them
			"BT /F1 10 Tf 72 700 Td (H \\)En :DC\\( BA) Tj ET", "אב (גד: En) ה"},
		{"such brackets around a Latin run in a right-to-left line", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 7 beginbfchar <20> <0020> <28> <0028> <29> <0029> <45> <0045> <6E> <006E> <41> <05D0> <42> <05D1> endbfchar",
			// "בבב (En) אאא": fpdf2's Arabic lorem ipsum's "(Cicero)"
			"BT /F1 10 Tf 72 700 Td (AAA \\)En\\( BBB) Tj ET", "בבב (En) אאא"},
		{"a space drawn over the glyph before it, the next glyph abutting that one, is no word break", simpleFont(""), "",
			// dvipdfmx places the glyphs by moves: "ab" ends at 82, the space is drawn at 77,
			// "cd" starts at 82
			"BT /F1 10 Tf 72 700 Td (ab) Tj 5 0 Td ( ) Tj 5 0 Td (cd) Tj -10 -12 Td (a b) Tj ET", "abcd\na b"},
		{"signs between Latin and Arabic in a right-to-left line go with the Latin", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 8 beginbfchar <20> <0020> <41> <0633> <42> <0644> <43> <0627> <5C> <005C> <5B> <005B> <5D> <005D> <78> <0078> endbfchar",
			// seen left to right: "\\x[x]" between two Arabic words: the line is right to left
			"BT /F1 10 Tf 72 700 Td (CBA \\\\x[x] CBA) Tj ET", "سلا \\x[x] سلا"},
		{"a mark drawn on its letter does not part the word", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 65 /LastChar 67 /Widths [500 500 0] /ToUnicode 6 0 R >>",
			"1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <41> <0628> <42> <062A> <43> <0650> endbfchar",
			// seen left to right: beh (72–77) with a kasra of no advance at 74, then teh at 77; drawn as
			// XeTeX draws a cluster, the kasra first (a mark drawn after a letter of a line drawn
			// left to right belongs to the next letter: Amiri's "استُخدِم")
			"BT /F1 10 Tf 74 700 Td (C) Tj -2 0 Td (A) Tj 5 0 Td (B) Tj ET", "تبِ"},
		{"a mark goes with the letter drawn before it in a line drawn right to left", arabicMarks, arabicMarksMap,
			// LuaTeX: beh at 77, its fatha at 75 (where teh, drawn next at 72, stands), teh
			"BT /F1 10 Tf 77 700 Td (A) Tj -2 0 Td (C) Tj -3 0 Td (B) Tj ET", "بَت"},
		{"a mark goes with the letter drawn after it in a line drawn left to right", arabicMarks, arabicMarksMap,
			// XeTeX: teh at 72, then beh's fatha at 76.8 (within teh), then beh at 77
			"BT /F1 10 Tf 72 700 Td [(B) 20 (C) -20 (A)] TJ ET", "بَت"},
		{"alef and hamza above read composed", arabicMarks, arabicMarksMap,
			// XeTeX: the hamza drawn first, over the end of lam, then alef
			"BT /F1 10 Tf 72 700 Td [(F) 20 (E) -20 (D)] TJ ET", "أل"},
		{"kashidas inside a word are left out, a tatweel before a suffix stays", arabicMarks, arabicMarksMap + " 2 beginbfchar <47> <0640> <48> <061D> endbfchar",
			// seen left to right: teh, a kashida glyph, tatweel, beh; a gap; tatweel, beh
			"BT /F1 10 Tf 72 700 Td (BHGA) Tj 30 0 Td (GA) Tj ET", "بـ بت"},
		{"brackets in right-to-left text read mirrored", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 32 /LastChar 66 /Widths [" + strings.Repeat("500 ", 35) + "] /ToUnicode 6 0 R >>",
			"1 begincodespacerange <00> <FF> endcodespacerange 5 beginbfchar <20> <0020> <28> <0028> <29> <0029> <41> <0628> <42> <062A> endbfchar",
			// seen left to right: teh, "(", beh, ")", teh, as the page shows "ت (ب) ت": the
			// opening bracket, read first, drawn right of beh with the glyph of ")"
			"BT /F1 10 Tf 72 700 Td (B \\(A\\) B) Tj ET", "ت (ب) ت"},
		{"a figure's small letters inside circles stay apart from them", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 5 beginbfchar <42> <2022> <43> <25E6> <4C> <004C> <45> <0045> <56> <0056> endbfchar",
			// textopo's helical wheel: each circle a 12-point "•" and "◦" drawn at one origin, a
			// 3.3-point letter inside it, the next circle 4.6 points on, overlapping
			"BT /F1 12 Tf 1 0 0 1 100 700 Tm (B) Tj 1 0 0 1 100 700 Tm (C) Tj /F1 3.3 Tf 1 0 0 1 102 701.8 Tm (L) Tj" +
				" /F1 12 Tf 1 0 0 1 104.6 700 Tm (B) Tj 1 0 0 1 104.6 700 Tm (C) Tj /F1 3.3 Tf 1 0 0 1 106.6 701.8 Tm (E) Tj" +
				" /F1 12 Tf 1 0 0 1 109.2 700 Tm (B) Tj 1 0 0 1 109.2 700 Tm (C) Tj /F1 3.3 Tf 1 0 0 1 111.2 701.8 Tm (V) Tj ET",
			// the letters a line of their own, each circle's two glyphs two words (pdftotext's
			// "•" "◦" "◦•")
			"L E V\n• ◦• ◦• ◦"},
		{"a bracket pair in right-to-left text reads as a pair", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 32 /LastChar 97 /Widths [" + strings.Repeat("500 ", 66) + "] /ToUnicode 6 0 R >>",
			"1 begincodespacerange <00> <FF> endcodespacerange 8 beginbfchar <20> <0020> <31> <0661> <32> <0662> <41> <0633> <42> <0644> <43> <0627> <5B> <005B> <5D> <005D> endbfchar",
			// seen left to right: سلا, "[١٢a]" (a citation: its brackets drawn mirrored, the
			// number and the Latin letter left to right inside), سلا
			"BT /F1 10 Tf 72 700 Td (CBA [12a] CBA) Tj ET", "سلا [١٢a] سلا"},
		{"a formula's brackets in a right-to-left line stay in the formula", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 32 /LastChar 122 /Widths [" + strings.Repeat("500 ", 91) + "] /ToUnicode 6 0 R >>",
			"1 begincodespacerange <00> <FF> endcodespacerange 8 beginbfchar <20> <0020> <30> <0030> <41> <0633> <42> <0644> <43> <0627> <28> <0028> <29> <0029> <66> <0066> endbfchar",
			// seen left to right: سلا, "f(x0)" (its number after a Latin letter), سلا
			"BT /F1 10 Tf 72 700 Td (CBA f\\(x0\\) CBA) Tj ET", "سلا f(x0) سلا"},
		{"a formula starting with a bracket in a right-to-left line keeps its order", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 32 /LastChar 122 /Widths [" + strings.Repeat("500 ", 91) + "] /ToUnicode 6 0 R >>",
			"1 begincodespacerange <00> <FF> endcodespacerange 9 beginbfchar <20> <0020> <30> <0030> <41> <0633> <42> <0644> <43> <0627> <28> <0028> <29> <0029> <78> <0078> <3D> <003D> endbfchar",
			// seen left to right: سلا, "(x)(x0) = 0" (a left-to-right run, Arabic on its right), سلا
			"BT /F1 10 Tf 72 700 Td (CBA \\(x\\)\\(x0\\) = 0 CBA) Tj ET", "سلا (x)(x0) = 0 سلا"},
		{"a tight right-to-left line parts words at its narrow gaps", arabicMarks, arabicMarksMap,
			// beh and teh drawn edge to edge, 0.05 em between three runs (AlkalamiSample)
			"BT /F1 10 Tf 72 700 Td [(ABABAB) -50 (ABABAB) -50 (ABAB)] TJ ET", "تبتب تبتبتب تبتبتب"},
		{"a line with a kerned gap is not tight", arabicMarks, arabicMarksMap,
			"BT /F1 10 Tf 72 700 Td [(ABABAB) -50 (ABABAB) -10 (ABAB)] TJ ET", "تبتبتبتبتبتبتبتب"},
		{"a mark drawn off its letter's baseline stays with it", arabicMarks, arabicMarksMap,
			// LuaTeX: beh at 77, its fatha drawn next 0.6 em above the baseline, then teh at 72
			"BT /F1 10 Tf 77 700 Td (A) Tj 0 6 Td (C) Tj -5 -6 Td (B) Tj ET", "بَت"},
		{"columns read one after the other", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (left one) Tj 300 0 Td (right one) Tj -300 -12 Td (left two) Tj 300 0 Td (right two) Tj ET",
			"left one\nleft two\n\nright one\nright two"},
		{"a letter-spaced line is one word, as pdftotext reads it", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td [(a) -300 (b) -300 (c) -300 (d) -900 (e)] TJ ET", "abcd e"},
		{"a chart line with a glyph of two characters is not letter-spaced (pdftotext: tipaman's T1 chart)", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 5 beginbfchar <41> <0061> <42> <0062> <43> <0063> <44> <00660066> <45> <0065> endbfchar",
			"BT /F1 10 Tf 72 700 Td [(A) -300 (B) -300 (C) -300 (D) -300 (E)] TJ ET", "a b c ff e"},
		{"a letter with its mark counts as one in a letter-spaced line", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <41> <0061> <42> <03D10307> <43> <0063> endbfchar",
			"BT /F1 10 Tf 72 700 Td [(A) -300 (B) -300 (C)] TJ ET", "aϑ̇c"},
		{"a heading letter-spaced by Tc is a word", simpleFont(""), "",
			"BT /F1 10 Tf 3 Tc 72 700 Td (SUMMARY) Tj 0 Tc 0 -14 Td (body text) Tj ET", "SUMMARY\nbody text"},
		{"single letters apart by drawn spaces stay apart", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td (a b c) Tj ET", "a b c"},
		{"a form's text is read", simpleFont(""), "", "BT /F1 10 Tf 72 700 Td (only page) Tj ET", "only page"},
		{"ActualText replaces the glyphs of its span", simpleFont(""), "",
			// a Myanmar cluster drawn as three glyphs, the mark first: its text in logical order
			"BT /F1 10 Tf 72 700 Td (see ) Tj /Span << /ActualText <FEFF1000 103C 102C> >> BDC (xyz) Tj EMC ( here) Tj ET",
			"see \u1000\u103c\u102c here"},
		{"glyphs without text count inside ActualText", simpleFont("/ToUnicode 6 0 R"),
			"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <20> <0020> endbfchar",
			"BT /F1 10 Tf 72 700 Td /Span << /ActualText (fi) >> BDC (\001\002) Tj EMC ET", "fi"},
		{"ActualText in PDFDocEncoding, nested spans, a span with no glyph", simpleFont(""), "",
			"BT /F1 10 Tf 72 700 Td /P << /MCID 0 >> BDC /Span << /ActualText (\223 \204) >> BDC /Span << /ActualText (no) >> BDC (a) Tj EMC (b) Tj EMC EMC" +
				" /Span << /ActualText (lost) >> BDC EMC ( end) Tj EMC ET", "fi — end"},
		{"a Type3 font drawn in pixels spaces its words by its em, not its matrix's", type3Pixels(), "",
			// TeX's bitmap fonts: glyph space in pixels (FontMatrix 0.012), an "m" 83 pixels wide
			"BT /F1 17.2 Tf 72 700 Td [(a)-313(word)-313(and)-313(more)] TJ ET", "a word and more"},
		{"a monospaced Type3 font named by codes takes its em from its o, as wide as its first glyph (pdftotext's em)", type3Mono(), "",
			// ngspice's manual (pdfTeX, a bitmap typewriter font: glyphs /a16…/a126 all 51.24
			// wide at 0.01004): letters 0.086 em apart are one word, 0.8 em apart two; an em
			// guessed from the "m" as 0.6 em split every letter ("P O WE R")
			"BT /F1 11.9552 Tf 72 700 Td [(P)-86(O)-86(W)-85(E)-86(R)-796(A)-92(M)-93(P)] TJ ET", "POWER AMP"},
		{"a Type3 font named by codes takes its em from its figures, not a narrower first glyph", type3CodeNamed(nil), "",
			// device-tree-compiler's dtc-paper.pdf (dvips): the first glyph a dotless i, a third
			// of an em, made the em two thirds of the size and a kern of 0.08 em a word's gap
			"BT /F1 10 Tf 72 700 Td [(wo)-80(rd)-333(and)] TJ ET", "word and"},
		{"or from its o beside a wider m, where it draws no figures", type3CodeNamed(map[int]string{'m': "83.3", '0': "0", '5': "0"}), "",
			// its abstract's font, a subset without figures
			"BT /F1 10 Tf 72 700 Td [(wo)-80(rd)-333(and)] TJ ET", "word and"},
		{"but not from an o far wider than its other glyphs (cmex's big operator at that code)", type3CodeNamed(map[int]string{'o': "151", '0': "0"}), "",
			// an em three times the size would take a gap of half the size for no word break
			"BT /F1 10 Tf 72 700 Td [(a)-500(b)] TJ ET", "a b"},
		{"a Type3 font of ideographs takes them for an em wide", type3Ideographs(), type3IdeographsMap,
			// Skia's Type3 fonts of Xmind's Chinese mind map (MinerU's introduction.pdf): a
			// 13.5-point heading beside a node of two 10.5-point lines 15 points apart, the
			// first 8.6 above the heading's baseline. Taken for half an em, the glyphs were
			// twice their size: the first line joined the heading as a superscript and the
			// second line's first glyph was stacked into it ("简式化表示")
			"BT /F1 13.5 Tf 1 0 0 1 72 700 Tm <4445> Tj /F1 10.5 Tf 1 0 0 1 133.5 708.6 Tm <41424647> Tj" +
				" 1 0 0 1 133.5 693.6 Tm <43> Tj ET", "线性\n\n简化表示\n式"},
		{"a ligature without text does not part its word", type3Pixels(), "",
			"BT /F1 10 Tf 72 700 Td [(e\013ectively)-313(done)] TJ ET", "eectively done"},
		{"a code 0 without text after a string widens nothing", simpleFont("/Encoding /WinAnsiEncoding"), "",
			// PDFlib 5's goattracker command chart ends every string with <00> (.notdef,
			// 0.6 em wide): read as the ligature above, it reached over the next string,
			// which went to a line of its own ("ST\n1\nST Slide up. ( is an index")
			"BT /F1 9 Tf 1 0 0 1 41.5 517.9 Tm [(1)<00>] TJ ET BT /F1 9 Tf 1 0 0 1 46 517.9 Tm [(ST)<00>] TJ ET" +
				" BT /F1 8 Tf 1 0 0 1 60 518.9 Tm [(Slide up. \\()<00>] TJ ET BT /F1 8 Tf 1 0 0 1 104 518.9 Tm [(ST)<00>] TJ ET" +
				" BT /F1 8 Tf 1 0 0 1 112 518.9 Tm [( is an index)<00>] TJ ET", "1ST Slide up. (ST is an index"},
		{"a script stacked under a superscript stays in its word", simpleFont(""), "",
			// S_k^new(N): base, superscript, then the subscript back under it, then the rest
			"BT /F1 10 Tf 72 700 Td (initialize S) Tj /F1 7 Tf 60.5 3 Td (new) Tj -0.5 -5 Td (k) Tj /F1 10 Tf 11 2 Td ((N)) Tj ET",
			"initialize Sknew(N)"},
		{"a drop cap's lines are not scripts stacked on it", simpleFont(""), "",
			// ViTE's user manual (lettrine, pdfTeX): a 24.8-point "A" on the second line's
			// baseline, the first line 12 points above it, then the second line after the cap;
			// then a "Q" on its first line's baseline, whose second line starts under it. Taken
			// for scripts stacked on the cap, the two lines ran together glyph by glyph
			// ("Anwswritetren: iVn iTthEe") and the second started in the first ("Qt uestion")
			"BT /F1 24.8 Tf 1 0 0 1 72 688 Tm (A) Tj /F1 10 Tf 1 0 0 1 84.4 700 Tm (nswer : ViTE is not) Tj" +
				" 1 0 0 1 94 688 Tm (written in the) Tj ET" +
				" BT /F1 24.8 Tf 1 0 0 1 72 650 Tm (Q) Tj /F1 10 Tf 1 0 0 1 84.4 650 Tm (uestion : I have some problems when I want to see a trace) Tj" +
				" 1 0 0 1 72 638 Tm (the window) Tj ET",
			"Answer : ViTE is not\nwritten in the\n\nQuestion : I have some problems when I want to see a trace\nthe window"},
		{"a fraction's parts in a script, half the base's size, stay stacked on it", simpleFont(""), "",
			// lyhyt2e's ∫ from 0 to π/2: the 10-point sign, then π at 5 points 0.2 above its
			// baseline, and 2 under π (pdftotext: "π2"); not a drop cap's line
			"BT /F1 10 Tf 72 700 Td (x S) Tj /F1 5 Tf 15 0.2 Td (p) Tj 0.4 -5.1 Td (2) Tj /F1 10 Tf 3 4.9 Td ( dx) Tj ET",
			"x Sp2 dx"},
		{"a line beside a drop cap, a rounding above the cap's baseline, reads after the cap's line", simpleFont(""), "",
			// the same manual: an answer's second line at 214.09201 by its Td moves, the cap at
			// 214.092; read by baselines alone, the second line came first
			"BT /F1 24.8 Tf 1 0 0 1 72 688 Tm (A) Tj /F1 10 Tf 1 0 0 1 84.4 700 Tm (nswer : Try to) Tj" +
				" 0 -11.996 Td (from the sources) Tj ET",
			"Answer : Try to\nfrom the sources"},
		{"a space drawn back over its line's earlier words does not keep the rest apart", simpleFont(""), "",
			// Acrobat's touch-up of a Wells Fargo report (PyMuPDF's test_3725.pdf): a word's
			// rest drawn after a space drawn back over the space before the word ("in loa",
			// " " back over the first space, "ns"; "a", " ", "ft"); read apart, the pieces
			// went to lines of their own
			"BT /F1 6 Tf 1 0 0 1 170 700 Tm (i) Tj 1 0 0 1 173 700 Tm (n) Tj 1 0 0 1 176 700 Tm ( ) Tj 1 0 0 1 179 700 Tm (l) Tj 1 0 0 1 182 700 Tm (o) Tj 1 0 0 1 185 700 Tm (a) Tj 1 0 0 1 175.99 700 Tm ( ) Tj 1 0 0 1 188 700 Tm (n) Tj 1 0 0 1 191 700 Tm (s) Tj 1 0 0 1 194 700 Tm ( ) Tj 1 0 0 1 197 700 Tm (a) Tj 1 0 0 1 193.99 700 Tm ( ) Tj 1 0 0 1 200 700 Tm (f) Tj 1 0 0 1 203 700 Tm (t) Tj ET", "in loans aft"},
		{"a small line right under a heading's start is no script of it", simpleFont(""), "",
			// font-size-test.pdf (pdfminer.six): a 34-point heading, then a 6-point "5" under its
			// first letter, its baseline less than half the heading's size lower
			"BT /F1 34 Tf 72 700 Td (Arial font) Tj /F1 6 Tf 0 -12 Td (5) Tj ET", "Arial font\n5"},
		{"a footnote mark drawn back after its line stays in its word", simpleFont(""), "",
			// dmca.pdf (pdfminer.six): the line, then its superscript mark back after "(DMCA)"
			"BT /F1 10 Tf 72 700 Td [(Act \\(DMCA\\)) -400 ( was signed)] TJ /F1 6 Tf 50.02 4 Td (1) Tj ET", "Act (DMCA)1 was signed"},
		{"a footnote mark raised and smaller half a point after its word is a word of its own", simpleFont(""), "",
			// the ICDAR set's eu-010.pdf (iText): "estimated" and its mark "16" 0.05 em apart,
			// as pdftotext writes them ("estimated 16"); touching, as above, they stay one
			"BT /F1 10 Tf 72 700 Td (is estimated) Tj /F1 6.5 Tf 60.5 4 Td (16) Tj /F1 10 Tf 7 -4 Td ( to allow) Tj ET", "is estimated 16 to allow"},
		{"a fraction's denominator is not a stacked script", simpleFont(""), "",
			// 2 d/dp f inline: the numerator d raised, the wider denominator dp centred under it
			"BT /F1 10 Tf 72 700 Td (2 ) Tj /F1 7 Tf 10 3 Td (d) Tj -1.75 -5 Td (dp) Tj /F1 10 Tf 8.75 2 Td ( f) Tj ET",
			"2 d\ndp f"},
		{"TeX's dot below drawn under a letter makes one letter", simpleFont(""), "",
			// sa\d{m}hit\=a: the m, a period 0.2 em under it, then the rest; a period after a
			// letter stays a period
			"BT /F1 10 Tf 72 700 Td (sam) Tj -2 Ts [500 (.)] TJ 0 Ts (hita.) Tj ET", "saṃhita."},
		{"a mark without advance stays after its letter, drawn a hair past the next", zeroWidthB,
			"1 begincodespacerange <00> <FF> endcodespacerange 4 beginbfchar <41> <0928> <42> <0947> <43> <091F> <44> <0915> endbfchar",
			// नेट क: न, the vowel sign े drawn without advance 0.1 pt past ट's origin, ट; then a
			// word apart, whose mark is drawn over its letter's left half
			"BT /F1 10 Tf 72 700 Td [(A) -10 (B) 10 (C) -500 (D) 400 (B) -400 (A)] TJ ET", "नेट केन"},
		{"a ToUnicode map's U+FFFF is no text: the encoding gives it", simpleFont("/ToUnicode 6 0 R /Encoding << /Differences [35 /angbracketleft /angbracketright] >>"),
			// Quartz's map of Computer Modern's symbol font: ⟨ and ⟩ mapped to <ffff>
			"1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfrange <21> <21> <2217> <23> <23> <ffff> <24> <24> <FFFF> endbfrange",
			"BT /F1 10 Tf 72 700 Td (#file$ !) Tj ET", "⟨file⟩ ∗"},
		{"a ToUnicode map's U+FFFD is no text: the encoding's glyph name gives it", simpleFont("/ToUnicode 6 0 R /Encoding << /Differences [35 /o.2 /dotlessi.ss01 104 /shadowblackcircle] >>"),
			// fonts-solide-mirage's specimen (Adobe PDF Library 15): the decorated O, glyph
			// "o.2", mapped to <FFFD>; a code without a glyph name, and an ornament named
			// arbitrarily at h's code, stay unread
			"1 begincodespacerange <00> <FF> endcodespacerange 4 beginbfchar <23> <FFFD> <24> <FFFD> <01> <FFFD> <68> <FFFD> endbfchar",
			"BT /F1 10 Tf 72 700 Td (S#N $dea\001 h) Tj ET", "SoN ıdea"},
		{"a glyph drawn mirrored stays in its word", simpleFont(""), "",
			// the XeLaTeX logo: X, the E reflected (\\reflectbox: x scale -1), LATEX; text rotated
			// half a turn, and a string drawn mirrored (ReportLab's user guide), stay lines of
			// their own, read in the order drawn
			"BT /F1 10 Tf 72 700 Td (X) Tj ET q -1 0 0 1 164 0 cm BT /F1 10 Tf 82 700 Td (E) Tj ET Q BT /F1 10 Tf 82 700 Td (LATEX) Tj ET" +
				" BT /F1 10 Tf -1 0 0 -1 300 600 Tm (down) Tj ET q -1 0 0 1 400 0 cm BT /F1 10 Tf 100 500 Td (Origin) Tj ET Q", "XELATEX\n\ndown\n\nOrigin"},
		{"mirrored text reads in the order its glyphs advance, its lines as its glyphs' up tells", simpleFont(""), "",
			// Ghostscript's text mirrored (pdfplumber's issue-848.pdf): x flipped, each glyph
			// a string of its own in a TJ array with its kerning; y flipped, its next line
			// higher on the page; turned a quarter and mirrored, its next line to its left
			"BT /F1 10 Tf -1 0 0 1 300 700 Tm [(T) 0 (h) 0 (e) -300 (e) 0 (n) 0 (d)] TJ 0 -12 Td [(t) (w) (o)] TJ ET" +
				" BT /F1 10 Tf 1 0 0 -1 72 100 Tm (first line) Tj 0 -12 Td (second) Tj ET" +
				" BT /F1 10 Tf 0 1 1 0 400 100 Tm (up the page) Tj 0 -12 Td (next) Tj ET",
			"The end\ntwo\n\nfirst line\nsecond\n\nup the page\nnext"},
		{"a Type3 font's text is not taken for mirrored", strings.Replace(type3Pixels(), "[0.012 0 0 0.012 0 0]", "[0.012 0 0 -0.012 0 0]", 1), "",
			// its procedures may draw its glyphs either way: a page space flipped top to
			// bottom (y down, as a screen's) and a font matrix flipping them back up; lines
			// go down the page as text space's y grows
			"1 0 0 -1 0 792 cm BT /F1 10 Tf 72 100 Td (over) Tj 0 12 Td (under) Tj ET", "over\nunder"},
		{"spaces at a line's end do not bridge a gutter", simpleFont(""), "",
			// a column whose letters have no text leaves its word spaces (PyMuPDF's
			// test_2635.pdf): the gap to the next column counts from the last letter
			"BT /F1 10 Tf 72 700 Td (left  ) Tj 0 -12 Td (side  ) Tj ET BT /F1 10 Tf 114 700 Td (right) Tj 0 -12 Td (hand) Tj ET",
			"left\nside\n\nright\nhand"},
		{"a heading close above two columns is read before them, the columns one after the other", simpleFont(""), "",
			// PyMuPDF's test_2635.pdf: a 15-point heading across the gutter, less than half
			// its size above the columns
			"BT /F1 15 Tf 72 720 Td (a heading over both columns of this page) Tj ET" +
				" BT /F1 10 Tf 72 706 Td (the left column of running text, line one) Tj 0 -12 Td (the left column of running text, line two) Tj 0 -12 Td (the left column of running text, line three) Tj ET" +
				" BT /F1 10 Tf 310 706 Td (the right column of running text, line one) Tj 0 -12 Td (the right column of running text, line two) Tj 0 -12 Td (the right column of running text, line three) Tj ET",
			"a heading over both columns of this page\n\nthe left column of running text, line one\nthe left column of running text, line two\nthe left column of running text, line three" +
				"\n\nthe right column of running text, line one\nthe right column of running text, line two\nthe right column of running text, line three"},
		{"a heading close above a table is read before it, the table row by row", simpleFont(""), "",
			// R-intro.pdf: a heading over a table of labels and short cells ("no") stays read
			// row by row, as pdftotext reads it
			"BT /F1 15 Tf 72 720 Td (a heading over the table) Tj ET" +
				" BT /F1 10 Tf 72 706 Td (label one) Tj 0 -12 Td (label two) Tj 0 -12 Td (label three) Tj ET" +
				" BT /F1 10 Tf 150 706 Td (no) Tj 0 -12 Td (yes) Tj 0 -12 Td (no) Tj ET",
			"a heading over the table\nlabel one\nno\nlabel two\nyes\nlabel three\nno"},
		{"a running foot close under two columns is read after them, the columns one after the other", simpleFont(""), "",
			// Wiley's editorial in papermage's fixtures: a foot across the gutter, its
			// 15-point piece less than half its size under the columns (6.25 points), more
			// than half the columns' size
			" BT /F1 10 Tf 72 706 Td (the left column of running text, line one) Tj 0 -12 Td (the left column of running text, line two) Tj 0 -12 Td (the left column of running text, line three) Tj ET" +
				" BT /F1 10 Tf 310 706 Td (the right column of running text, line one) Tj 0 -12 Td (the right column of running text, line two) Tj 0 -12 Td (the right column of running text, line three) Tj ET" +
				" BT /F1 7 Tf 72 662 Td (Journal 2022) Tj ET BT /F1 15 Tf 250 662 Td (a foot across) Tj ET BT /F1 7 Tf 450 662 Td (page 141) Tj ET",
			"the left column of running text, line one\nthe left column of running text, line two\nthe left column of running text, line three" +
				"\n\nthe right column of running text, line one\nthe right column of running text, line two\nthe right column of running text, line three" +
				"\n\nJournal 2022\na foot across\npage 141"},
		{"a running foot close under a page number close under two columns is read after them", simpleFont(""), "",
			// science-parse's P07-1088.pdf, page 1: "696" 3.7 points under the columns and
			// over the gutter's left edge, the foot across the gutter 1.9 points under it
			" BT /F1 10 Tf 72 706 Td (the left column of running text, line one) Tj 0 -12 Td (the left column of running text, line two) Tj 0 -12 Td (the left column of running text, line three) Tj ET" +
				" BT /F1 10 Tf 310 706 Td (the right column of running text, line one) Tj 0 -12 Td (the right column of running text, line two) Tj 0 -12 Td (the right column of running text, line three) Tj ET" +
				" BT /F1 10 Tf 270 671 Td (12) Tj ET BT /F1 10 Tf 150 660 Td (Proceedings of a meeting of the association, pages 12-19) Tj ET",
			"the left column of running text, line one\nthe left column of running text, line two\nthe left column of running text, line three\n12" +
				"\n\nthe right column of running text, line one\nthe right column of running text, line two\nthe right column of running text, line three" +
				"\n\nProceedings of a meeting of the association, pages 12-19"},
		{"a line close under a table is read after it, the table row by row", simpleFont(""), "",
			// as headOverColumns leaves a table of labels and short cells
			" BT /F1 10 Tf 72 706 Td (label one) Tj 0 -12 Td (label two) Tj 0 -12 Td (label three) Tj ET" +
				" BT /F1 10 Tf 150 706 Td (no) Tj 0 -12 Td (yes) Tj 0 -12 Td (no) Tj ET" +
				" BT /F1 15 Tf 72 664 Td (a line under the table) Tj ET",
			"label one\nno\nlabel two\nyes\nlabel three\nno\na line under the table"},
		{"TeX's T1 bitmap fonts: ligatures by their codes", texBitmapFont("c\034\344 aegins"), "",
			// Ghostscript's Type3 fonts of the EC fonts: glyphs "a28" (fi), "a228" (ä)
			"BT /F1 10 Tf 72 700 Td (signi\034cance \344) Tj ET", "significance ä"},
		{"TeX's T1 bitmap fonts: quotes and dashes by their codes", texBitmapFontWidths("\020\021\026\025\034fiakne", map[byte]int{'f': 2979, 'i': 2708, 28: 5417}), "",
			// king's manuals (pdfTeX, ecrm's PK fonts): “ ” at 16 and 17, — at 22, – at 21;
			// pdftotext prints them as control characters, main left them out
			"BT /F1 1 Tf 72 700 Td (a \020kinetic\021 \026 \034ne 1\0252) Tj ET", "a “kinetic” — fine 1–2"},
		{"OT1's codes 16–22 are not T1's quotes", ghostscriptBitmapFont("\013\014\020\026filaeinc", map[byte]int{'f': 2800, 'i': 2600, 'l': 2600, 11: 5300, 12: 5100}), "",
			// cmr's dotless i and macron there
			"BT /F1 1 Tf 72 700 Td (\014ne \020a\026) Tj ET", "fine a"},
		{"TeX's TS1 bitmap fonts: symbols by their codes", texBitmapFont("*\210\260\251"), "",
			// dlt-viewer's and gyoto's manuals (pdfTeX, tcrm's PK font): itemize's \textbullet
			// at 136, read by WinAnsi as "ˆ" (pdftotext prints the code); \textdegree, \textcopyright
			"BT /F1 10 Tf 72 700 Td (\210 20\260 \251 *) Tj ET", "• 20° © *"},
		{"codes 27–31 of a bitmap font without T1's letters stay without text", texBitmapFont("\033\034ab"), "",
			// the math italic font's σ and τ at T1's ff and fi
			"BT /F1 10 Tf 72 700 Td (a\033b \034) Tj ET", "ab"},
		{"TeX's T1 bitmap fonts of English text: ligatures by their widths", texBitmapFontWidths("\033\034fiapr", map[byte]int{'f': 2979, 'i': 2708, 27: 5688, 28: 5417}), "",
			// cohomcalg's manual (dvips, ecrm at 600 dpi): no accented letter drawn, but the
			// codes 27 and 28 advance as far as ff and fi less TeX's kern
			"BT /F1 1 Tf 72 700 Td (speci\034ed e\033ect) Tj ET", "specified effect"},
		{"codes 27–31 as wide as OT1's letters there stay without text", texBitmapFontWidths("\034\033fipe", map[byte]int{'f': 3056, 'i': 2778, 27: 7778, 28: 5000}), "",
			// cmr10's œ and ø: œ wider than f and f, ø 0.27 of an f narrower than f and i
			"BT /F1 1 Tf 72 700 Td (\034p\033 fi) Tj ET", "p fi"},
		{"Ghostscript's dvips fonts: OT1's ligatures at 11–15 by their widths", ghostscriptBitmapFont("\013\014\015\016filaegnoctdr", map[byte]int{'f': 2800, 'i': 2600, 'l': 2600, 11: 5300, 12: 5100, 13: 5100, 14: 7600}), "",
			// ifeffit's autobk.pdf (dvips, Ghostscript 10): glyphs named "\x0e", "f"; a
			// ToUnicode map for the letters only; pdftotext prints "coe\x0ecient"
			"BT /F1 1 Tf 72 700 Td (coe\016cient \014le e\013ect \015ag) Tj ET", "coefficient file effect flag"},
		{"Ghostscript's dvips fonts drawing code 0, named BnZr: OT1's ligatures still read", strings.ReplaceAll(ghostscriptBitmapFont("\000\013\014filaegnoctdr", map[byte]int{'f': 1200, 'i': 1200, 'l': 1000, 11: 2400, 12: 2200}), "/#00 ", "/BnZr "), "",
			// CERMINE's timeout/complex.pdf (dvips, Ghostscript 8.62): cmr's Γ at code 0 is
			// named "BnZr", and "effective" read "eective" (pdftotext: "e ective")
			"BT /F1 1 Tf 72 700 Td (\014le e\013ect) Tj ET", "file effect"},
		{"codes 11–15 as wide as the math italic's Greek letters stay without text", ghostscriptBitmapFont("\013\014fiab", map[byte]int{'f': 4902, 'i': 3445, 11: 6403, 12: 5663}), "",
			// cmmi10's α and β: far narrower than f and f, f and i of that font
			"BT /F1 1 Tf 72 700 Td (a\013b \014) Tj ET", "ab"},
		{"codes 27–31 whose letters are not drawn stay without text", texBitmapFontWidths("\034aps", map[byte]int{'f': 2979, 'i': 2708, 28: 5417}), "",
			"BT /F1 1 Tf 72 700 Td (a\034s) Tj ET", "as"},
		{"the glyph names of Mathematical Pi's signs and Greek", simpleFont("/Encoding << /Differences [49 /H11001 51 /H11003 53 /H11005 /H11006 68 /H9004 97 /H9251] >>"), "",
			// pdffigures2's 3a9202….pdf (XPP, 1998): its MathematicalPi-One without ToUnicode
			// read nothing; pdftotext reads the codes ("Ca21", "n512", "203", "18-a-")
			"BT /F1 10 Tf 72 700 Td (1 5 3 6 a D) Tj ET", "+ = × ± α Δ"},
		{"the glyph names of Mathematical Pi's prime, mu, bold signs and dot", simpleFont("/Encoding << /Differences [49 /H11545 /H11546 57 /H11032 109 /H9262 122 /H18528] >>"), "",
			// pdfrw's static_pdfs bd0ef5….pdf (XPP, 1999): "4,4′-", "10 µM", the headings'
			// bold "Na+/H+", "MgCl2·6H2O" read "4,4-", "10 M", "Na/H", "MgCl26H2O"
			"BT /F1 10 Tf 72 700 Td (4,49- mM Na1/H1 Cl2 Mgz) Tj ET", "4,4′- μM Na+/H+ Cl− Mg·"},
		{"the glyph names of TeX's math italic and symbol fonts", simpleFont("/Encoding << /Differences [65 /lscript /lessmuch /floorleft /floorright /unionmulti /epsilon1] >>"), "",
			// ciml-v0_9-all.pdf (pdfTeX, cmmi10 and cmsy10 without ToUnicode): E[ℓ(y, f(x))]
			// read "E [(y, f (x))]"; pdftotext reads the codes ("`(y, f ( x))")
			"BT /F1 10 Tf 72 700 Td (A B CD E F) Tj ET", "ℓ ≪ ⌊⌋ ⊎ ϵ"},
		{"TeX's \\not drawn at the origin of the relation it strikes reads as one character", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 61 /LastChar 65 /Widths [500 500 500 500 0] /Encoding << /Differences [65 /negationslash] >> >>", "",
			// ciml-v0_9-all.pdf (pdfTeX): cmsy's zero-width slash, then = at its origin, read
			// "K ̸= k"; pdftotext reads "K 6= k"
			"BT /F1 10 Tf 72 700 Td (?) Tj 15 0 Td (A) Tj (=) Tj 15 0 Td (@) Tj 15 0 Td (A) Tj (>) Tj ET", "? ≠ @ ≯"},
		{"TeX's \\mapstochar drawn at the origin of an arrow reads as one maps-to arrow", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 54 /LastChar 55 /Widths [1000 0] /Encoding << /Differences [54 /arrowright /mapsto] >> >>", "",
			// enfuse's manual (pdfTeX, cmsy without ToUnicode): "‘%d’ \mapsto /home", the zero-width
			// bar then the arrow at its origin, read "↦→"; pdftotext reads "7→"
			"BT /F1 10 Tf 72 700 Td (76) Tj 15 0 Td (6) Tj ET", "↦ →"},
		{"and leaves a line of spaced single letters with it spaced", "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 54 /LastChar 99 /Widths [1000 0 " + strings.Repeat("500 ", 44) + "] /Encoding << /Differences [54 /arrowright /mapsto] >> >>", "",
			// babel-greek's test-8bit-greek.pdf: "ϊ ΐ ῒ … ῧ ↦ Ϊ Ϊ …", letters 0.35 em apart, not a
			// letter-spaced word
			"BT /F1 10 Tf 72 700 Td [(a) -350 (b) -350 (c) -350 (7) (6) -350 (d) -350 (e)] TJ ET", "a b c ↦ d e"},
		{"the glyph names of TeX's math extension fonts", simpleFont("/Encoding << /Differences [88 /summationdisplay 90 /integraltext 161 /parenleftbig /parenrightBigg 163 /radicalBig 200 /coproductdisplay] >>"), "",
			// derivations.pdf's cmex10 (pdfTeX, no ToUnicode): ∑ and ∫ were left out, as pdftotext reads them "X" and "Z"
			"BT /F1 10 Tf 72 700 Td (\\130 f k  \\132 x dx  \\241a\\242  \\243 2  \\310) Tj ET", "∑ f k ∫ x dx (a) √ 2 ∐"},
		{"the AMS symbol font's glyph names", simpleFont("/Encoding << /Differences [118 /revsimilar 54 /lessorequalslant 112 /rightanglenw /rightanglene] >>"), "",
			// fortunes-mario's separator: cmsy's ∼ and msam10's revsimilar (pdfTeX, no
			// ToUnicode); main read "∼", pdftotext "∼v"
			"BT /F1 10 Tf 72 700 Td (v 6 pq) Tj ET", "∽ ⩽ ⌜⌝"},
		{"TeX's accents drawn on a letter make one letter", simpleFont("/Encoding << /Differences [175 /macron 180 /acute] >>"), "",
			// \'e: the acute, then the e drawn back under it; \=a the other way round; a wide
			// bold accent drawn first; an acute standing alone stays
			"BT /F1 10 Tf 72 700 Td [(caf) (\264) 500 (e) -500 (a) 500 (\257) (b)] TJ /F1 14 Tf 0 -20 Td [(\257) 600 (a) -500 (\264)] TJ ET",
			"café āb\nā ´"},
		{"an accent raised over the letter before it, starting before it, makes one letter", simpleFont("/Encoding << /Differences [202 /ring] >>"), "",
			// 3B2 through Distiller (govdocs1 020747): "Ny A", the ring moved up a quarter em
			// to stand over the A, then back down for "lesund"; it read "˚ lesund" as a
			// line above "Ny A"
			"BT /F1 10 Tf 72 700 Td [(Ny) -250 (A)] TJ 12 2.6 Td (\312) Tj 5.5 -2.6 Td (lesund) Tj -17.5 -14 Td (the next line) Tj ET",
			"Ny Ålesund\nthe next line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := Read(pdfWith(tt.font, tt.toUnicode, tt.content), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(pages[0].Text); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// arabicMarks draws beh (A), teh (B), alef (D) and lam (F) 500 wide, a fatha (C) and a
// hamza above (E) without advance; arabicMarksMap says so.
const (
	arabicMarks    = "<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 65 /LastChar 72 /Widths [500 500 0 500 0 500 500 500] /ToUnicode 6 0 R >>"
	arabicMarksMap = "1 begincodespacerange <00> <FF> endcodespacerange 6 beginbfchar <41> <0628> <42> <062A> <43> <064E> <44> <0627> <45> <0654> <46> <0644> endbfchar"
)

// zeroWidthB is simpleFont with code B (a mark) drawn without advance.
var zeroWidthB = "<< /Type /Font /Subtype /Type1 /BaseFont /Test /ToUnicode 6 0 R " + widths +
	strings.Repeat("500 ", 66) + "0 " + strings.Repeat("500 ", 189) + "] >>"

// type3Pixels is a Type3 font like pdfTeX's of TeX's bitmap fonts: glyphs named a0…a255,
// glyph space in pixels (83 to the em), letters 41.5 pixels wide, "m" 83, code 11 (the
// "ff" ligature) 50 and named like the others.
func type3Pixels() string {
	var w strings.Builder
	for c := range 256 {
		switch {
		case c == 'm':
			w.WriteString("83 ")
		case c == 11:
			w.WriteString("50 ")
		default:
			w.WriteString("41.5 ")
		}
	}
	var names strings.Builder
	for c := range 256 {
		fmt.Fprintf(&names, "/a%d", c)
	}
	return "<< /Type /Font /Subtype /Type3 /FontMatrix [0.012 0 0 0.012 0 0] /FontBBox [0 0 83 83] /CharProcs << >>" +
		" /FirstChar 0 /LastChar 255 /Widths [" + w.String() + "] /Encoding << /Differences [0 " + names.String() + "] >> >>"
}

// type3Ideographs is a Type3 font as Skia writes one for Chinese text: glyphs named g1…g7
// for codes A…G, each 1000 units wide in a glyph space of 0.001, which type3IdeographsMap
// maps to ideographs.
func type3Ideographs() string {
	return "<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] /FontBBox [0 -120 1000 880] /CharProcs << >>" +
		" /FirstChar 65 /LastChar 71 /Widths [1000 1000 1000 1000 1000 1000 1000]" +
		" /Encoding << /Differences [65 /g1 /g2 /g3 /g4 /g5 /g6 /g7] >> /ToUnicode 6 0 R >>"
}

const type3IdeographsMap = "1 begincodespacerange <00> <FF> endcodespacerange 7 beginbfchar" +
	" <41> <7B80> <42> <5316> <43> <5F0F> <44> <7EBF> <45> <6027> <46> <8868> <47> <793A> endbfchar"

// type3Mono is a Type3 font of a monospaced bitmap font as pdfTeX embeds one: glyphs named
// by their codes, /a16 to /a126, each 51.24 units wide in a glyph space of 0.01004.
func type3Mono() string {
	var w, names strings.Builder
	for c := 16; c <= 126; c++ {
		w.WriteString("51.24 ")
		fmt.Fprintf(&names, "/a%d", c)
	}
	return "<< /Type /Font /Subtype /Type3 /FontMatrix [0.01004 0 0 0.01004 0 0] /FontBBox [0 -24 52 69] /CharProcs << >>" +
		" /FirstChar 16 /LastChar 126 /Widths [" + w.String() + "] /Encoding << /Differences [16 " + names.String() + "] >> >>"
}

// type3CodeNamed is a Type3 font named by its codes (/a16 … /a126) in 1/100s of its size,
// its first glyph (16, TeX's dotless i) a third of an em wide, the rest half an em but for
// the widths given.
func type3CodeNamed(widths map[int]string) string {
	var w, names strings.Builder
	for c := 16; c <= 126; c++ {
		switch {
		case widths[c] != "":
			w.WriteString(widths[c] + " ")
		case c == 16:
			w.WriteString("33.3 ")
		default:
			w.WriteString("50 ")
		}
		fmt.Fprintf(&names, "/a%d", c)
	}
	return "<< /Type /Font /Subtype /Type3 /FontMatrix [0.01 0 0 0.01 0 0] /FontBBox [0 -25 100 75] /CharProcs << >>" +
		" /FirstChar 16 /LastChar 126 /Widths [" + w.String() + "] /Encoding << /Differences [16 " + names.String() + "] >> >>"
}

// texBitmapFont is a Type3 font like dvips' and pdfTeX's of TeX's PK fonts: glyphs named
// by their codes ("a28"), those of drawn's codes (and the space) in its CharProcs.
func texBitmapFont(drawn string) string {
	var names, procs strings.Builder
	for _, c := range []byte(drawn + " ") {
		fmt.Fprintf(&names, "%d /a%d ", c, c)
		fmt.Fprintf(&procs, "/a%d null ", c)
	}
	return "<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] /FontBBox [0 0 1000 1000]" +
		" /CharProcs << " + procs.String() + ">> " + widths + strings.Repeat("500 ", 256) + "] /Encoding << /Differences [" + names.String() + "] >> >>"
}

// texBitmapFontWidths is texBitmapFont with some codes' widths set, in 1/100 of a unit of
// its size (the rest are 5 units wide), and codes between those in use named .notdef, as
// Ghostscript writes them.
func texBitmapFontWidths(drawn string, w map[byte]int) string {
	font := texBitmapFont(drawn)
	var ws strings.Builder
	for c := range 256 {
		if v, ok := w[byte(c)]; ok {
			fmt.Fprintf(&ws, "%d ", v*10)
		} else {
			ws.WriteString("5000 ")
		}
	}
	font = strings.Replace(font, strings.Repeat("500 ", 256), ws.String(), 1)
	font = strings.Replace(font, "/Differences [", "/Differences [29 /.notdef 200 /.notdef ", 1)
	return strings.Replace(font, "/FontMatrix [0.001 0 0 0.001 0 0]", "/FontMatrix [0.0001 0 0 0.0001 0 0]", 1)
}

// ghostscriptBitmapFont is texBitmapFontWidths with its glyphs named as Ghostscript names
// those of dvips' PostScript: by the code's byte ("/#0c" for code 12, "/#66" is f).
func ghostscriptBitmapFont(drawn string, w map[byte]int) string {
	font := texBitmapFontWidths(drawn, w)
	for _, c := range []byte(drawn + " ") {
		font = strings.ReplaceAll(font, fmt.Sprintf("/a%d ", c), fmt.Sprintf("/#%02x ", c))
	}
	return font
}

// TestLayers: text in a layer the default configuration turns off is not read, in marked
// content or a form XObject; a layer turned on, or one of /ON under /BaseState /OFF, is.
func TestLayers(t *testing.T) {
	layered := func(d, content string) []byte {
		return testdocs.RawPDF(1,
			[]byte("<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [6 0 R 7 0 R] /D "+d+" >> >>"),
			[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
			[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> /Properties << /Off 6 0 R /On 7 0 R >> "+
				"/XObject << /X 8 0 R >> >> /Contents 4 0 R >>"),
			testdocs.Stream("", []byte(content)),
			[]byte(simpleFont("")),
			[]byte("<< /Type /OCG /Name (Labels) >>"),
			[]byte("<< /Type /OCG /Name (Art) >>"),
			testdocs.Stream("/Type /XObject /Subtype /Form /BBox [0 0 600 800] /OC 6 0 R /Resources << /Font << /F1 5 0 R >> >>",
				[]byte("BT /F1 10 Tf 72 600 Td (form) Tj ET")))
	}
	content := "BT /F1 10 Tf 72 700 Td (seen) Tj ET /OC /Off BDC BT /F1 10 Tf 72 680 Td (hidden) Tj ET EMC " +
		"/OC /On BDC BT /F1 10 Tf 72 660 Td (shown) Tj ET EMC /X Do"
	for _, tt := range []struct{ d, want string }{
		{"<< /OFF [6 0 R] >>", "seen\n\nshown"},
		{"<< /BaseState /OFF /ON [7 0 R] >>", "seen\n\nshown"},
		{"<< >>", "seen\n\nhidden\n\nshown\n\nform"},
	} {
		pages, err := Read(layered(tt.d, content), Options{})
		if err != nil || len(pages) != 1 || strings.TrimSpace(pages[0].Text) != tt.want {
			t.Errorf("%s: %v %+v, want %q", tt.d, err, pages, tt.want)
		}
	}
}

func TestFormText(t *testing.T) {
	pages, err := Read(testdocs.FormLoopPDF(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pages[0].Text; !strings.Contains(got, "page text") || strings.Count(got, "form text") != 1 {
		t.Errorf("got %q: want the page's text and the form's once", got)
	}
}

// legacyFont is simpleFont with a legacy Devanagari font's glyph names at codes 200 up
// (indic.go): ASCII reads as ASCII, codes 200–208 take the reordering paths.
// legacyFont has legacy Devanagari names at 200…, and at 1… right-to-left letters and marks,
// a dotted circle and Indic letters and pre-base vowel signs for the bidi and cluster code,
// at 20… Lepcha letters and signs (one glyph of two signs) for its clusters (lepcha.go).
var legacyFont = simpleFont("/Encoding << /Differences [200 /a /imatra /repha /ka /halfka /ematra /candrabindu /aamatra /rstroke " +
	"1 /uni0633 /uni0644 /uni0627 /uni0650 /uni0651 /uni05D0 /uni25CC /uni0915 /uni093F /uni094D /uni09BF /uni0995 /uni06F4 " +
	"20 /uni1C00 /uni1C29 /uni1C36 /uni1C2E /uni1C26 /uni1C291C2E /uni1C1B] >>")

func FuzzContent(f *testing.F) {
	for _, c := range []string{
		"BT /F1 10 Tf 72 700 Td [(a)-300(b)] TJ ET", "q 1 0 0 1 5 5 cm BT (x) ' ET Q Q Q",
		"BI /W 1 /H 1 ID \x00\xff EI BT (after) Tj ET", "[[[[ << /A [1 2 (x)] >> ]]]] TJ", "(unclosed",
		"/Span << /ActualText <FEFF0041> >> BDC BT (x) Tj EMC EMC EMC /P /Name BDC (y) Tj ET",
		"BT /F1 10 Tf 72 700 Td (\001\002 [[\003\004] \\(\024\\)\\) \001) Tj ET",
		columnsContent([][]string{{"ab|cd", "x y", "\001\002"}, {"ab", "", "\003"}, {"ab cd", "x y", "\001 \002"}}, []float64{72, 130, 188}, true),
		"BT /F1 10 Tf 72 700 Td [(caf) (\264) 500 (e) (`) 900 (\257)] TJ /F1 7 Tf 60 3 Td (new) Tj -0.5 -5 Td (k) Tj ET",
		"BT /F1 10 Tf 72 700 Td (\310\311\314\313\317\312\315\316 \311 \312\322) Tj -2 Ts [500 (.)] TJ ET",
		"BT /F1 10 Tf 72 700 Td (ab={\003\002\001\004 \006[x] \015\015 \007\005) Tj [(\003 ) 500 (\002)] TJ ET",
		"BT /F1 10 Tf 72 700 Td (\011\010\012\010 \013\014 \010\011) Tj 5 0 Td ( ) Tj 5 0 Td (\001) Tj ET",
		"BT /F1 10 Tf (X) Tj ET q -1 0 0 1 164 0 cm BT /F1 10 Tf 82 700 Td (E) Tj ET Q BT -1 0.5 0.2 1 9 9 Tm (LATEX) Tj ET",
		"BT /F1 10 Tf 72 700 Td [(\024\030\025\032) -150 (\026) 900 (\031\024\027) 400 (\025\026\030)] TJ ET",
	} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, content string) {
		Read(pdfWith(legacyFont, "", content), Options{}) // must not panic or hang
	})
}

// FuzzMarks draws right-to-left letters, marks without advance and kashidas (arabicMarks)
// in any order and place: placeMarks, dropKashidas and the clusters must not panic.
func FuzzMarks(f *testing.F) {
	for _, c := range []string{
		"BT /F1 10 Tf 77 700 Td (A) Tj -2 0 Td (C) Tj -3 0 Td (B) Tj ET",
		"BT /F1 10 Tf 72 700 Td [(B) 20 (C) -20 (A)] TJ ET",
		"BT /F1 10 Tf 72 700 Td [(F) 20 (E) -20 (D)] TJ ET",
		"BT /F1 10 Tf 72 700 Td (BHGA) Tj 30 0 Td (GA) Tj ET",
		"BT /F1 10 Tf 72 700 Td (CCECHG) Tj 0 0 Td (GHCEA) Tj -1 0 Td (C) Tj ET",
		"BT /F1 10 Tf 72 700 Td [(ABABAB) -50 (ABABAB) -50 (ABAB)] TJ ET",
		"BT /F1 10 Tf 77 700 Td (A) Tj 0 6 Td (C) Tj -5 -6 Td (B) Tj ET",
		"BT /F1 10 Tf 72 700 Td (AB) Tj 10 8 Td (BA) Tj 10 -8 Td (A B) Tj -13 0 Td ( ) Tj 0 12 Td (ABAB) Tj ET",
	} {
		f.Add(c)
	}
	font := strings.Replace(arabicMarks, "/LastChar 72 /Widths [500 500 0 500 0 500 500 500]", "/LastChar 72 /Widths [500 500 0 500 0 500 500 0]", 1)
	f.Fuzz(func(t *testing.T, content string) {
		Read(pdfWith(font, arabicMarksMap+" 2 beginbfchar <47> <0640> <48> <061D> endbfchar", content), Options{})
	})
}

func FuzzFont(f *testing.F) {
	f.Add([]byte("1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0000> <00FF> <0041> endbfrange"), "uni0041")
	f.Add([]byte("/Encoding 256 array dup 65 /A put readonly def"), "f_f_i.sc")
	f.Add([]byte{1, 0, 4, 1, 0, 0}, "g65")
	f.Add(trueTypeProgram(0x21, "uni1780", "uni17CC.alt"), "uni178017B6.dotted")
	f.Add(gsubTable(), "halfka")
	f.Add([]byte{28}, "a28")
	f.Add(glyfProgram([2]int16{50, 450}, [2]int16{-550, -350}), "uni064E")
	f.Add(withOutlines(0x41, []string{"uni1235", "visiblespace"}, []bool{false, true}), "visiblespace")
	f.Add(cffWithCharset([]int{266, 267}, []int{11, 14}), "ff")
	f.Add(orderedProgram(macGlyphNames, arialAdvance), "Adieresis")
	f.Add([]byte("/90ms-RKSJ-H usecmap 1 begincidchar <967B> 1125 endcidchar"), "90ms-RKSJ-V")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		tables := sfntTables(data)
		for _, g := range []uint16{0, 1, 2, 1<<16 - 1} {
			emptyGlyph(tables, g)
		}
		if b := inkOf(data); b != nil {
			for _, g := range []uint32{0, 1, 2, 1 << 15, 1<<32 - 1} {
				b.middle(g)
			}
			b.gids = data
			b.middle(1)
		}
		m := parseCMap(data)
		m.useBase(predefinedCMap(name))
		for _, s := range []string{"\x00\x41", "A", "\xff\xff\xff\xff", "\x93\xfa", "\xd8\x40\xdc\x0b"} {
			c, n := m.next(s)
			m.text(c, n)
			m.cid(c, n)
			for _, form := range []int{2, 8, 16, 32} {
				codePoint(form, c, n)
			}
		}
		type1Encoding(data)
		cffEncoding(data)
		glyphText(name)
		symbolPUAText(name)
		leadingSectionNumber(name)
		reversedSectionNumbers([]Page{{Text: name + "\n" + string(data)}})
		devanagariGlyph(name)
		numericCode(name)
		trueTypeCodeNames(data)
		standardOrderText(sfntTables(data))
		sources := gsubSources(data)
		substitutedText(map[uint16]string{1: "a", 2: "b"}, sources)
		var names [256]string
		for _, c := range data {
			names[c] = name
		}
		var text encoding
		var width [256]float64
		for i, c := range data {
			width[c] = float64(i)
		}
		texBitmapCodes(&text, &names, []string{name, "a28", "a102", "a105"}, &width)
	})
}
