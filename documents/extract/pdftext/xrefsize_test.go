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
// pdftotext reads it. Without xrefFault each case ends the test binary.
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
			readsPastXrefFault(t, tt.data, tt.want)
		})
	}
}

// TestXrefNotOversized: sections of ordinary files are left to the object reader.
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
		{"no startxref", whole[:x]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if fault := xrefFault(tt.data); fault != "" {
				t.Error("xrefFault:", fault)
			}
		})
	}
}

// TestXrefPrevLoop: a chain of /Prev that leads back to a section read before is not given
// to the object reader, which followed it without end (qpdf's issue-149.pdf and
// append-xref-loop.pdf hung until killed); the file is read from its objects found by
// scanning, the update's text over the original's, as pdftotext reads it.
func TestXrefPrevLoop(t *testing.T) {
	whole := pdfWith(simpleFont(""), "", "BT /F1 10 Tf 72 700 Td (the whole text) Tj ET")
	x := bytes.LastIndex(whole, []byte("\nxref\n")) + 1
	// an update that draws the page anew, its trailer's /Prev the first table, whose own
	// /Prev (a placeholder as wide as the offset it is given) names the update's table
	const placeholder = "/Prev 0000000000"
	first := bytes.Replace(whole, []byte("trailer\n<<"), []byte("trailer\n<< "+placeholder), 1)
	content := "BT /F1 10 Tf 72 700 Td (the updated text) Tj ET"
	obj := len(first)
	update := fmt.Sprintf("4 0 obj\n<< /Length %d >>\nstream\n%s\nendstream\nendobj\n", len(content), content)
	table := obj + len(update)
	update += fmt.Sprintf("xref\n4 1\n%010d 00000 n \ntrailer\n<< /Size 6 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", obj, x, table)
	looped := append(bytes.Replace(first, []byte(placeholder), fmt.Appendf(nil, "/Prev %010d", table), 1), update...)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"a /Prev to itself", bytes.Replace(whole, []byte("trailer\n<<"), fmt.Appendf(nil, "trailer\n<< /Prev %d", x), 1), "the whole text"},
		{"two tables naming each other", looped, "the updated text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsPastXrefFault(t, tt.data, tt.want)
		})
	}
}

// readsPastXrefFault checks that xrefFault finds the fault in data and that Read still reads
// its first page as want.
func readsPastXrefFault(t *testing.T, data []byte, want string) {
	t.Helper()
	if xrefFault(data) == "" {
		t.Error("xrefFault: none")
	}
	pages, err := Read(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(pages[0].Text); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
