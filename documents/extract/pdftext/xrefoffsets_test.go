package pdftext

import (
	"bytes"
	"fmt"
	"testing"
)

// TestXrefOffsetInsideObject: a cross-reference entry that points inside the object
// before (format-corpus's T04_006: the page contents' entry on the "dobj" of an "endobj")
// lost the page ("unexpected keyword "dobj" parsing object"); read again through the scan,
// the page reads as pdftotext reads it.
func TestXrefOffsetInsideObject(t *testing.T) {
	data := bytes.Clone(onePagePDF("Hello PDF-world!", ""))
	at := bytes.Index(data, []byte("4 0 obj"))
	dobj := bytes.LastIndex(data[:at], []byte("dobj"))
	right := fmt.Sprintf("%010d 00000 n", at)
	i := bytes.Index(data, []byte(right))
	if dobj < 0 || i < 0 {
		t.Fatalf("no entry %q for object 4 in the test file", right)
	}
	copy(data[i:], fmt.Sprintf("%010d", dobj))
	readsAs(t, "", data, "Hello PDF-world!")
}
