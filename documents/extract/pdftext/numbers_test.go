package pdftext

import "testing"

// TestNumbersInRightToLeft: the signs the bidirectional algorithm joins to a number run
// forwards with its digits in a right-to-left line (rules W4, W5), where they were read as
// neutrals and turned the number's parts around (pdfcpu's Hebrew form: "31/12/1999" read
// "1999/12/31"); among Arabic letters a "-" between digits does not join them (W2 makes
// them Arabic numbers), and a line drawn so by a bidirectional shaper reads back in order.
// Each content is the line as seen, left to right: A, B are alef and bet (Hebrew), C, D, E
// alef, lam and sin (Arabic).
func TestNumbersInRightToLeft(t *testing.T) {
	font := simpleFont("/ToUnicode 6 0 R")
	cmap := "1 begincodespacerange <00> <FF> endcodespacerange 20 beginbfchar <20> <0020> <41> <05D0> <42> <05D1> <43> <0627> <44> <0644> <45> <0633> " +
		"<30> <0030> <31> <0031> <32> <0032> <33> <0033> <35> <0035> <39> <0039> <2F> <002F> <2E> <002E> <25> <0025> <2D> <002D> <3A> <003A> " +
		"<2C> <002C> <24> <0024> <23> <0023> endbfchar"
	for _, c := range []struct{ name, seen, want string }{
		{"a date among Hebrew letters", "31/12/1999 BA", "אב 31/12/1999"},
		{"a decimal point", "BA 3.5 BA", "אב 3.5 אב"},
		{"a time", "12:30 BA", "אב 12:30"},
		{"a thousands comma", "1,000 BA", "אב 1,000"},
		{"a percent sign", "BA 50% BA", "אב 50% אב"},
		{"a currency sign before the number", "BA $5 BA", "אב $5 אב"},
		{"a range among Hebrew letters", "BA 1-2 BA", "אב 1-2 אב"},
		{"a date among Arabic letters", "31/12/1999 CDE", "سلا 31/12/1999"},
		{"a range among Arabic letters, drawn as the algorithm draws it", "CDE 2-1 CDE", "سلا 1-2 سلا"},
		{"two separators between digits stay apart", "BA 1//2 BA", "אב 2//1 אב"},
		{"a full stop after a number is not part of it", "BA .12 BA", "אב 12. אב"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := pagesText(t, pdfWith(font, cmap, "BT /F1 10 Tf 72 700 Td ("+c.seen+") Tj ET"))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
