package pdftext

import (
	"strings"
	"testing"
)

// A stream deflated without a /Filter to say so (pdf.js issue19802.pdf's ToUnicode map) is
// read inflated: a ToUnicode map, a content stream. Bytes that only start like zlib data
// stay as they are, and so does a stream with a filter of its own.
func TestUnfilteredDeflate(t *testing.T) {
	const cmap = "1 begincodespacerange <00> <FF> endcodespacerange 2 beginbfchar <41> <00C0> <42> <00F1> endbfchar"
	const content = "BT /F1 10 Tf 72 700 Td (ABC) Tj ET"
	for _, c := range []struct {
		name, toUnicode, content, want string
	}{
		{"a ToUnicode map deflated without a filter", string(flate([]byte(cmap))), content, "ÀñC"},
		{"a content stream deflated without a filter", cmap, string(flate([]byte(content))), "ÀñC"},
		{"a map that only starts like zlib data", "x^" + cmap, content, "ÀñC"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pages, err := Read(pdfWith(simpleFont("/ToUnicode 6 0 R"), c.toUnicode, c.content), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(pages[0].Text); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestLooksZlib(t *testing.T) {
	for _, c := range []struct {
		data string
		want bool
	}{
		{string(flate([]byte("BT ET"))), true},
		{"\x78\x01rest", true}, {"\x78\xdarest", true}, {"\x58\x85rest", true},
		{"BT /F1 10 Tf", false}, {"/CIDInit /ProcSet findresource", false}, {"q 1 0 0 1 0 0 cm", false},
		{"\x78\x9c", false},    // nothing after the header
		{"\x78\xbb...", false}, // a preset dictionary
	} {
		if got := looksZlib([]byte(c.data)); got != c.want {
			t.Errorf("looksZlib(%q) = %v, want %v", c.data, got, c.want)
		}
	}
}
