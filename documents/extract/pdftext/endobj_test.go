package pdftext

import (
	"bytes"
	"testing"
)

// TestEndobjs: a font object without "endobj", running into "xref" (pdf-lib's
// missing_endobj_keyword.pdf), lost the page that uses it ("missing endobj after indirect
// object definition"); with the keyword put back it reads as pdftotext reads it.
func TestEndobjs(t *testing.T) {
	data := onePagePDF("Grandes Clienteles", "")
	// the last object's "endobj" blanked, so the offsets stay right, as in the real file
	i := bytes.LastIndex(data, []byte("endobj"))
	data = append(append(bytes.Clone(data[:i]), "      "...), data[i+len("endobj"):]...)
	readsAs(t, "", data, "Grandes Clienteles")
}

// TestEndobjsBehindXref: objects without "endobj" in a file whose cross-reference section
// also points wrong (qpdf's bad*.pdf, each a fault of its table over a file whose page tree
// and content stream lack the keyword): the copy found by scanning failed on the missing
// keyword and the file was refused; the keyword put back, it reads as pdftotext reads it.
func TestEndobjsBehindXref(t *testing.T) {
	data := onePagePDF("Grandes Clienteles", "")
	// the page tree's "endobj" blanked, which the object reader needs to open the file
	i := bytes.Index(data, []byte("/Type /Pages"))
	i += bytes.Index(data[i:], []byte("endobj"))
	data = append(append(bytes.Clone(data[:i]), "      "...), data[i+len("endobj"):]...)
	for name, fault := range map[string]func([]byte) []byte{
		"a startxref past the end": func(b []byte) []byte {
			return append(bytes.Clone(b[:bytes.LastIndex(b, []byte("startxref"))]), "startxref\n999999\n%%EOF\n"...)
		},
		"no cross-reference table": func(b []byte) []byte { return bytes.Clone(b[:bytes.LastIndex(b, []byte("\nxref"))+1]) },
	} {
		readsAs(t, name, fault(data), "Grandes Clienteles")
	}
}

func TestWithEndobjs(t *testing.T) {
	checkRepair(t, "withEndobjs", withEndobjs, []repairCase{
		{"1 0 obj\n<< /A 1 >>\nendobj\n2 0 obj\n<< /B 2 >>\nxref\n0 3\ntrailer\n", "1 0 obj\n<< /A 1 >>\nendobj\n2 0 obj\n<< /B 2 >>\n\nendobj\nxref\n0 3\ntrailer\n"},
		{"1 0 obj\n(a)\n2 0 obj\n(b)\nendobj\n", "1 0 obj\n(a)\n\nendobj\n2 0 obj\n(b)\nendobj\n"},
		{"1 0 obj\n(a)\nendobj\n2 0 obj\n(b)\nendobj\n", "1 0 obj\n(a)\nendobj\n2 0 obj\n(b)\nendobj\n"},
		{"1 0 obj\n<< >>\nstream\nab", "1 0 obj\n<< >>\nstream\nab"},
		{"1 0 obj\n<< >>\nstream\nab\nendstream\n2 0 obj 5 endobj", "1 0 obj\n<< >>\nstream\nab\nendstream\n\nendobj\n2 0 obj 5 endobj"},
	})
}

// FuzzEndobjs: withEndobjs only puts keywords in, and a file so changed reads without
// panicking.
func FuzzEndobjs(f *testing.F) {
	f.Add([]byte("1 0 obj\n<< /A 1 >>\nendobj\n2 0 obj\n<< /B 2 >>\nxref\n0 3\ntrailer\n"))
	f.Add([]byte("1 0 obj 1 0 obj 2 0 obj <<>> stream\nendstream xref"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRepair(t, data, withEndobjs, without("\nendobj\n"))
	})
}
