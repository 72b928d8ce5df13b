package pdftext

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestOversizedXref: a cross-reference section that numbers an object in the billions is
// not given to the object reader, whose table of that length ended the program ("fatal
// error: runtime: out of memory" on pdf.js's GHOSTSCRIPT-698804-1-fuzzed.pdf, whose table has
// a subsection "4294967296 3"); the file is read from its objects found by scanning, as
// pdftotext reads it. Without xrefOversized each case ends the test binary.
func TestOversizedXref(t *testing.T) {
	whole := pdfWith(simpleFont(""), "", "BT /F1 10 Tf 72 700 Td (the whole text) Tj ET")
	// the table's "0 6" split into "0 2" and a subsection of four numbered from 2^32
	x := bytes.LastIndex(whole, []byte("\nxref\n")) + 1
	entries := strings.SplitAfter(string(whole[x:]), "\n")
	fuzzed := string(whole[:x]) + "xref\n0 2\n" + entries[2] + entries[3] +
		"4294967296 4\n" + strings.Join(entries[4:], "")
	streamed, ok := rebuiltXref(objectStreamPDF("BT /F1 10 Tf 72 700 Td (compressed objects) Tj ET"))
	if !ok {
		t.Fatal("no cross-reference stream made")
	}
	size := regexp.MustCompile(`/Size \d+`)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"a table's subsection from 2^32", []byte(fuzzed), "the whole text"},
		{"a stream's /Size of 4e9", size.ReplaceAll(streamed, []byte("/Size 4000000000")), "compressed objects"},
		{"a stream's /Index from 2^32", size.ReplaceAllFunc(streamed, func(m []byte) []byte {
			var n int
			fmt.Sscanf(string(m), "/Size %d", &n)
			return fmt.Appendf(nil, "%s /Index [4294967296 %d]", m, n)
		}), "compressed objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !xrefOversized(tt.data) {
				t.Error("xrefOversized: false")
			}
			pages, err := Read(tt.data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(pages[0].Text); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestXrefNotOversized: sections of ordinary files, and a chain of /Prev that loops, are
// left to the object reader.
func TestXrefNotOversized(t *testing.T) {
	whole := pdfWith(simpleFont(""), "", "BT /F1 10 Tf 72 700 Td (the whole text) Tj ET")
	x := bytes.LastIndex(whole, []byte("\nxref\n")) + 1
	streamed, _ := rebuiltXref(objectStreamPDF("BT (x) Tj ET"))
	tests := []struct {
		name string
		data []byte
	}{
		{"a table", whole},
		{"a cross-reference stream", streamed},
		{"a subsection of object numbers below a million", bytes.Replace(whole, []byte("xref\n0 6\n"), []byte("xref\n999990 6\n"), 1)},
		{"a /Prev to itself", bytes.Replace(whole, []byte("trailer\n<<"), fmt.Appendf(nil, "trailer\n<< /Prev %d", x), 1)},
		{"no startxref", whole[:x]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if xrefOversized(tt.data) {
				t.Error("xrefOversized: true")
			}
		})
	}
}
