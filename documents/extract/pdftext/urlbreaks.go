package pdftext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A web address or a path broken across lines after one of its slashes: DocBook's and
// AsciiDoc's LaTeX (dblatex, xdvipdfmx) breaks a long address in a narrow table cell at
// its slashes and draws a hyphen there ("http://leadshineusa.com/-" "UploadFile/-"
// "Down/-" "DM422m.pdf" in LinuxCNC's Integrator manual). No word ends in "/-": the hyphen
// is the break's mark, and the address goes on on the next line, as pdftotext reads it.

// endsSlashBreak says whether s, a line, ends in a hyphen right after a slash that follows
// a letter or a digit ("com/-"; "+/-", plus or minus, is a sign of the text).
func endsSlashBreak(s string) bool {
	if !strings.HasSuffix(s, "/-") {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:len(s)-2])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// continuesAddress says whether next, the line after one ending in a slash's break, goes
// on with the address: it starts with a letter or a digit.
func continuesAddress(next string) bool {
	r, _ := utf8.DecodeRuneInString(next)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
