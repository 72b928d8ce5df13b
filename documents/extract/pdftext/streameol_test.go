package pdftext

import (
	"bytes"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// TestStreamLineEnds: a stream keyword followed by a space before its line end (pdf-lib's
// with_invalid_stream_EOL.pdf) lost the whole document ("stream keyword not followed by
// newline"); without the space it reads as pdftotext reads it.
func TestStreamLineEnds(t *testing.T) {
	data := testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
		testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (Grandes Clienteles) Tj ET")),
		[]byte(simpleFont("")),
	)
	// the same length, so the cross-reference table stays right, as in the real file
	data = bytes.Replace(data, []byte(" >>\nstream\n"), []byte(">> stream \n"), 1)
	got, err := pagesText(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if got != "Grandes Clienteles" {
		t.Errorf("got %q, want %q", got, "Grandes Clienteles")
	}
}

func TestWithStreamLineEnds(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"<< /Length 3 >> stream \r\nabc\nendstream", "<< /Length 3 >> stream\r\nabc\nendstream"},
		{"<<>>stream\t \nstream \nendstream\n<<>>\nstream  \r\nx endstream", "<<>>stream\nstream \nendstream\n<<>>\nstream\r\nx endstream"},
		{"<<>>\nstream\nfine\nendstream", "<<>>\nstream\nfine\nendstream"},
		{"(a stream of words) stream x", "(a stream of words) stream x"},
		{"<<>> stream ", "<<>> stream "},
		{"<<>> stream \n no end", "<<>> stream\n no end"},
	} {
		got, changed := withStreamLineEnds([]byte(tt.in))
		if string(got) != tt.want || changed != (tt.in != tt.want) {
			t.Errorf("withStreamLineEnds(%q) = %q, %v, want %q", tt.in, got, changed, tt.want)
		}
	}
}

// FuzzStreamLineEnds: withStreamLineEnds only drops spaces and tabs, and a file so changed
// reads without panicking.
func FuzzStreamLineEnds(f *testing.F) {
	f.Add([]byte("1 0 obj << /Length 3 >> stream \r\nabc\nendstream endobj"))
	f.Add([]byte("<<>>stream\t \nstream \nendstream stream \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, changed := withStreamLineEnds(data)
		if !changed && !bytes.Equal(got, data) {
			t.Fatal("changed without saying so")
		}
		strip := func(b []byte) []byte {
			return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte(" "), nil), []byte("\t"), nil)
		}
		if !bytes.Equal(strip(got), strip(data)) {
			t.Fatal("changed more than spaces and tabs")
		}
		if fixed, ok := rebuiltXref(got); ok {
			Read(fixed, Options{MaxPages: 10}) // must not panic or hang
		}
	})
}
