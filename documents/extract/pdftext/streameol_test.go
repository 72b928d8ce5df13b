package pdftext

import (
	"bytes"
	"testing"
)

// TestStreamLineEnds: a stream keyword followed by a space before its line end (pdf-lib's
// with_invalid_stream_EOL.pdf) lost the whole document ("stream keyword not followed by
// newline"); without the space it reads as pdftotext reads it.
func TestStreamLineEnds(t *testing.T) {
	data := onePagePDF("Grandes Clienteles", "")
	// the same length, so the cross-reference table stays right, as in the real file
	data = bytes.Replace(data, []byte(" >>\nstream\n"), []byte(">> stream \n"), 1)
	readsAs(t, "", data, "Grandes Clienteles")
}

func TestWithStreamLineEnds(t *testing.T) {
	checkRepair(t, "withStreamLineEnds", withStreamLineEnds, []repairCase{
		{"<< /Length 3 >> stream \r\nabc\nendstream", "<< /Length 3 >> stream\r\nabc\nendstream"},
		{"<<>>stream\t \nstream \nendstream\n<<>>\nstream  \r\nx endstream", "<<>>stream\nstream \nendstream\n<<>>\nstream\r\nx endstream"},
		{"<<>>\nstream\nfine\nendstream", "<<>>\nstream\nfine\nendstream"},
		{"(a stream of words) stream x", "(a stream of words) stream x"},
		{"<<>> stream ", "<<>> stream "},
		{"<<>> stream \n no end", "<<>> stream\n no end"},
	})
}

// FuzzStreamLineEnds: withStreamLineEnds only drops spaces and tabs, and a file so changed
// reads without panicking.
func FuzzStreamLineEnds(f *testing.F) {
	f.Add([]byte("1 0 obj << /Length 3 >> stream \r\nabc\nendstream endobj"))
	f.Add([]byte("<<>>stream\t \nstream \nendstream stream \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRepair(t, data, withStreamLineEnds, without(" ", "\t"))
	})
}
