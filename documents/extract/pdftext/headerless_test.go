package pdftext

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// A PDF whose header line is broken or missing reads as pdftotext reads it (openpreserve's
// hand-built corpus: "%PDF1.4", "%PDF.1.4", "%1.4", no header); a file that is no PDF
// stays refused as not starting like one.
func TestBrokenHeader(t *testing.T) {
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	good := pdfWith(font, "", "BT /F1 12 Tf 72 700 Td (Hello PDF-world!) Tj ET")
	end := bytes.IndexByte(good, '\n') + 1 // after "%PDF-1.x"
	tests := []struct {
		name, header string
		read         bool
	}{
		{"no dash", "%PDF1.4\n", true},
		{"a dot for the dash", "%PDF.1.4\n", true},
		{"no PDF", "%1.4\n", true},
		{"no header at all", "", true},
		{"a picture's bytes before", "\xff\xd8\xff\xe0\x00\x10JFIF\x00" + string(bytes.Repeat([]byte{0}, 1100)), false},
	}
	for _, tt := range tests {
		data := append([]byte(tt.header), good[end:]...)
		pages, err := Read(data, Options{})
		switch {
		case tt.read && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.read && (len(pages) != 1 || strings.TrimSpace(pages[0].Text) != "Hello PDF-world!"):
			t.Errorf("%s: got %d pages %q, want \"Hello PDF-world!\"", tt.name, len(pages), pagesOf(pages))
		case !tt.read && !errors.Is(err, ErrDamaged):
			t.Errorf("%s: got %v, want it refused as damaged", tt.name, err)
		}
	}
	if _, err := Read([]byte("GIF89a trailer"), Options{}); !errors.Is(err, ErrDamaged) {
		t.Errorf("a picture that holds the word trailer: got %v, want it refused as damaged", err)
	}
}

func pagesOf(pages []Page) []string {
	var s []string
	for _, p := range pages {
		s = append(s, p.Text)
	}
	return s
}
