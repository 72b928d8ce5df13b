package pdftext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// orderedProgram is a TrueType program as PScript5 embeds Word's fonts: no cmap and no
// post table, only hhea and hmtx, its glyphs those of names (the standard order, or it with
// glyphs left out), their advances from advance.
func orderedProgram(names []string, advance func(name string) int) []byte {
	var hhea, hmtx bytes.Buffer
	hhea.Write(make([]byte, 34))
	binary.Write(&hhea, binary.BigEndian, uint16(len(names)))
	for _, n := range names {
		binary.Write(&hmtx, binary.BigEndian, uint16(advance(n)))
		binary.Write(&hmtx, binary.BigEndian, int16(0))
	}
	return sfntOf(sfntTable{"hhea", hhea.Bytes()}, sfntTable{"hmtx", hmtx.Bytes()})
}

// arialAdvance gives glyphs Arial's kind of advances: tabular figures, narrow i, l, I and
// period, each letter with an accent as wide as its letter, the letters' widths apart.
func arialAdvance(name string) int {
	switch name {
	case "space", "period", "i", "l", "I":
		return 455
	case "m", "M", "W":
		return 1706
	case "n":
		return 1139
	case "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine":
		return 1139
	}
	letters := "AaCcEeNnOoUu"
	if i := strings.IndexByte(letters, name[0]); i >= 0 {
		switch name[1:] {
		case "", "dieresis", "ring", "cedilla", "acute", "tilde", "grave", "circumflex":
			return 1200 + 20*i
		}
	}
	return 1000
}

// gidsOf is the hex string of the glyph numbers names take in order.
func gidsOf(order []string, names ...string) string {
	var s strings.Builder
	for _, n := range names {
		fmt.Fprintf(&s, "%04X", slices.Index(order, n))
	}
	return "<" + s.String() + ">"
}

// TestStandardOrder: an Identity-H TrueType subset without ToUnicode, cmap or post table
// (PScript5 and Distiller's embedding of Word's fonts, kreuzberg's non_ascii_text.pdf, a
// German town newsletter) reads by the standard order of its glyphs where its advances
// show that order; pdftotext printed the glyph numbers ("6FKXWWHUZDOG"), EdgeChat nothing.
func TestStandardOrder(t *testing.T) {
	without := func(leftOut ...string) []string {
		return slices.DeleteFunc(slices.Clone(macGlyphNames), func(n string) bool { return slices.Contains(leftOut, n) })
	}
	arial, segoe := without("nonbreakingspace", "apple"), without("apple")
	words := []string{"G", "r", "udieresis", "germandbls", "e", "space", "endash", "space", "five", "space", "currency",
		"space", "quotedblbase", "O", "k", "quotedblleft", "space", "Ograve"}
	narrowFigures := func(name string) int {
		if name == "one" {
			return 700 // proportional figures: Cambria Math's order is its own
		}
		return arialAdvance(name)
	}
	ownAccents := func(name string) int {
		if len(name) > 1 && strings.HasSuffix(name, "dieresis") {
			return 598 // Yu Gothic's Latin: ASCII in the standard order, the rest in its own
		}
		return arialAdvance(name)
	}
	for _, tt := range []struct {
		name    string
		order   []string
		advance func(string) int
		want    string
	}{
		{"Arial: no no-break space or Apple logo", arial, arialAdvance, "Grüße – 5 € „Ok“ Ò"},
		{"Segoe UI: no Apple logo", segoe, arialAdvance, "Grüße – 5 € „Ok“ Ò"},
		{"the standard order whole", macGlyphNames, arialAdvance, "Grüße – 5 € „Ok“ Ò"},
		{"figures of many widths: no order known", arial, narrowFigures, ""},
		{"accented letters of other widths: ASCII alone", arial, ownAccents, "Gr e 5 Ok"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			font := "<< /Type /Font /Subtype /Type0 /BaseFont /FKIFML+Arial /Encoding /Identity-H /DescendantFonts [6 0 R] >>"
			cid := []byte("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /FKIFML+Arial /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >>" +
				" /CIDToGIDMap /Identity /DW 600 /FontDescriptor 7 0 R >>")
			desc := []byte("<< /Type /FontDescriptor /FontName /FKIFML+Arial /Flags 4 /FontFile2 8 0 R >>")
			content := "BT /F1 10 Tf 72 700 Td " + gidsOf(tt.order, words...) + " Tj ET"
			pages, err := Read(pdfWithFont(font, content, cid, desc, testdocs.Stream("", orderedProgram(tt.order, tt.advance))), Options{})
			got := ""
			if err == nil {
				got = strings.Join(strings.Fields(pages[0].Text), " ")
			}
			if got != tt.want {
				t.Errorf("got %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

// TestMacGlyphNames: the standard order has 258 glyphs, ASCII's characters at 3–97.
func TestMacGlyphNames(t *testing.T) {
	if len(macGlyphNames) != 258 {
		t.Fatalf("%d names, want 258", len(macGlyphNames))
	}
	for g := gSpace; g < gAdieresis; g++ {
		if got, want := glyphText(macGlyphNames[g]), string(rune(g+29)); got != want {
			t.Errorf("glyph %d (%s) reads %q, want %q", g, macGlyphNames[g], got, want)
		}
	}
}
