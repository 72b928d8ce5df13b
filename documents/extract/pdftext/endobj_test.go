package pdftext

import (
	"bytes"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// TestEndobjs: a font object without "endobj", running into "xref" (pdf-lib's
// missing_endobj_keyword.pdf), lost the page that uses it ("missing endobj after indirect
// object definition"); with the keyword put back it reads as pdftotext reads it.
func TestEndobjs(t *testing.T) {
	data := testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
		testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (Grandes Clienteles) Tj ET")),
		[]byte(simpleFont("")),
	)
	// the last object's "endobj" blanked, so the offsets stay right, as in the real file
	i := bytes.LastIndex(data, []byte("endobj"))
	data = append(append(bytes.Clone(data[:i]), "      "...), data[i+len("endobj"):]...)
	got, err := pagesText(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if got != "Grandes Clienteles" {
		t.Errorf("got %q, want %q", got, "Grandes Clienteles")
	}
}

func TestWithEndobjs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"1 0 obj\n<< /A 1 >>\nendobj\n2 0 obj\n<< /B 2 >>\nxref\n0 3\ntrailer\n", "1 0 obj\n<< /A 1 >>\nendobj\n2 0 obj\n<< /B 2 >>\n\nendobj\nxref\n0 3\ntrailer\n"},
		{"1 0 obj\n(a)\n2 0 obj\n(b)\nendobj\n", "1 0 obj\n(a)\n\nendobj\n2 0 obj\n(b)\nendobj\n"},
		{"1 0 obj\n(a)\nendobj\n2 0 obj\n(b)\nendobj\n", "1 0 obj\n(a)\nendobj\n2 0 obj\n(b)\nendobj\n"},
		{"1 0 obj\n<< >>\nstream\nab", "1 0 obj\n<< >>\nstream\nab"},
		{"1 0 obj\n<< >>\nstream\nab\nendstream\n2 0 obj 5 endobj", "1 0 obj\n<< >>\nstream\nab\nendstream\n\nendobj\n2 0 obj 5 endobj"},
	} {
		got, changed := withEndobjs([]byte(tt.in))
		if string(got) != tt.want || changed != (tt.in != tt.want) {
			t.Errorf("withEndobjs(%q) = %q, %v, want %q", tt.in, got, changed, tt.want)
		}
	}
}

// FuzzEndobjs: withEndobjs only puts keywords in, and a file so changed reads without
// panicking.
func FuzzEndobjs(f *testing.F) {
	f.Add([]byte("1 0 obj\n<< /A 1 >>\nendobj\n2 0 obj\n<< /B 2 >>\nxref\n0 3\ntrailer\n"))
	f.Add([]byte("1 0 obj 1 0 obj 2 0 obj <<>> stream\nendstream xref"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, changed := withEndobjs(data)
		if !changed && !bytes.Equal(got, data) {
			t.Fatal("changed without saying so")
		}
		if !bytes.Equal(bytes.ReplaceAll(got, []byte("\nendobj\n"), nil), bytes.ReplaceAll(data, []byte("\nendobj\n"), nil)) {
			t.Fatal("changed more than endobj keywords")
		}
		if fixed, ok := rebuiltXref(got); ok {
			Read(fixed, Options{MaxPages: 10}) // must not panic or hang
		}
	})
}
