package pdftext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// TestObjectStreamLoop: a cross-reference stream that lists an object stream as stored in
// itself (PdfPig's SpookyPass.pdf) is read from its objects found by scanning. Without
// objectStreamLoop the object reader recurses without end and the stack overflow ends the
// test binary.
func TestObjectStreamLoop(t *testing.T) {
	for _, loop := range []bool{true, false} {
		b := objectStreamPDF("BT /F1 10 Tf 72 700 Td (read all the same) Tj ET")
		var xref bytes.Buffer
		offsets := map[int]int{}
		for _, n := range []int{4, 5, 6} {
			offsets[n] = bytes.Index(b, fmt.Appendf(nil, "%d 0 obj", n))
		}
		offsets[7] = len(b)
		var rows bytes.Buffer
		row := func(kind byte, field2 uint32, field3 uint16) {
			rows.WriteByte(kind)
			binary.Write(&rows, binary.BigEndian, field2)
			binary.Write(&rows, binary.BigEndian, field3)
		}
		row(0, 0, 65535)
		for i := range 3 {
			row(2, 6, uint16(i)) // the catalog, the page tree and the page, in stream 6
		}
		row(1, uint32(offsets[4]), 0)
		row(1, uint32(offsets[5]), 0)
		if loop {
			row(2, 6, 3) // stream 6 itself said to be in stream 6
		} else {
			row(1, uint32(offsets[6]), 0)
		}
		row(1, uint32(offsets[7]), 0)
		fmt.Fprintf(&xref, "7 0 obj\n<< /Type /XRef /Size 8 /Root 1 0 R /W [1 4 2] /Length %d >>\nstream\n", rows.Len())
		xref.Write(rows.Bytes())
		fmt.Fprintf(&xref, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", offsets[7])
		b = append(b, xref.Bytes()...)
		pages, err := Read(b, Options{})
		if err != nil {
			t.Fatalf("loop %v: %v", loop, err)
		}
		if got := strings.TrimSpace(pages[0].Text); got != "read all the same" {
			t.Errorf("loop %v: got %q", loop, got)
		}
	}
}
