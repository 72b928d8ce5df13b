package pdftext

import "testing"

// TestParagraphDirection: a paragraph of one line that mixes Arabic with Latin reads in
// the direction of the margin it starts from, not by the majority of its own letters
// (hyperspot's LibreOffice file: "Arabic: مرحبا بالعالم" under "English: Hello World" read
// "مرحبا بالعالم Arabic:").
func TestParagraphDirection(t *testing.T) {
	// Q, R, S: sin, lam, alef; drawn "SRQ" (alef, lam, sin left to right) reads سلا
	const cmap = "1 begincodespacerange <00> <FF> endcodespacerange 3 beginbfchar <51> <0633> <52> <0644> <53> <0627> endbfchar"
	tests := []struct{ name, content, want string }{
		{"a label and Arabic words, a paragraph of one line at the left margin",
			"BT /F1 10 Tf 72 700 Td (English: Hello World) Tj 0 -40 Td (German: Hallo) Tj 0 -40 Td (Ab: SRQ SRQ) Tj ET",
			"English: Hello World\n\nGerman: Hallo\n\nAb: سلا سلا"},
		{"a line mostly Latin, a paragraph of one line at the right margin",
			// each line ends at 147; the last reads "سلا abcdefgh", its Latin word at its left end
			"BT /F1 10 Tf 72 700 Td (SRQ SRQ SRQ SRQ) Tj 20 -40 Td (SRQ SRQ SRQ) Tj -5 -40 Td (abcdefgh SRQ) Tj ET",
			"سلا سلا سلا سلا\n\nسلا سلا سلا\n\nسلا abcdefgh"},
		{"a line of Arabic only at the left margin keeps its own direction",
			// the full stop drawn at its left: the line's end
			"BT /F1 10 Tf 72 700 Td (English: Hello World) Tj 0 -40 Td (German: Hallo) Tj 0 -40 Td (.SRQ SRQ) Tj ET",
			"English: Hello World\n\nGerman: Hallo\n\nسلا سلا."},
		{"the first line of a justified right-to-left paragraph, indented at its right, keeps its direction",
			"BT /F1 10 Tf 72 700 Td (ab SRQ SRQ) Tj 0 -12 Td (SRQ SRQ SRQQ) Tj 0 -12 Td (SRQQ SRQ SRQ) Tj ET",
			"سلا سلا ab\nسسلا سلا سلا\nسلا سلا سسلا"},
		{"a mixed line at the left margin whose first letter there is Arabic keeps its direction",
			"BT /F1 10 Tf 72 700 Td (English: Hello World) Tj 0 -40 Td (German: Hallo) Tj 0 -40 Td (SRQ SRQ ab) Tj ET",
			"English: Hello World\n\nGerman: Hallo\n\nab سلا سلا"},
		{"a mixed line at the left margin of a right-to-left page keeps its direction",
			// lshort-persian's lines cut into blocks of their own, at its left margin too
			"BT /F1 10 Tf 72 700 Td (SRQ SRQ SRQ SRQ) Tj 0 -40 Td (SRQ SRQ) Tj 0 -40 Td (ab SRQ SRQ) Tj ET",
			"سلا سلا سلا سلا\n\nسلا سلا\n\nسلا سلا ab"},
		{"a page of one space", "BT /F1 10 Tf 72 700 Td ( ) Tj ET", ""},
		{"a mixed line at no margin (a centred title) keeps the direction of most of its letters",
			"BT /F1 10 Tf 72 700 Td (English: Hello World) Tj 0 -40 Td (German: Hallo) Tj 30 -40 Td (Ab: SRQ SRQ) Tj ET",
			"English: Hello World\n\nGerman: Hallo\n\nسلا سلا Ab:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAs(t, tt.name, pdfWith(simpleFont("/ToUnicode 6 0 R"), cmap, tt.content), tt.want)
		})
	}
}
