package pdftext

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// glyfProgram is a TrueType font program of head, loca and glyf whose glyphs 1… have the
// ink extents xs (xMin, xMax pairs, in units of a 1000-unit em); glyph 0 has none.
func glyfProgram(xs ...[2]int16) []byte {
	be := func(b *bytes.Buffer, v ...any) {
		for _, x := range v {
			binary.Write(b, binary.BigEndian, x)
		}
	}
	var head, loca, glyf bytes.Buffer
	head.Write(make([]byte, 18))
	be(&head, uint16(1000))
	head.Write(make([]byte, 30))
	be(&head, uint16(0), uint16(0)) // indexToLocFormat 0: short offsets
	be(&loca, uint16(0), uint16(0))
	for _, x := range xs {
		be(&glyf, int16(1), x[0], int16(0), x[1], int16(500))
		be(&loca, uint16(glyf.Len()/2))
	}
	var font bytes.Buffer
	tables := []struct {
		tag  string
		data []byte
	}{{"glyf", glyf.Bytes()}, {"head", head.Bytes()}, {"loca", loca.Bytes()}}
	be(&font, uint32(0x00010000), uint16(len(tables)), uint16(32), uint16(1), uint16(0))
	off := 12 + 16*len(tables)
	for _, t := range tables {
		font.WriteString(t.tag)
		be(&font, uint32(0), uint32(off), uint32(len(t.data)))
		off += len(t.data)
	}
	for _, t := range tables {
		font.Write(t.data)
	}
	return font.Bytes()
}

func TestMarkInk(t *testing.T) {
	// An Identity-H CIDFontType2 font drawing beh (1), teh (2) 500 wide and a fatha (3)
	// without advance whose ink lies 550–350 units left of its origin.
	font := "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 6 0 R >>"
	toUni := testdocs.Stream("", []byte("1 begincodespacerange <0000> <FFFF> endcodespacerange 3 beginbfchar <0001> <0628> <0002> <062A> <0003> <064E> endbfchar"))
	cid := []byte("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 8 0 R /W [1 [500 500 0]] /CIDToGIDMap /Identity >>")
	desc := []byte("<< /Type /FontDescriptor /FontName /X /Flags 4 /FontFile2 9 0 R >>")
	program := testdocs.Stream("", glyfProgram([2]int16{50, 450}, [2]int16{50, 450}, [2]int16{-550, -350}))
	// Word's order: beh at 72, its fatha after it, its origin moved to 78 (within teh) and its
	// ink at 72.5–74.5 (over beh), then teh at 77. Seen left to right, read: teh, beh with
	// fatha.
	content := "BT /F1 10 Tf 72 700 Td <0001> Tj 6 0 Td <0003> Tj -1 0 Td <0002> Tj ET"
	pages, err := Read(pdfWithFont(font, content, toUni, cid, desc, program), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(pages[0].Text), "تبَ"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// LuaTeX's order: beh at 77, its fatha drawn next, origin 80, ink's middle 75.5 (over
	// teh), then teh at 72. A run drawn right to left is read by the order drawn.
	content = "BT /F1 10 Tf 77 700 Td <0001> Tj 3 0 Td <0003> Tj -8 0 Td <0002> Tj ET"
	pages, err = Read(pdfWithFont(font, content, toUni, cid, desc, program), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(pages[0].Text), "بَت"; got != want {
		t.Errorf("drawn right to left: got %q, want %q", got, want)
	}
	// A damaged glyf or loca reads no ink, and nothing panics.
	prog := glyfProgram([2]int16{50, 450})
	binary.BigEndian.PutUint32(prog[24:], 6) // glyf (the first table) cut inside glyph 1's header
	b := inkOf(prog)
	if b == nil {
		t.Fatal("no ink boxes read")
	}
	if _, ok := b.middle(1); ok {
		t.Error("ink read past glyf's end")
	}
	if _, ok := b.middle(7); ok {
		t.Error("ink read past loca's end")
	}
	b.gids = []byte{0}
	if _, ok := b.middle(1); ok {
		t.Error("ink read past CIDToGIDMap's end")
	}
}
