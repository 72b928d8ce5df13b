package pdftext

import (
	"strings"
	"testing"
)

// TestEmojiType3Em: fpdf2's color emoji, a Type3 font of glyphs named u1F92F… 1245/1000 wide
// (a .notdef as wide first), in lines of 24 pt text 24 pt apart: the emoji's em is its
// width, so the line it stands in is no taller than its text and the next line's first
// letter stays in its own line ("mobile", not "vmisuals" and "obile").
func TestEmojiType3Em(t *testing.T) {
	text := "<< /Type /Font /Subtype /Type1 /BaseFont /Test " + widths + strings.Repeat("500 ", 256) + "] >>"
	emoji := "<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] /FontBBox [0 -244 1245 928] /CharProcs << >>" +
		" /FirstChar 0 /LastChar 2 /Widths [1245 1245 1245] /Encoding << /Differences [0 /.notdef /u1F92F /u1F680] >> >>"
	content := "BT /F1 24 Tf 31 700 Td (vis ) Tj /F2 24 Tf <01> Tj /F1 24 Tf (. As ) Tj /F2 24 Tf <02> Tj ET " +
		"BT /F1 24 Tf 31 676 Td (mob dev) Tj ET"
	pages, err := Read(twoFonts(text, emoji, content), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(pages[0].Text), "vis 🤯. As 🚀\nmob dev"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
