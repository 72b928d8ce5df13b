package pdftext

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// objHeader is "N G obj" at a line start or after a delimiter, as a regular expression:
// the reference objectHeaders is checked against (FuzzRebuiltXref).
var objHeader = regexp.MustCompile(`(?:^|[\r\n\s>\]])(\d{1,10})[ \t\r\n\f\x00]+(\d{1,5})[ \t\r\n\f\x00]+obj\b`)

// objectStreamPDF is a one-page PDF whose catalogue, page tree and page stand compressed in
// an object stream (object 6), the content stream and font outside it, and no
// cross-reference section at all: what is left of a PDF 1.5 file cut before its
// cross-reference stream.
func objectStreamPDF(content string) []byte { return objectStreamPDFWith(content, true) }

// objectStreamPDFWith is objectStreamPDF with its object stream Flate-compressed or stored.
func objectStreamPDFWith(content string, flate bool) []byte {
	members := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
	}
	var index, body strings.Builder
	for i, m := range members {
		fmt.Fprintf(&index, "%d %d ", i+1, body.Len())
		body.WriteString(m + "\n")
	}
	var z bytes.Buffer
	filter := ""
	if flate {
		w := zlib.NewWriter(&z)
		w.Write([]byte(index.String() + body.String()))
		w.Close()
		filter = " /Filter /FlateDecode"
	} else {
		z.WriteString(index.String() + body.String())
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	fmt.Fprintf(&b, "4 0 obj\n%s\nendobj\n", testdocs.Stream("", []byte(content)))
	fmt.Fprintf(&b, "5 0 obj\n%s\nendobj\n", simpleFont(""))
	fmt.Fprintf(&b, "6 0 obj\n%s\nendobj\n", testdocs.Stream(fmt.Sprintf("/Type /ObjStm /N 3 /First %d%s", index.Len(), filter), z.Bytes()))
	return b.Bytes()
}

// TestDamagedXref: files whose cross-reference section is missing or points wrong are read
// from their objects, found by scanning (repair.go), as pdftotext reads them; without the
// scan each is "damaged".
func TestDamagedXref(t *testing.T) {
	whole := pdfWith(simpleFont(""), "", "BT /F1 10 Tf 72 700 Td (the whole text) Tj ET")
	header := bytes.IndexByte(whole, '\n') + 1
	xref := bytes.LastIndex(whole, []byte("xref"))
	startxref := bytes.LastIndex(whole, []byte("startxref"))
	// an incremental update that replaces the content stream (object 4), its own
	// cross-reference section lost
	update := append(bytes.Clone(whole[:startxref]), "4 0 obj\n"+string(testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (the updated text) Tj ET")))+"\nendobj\n%%EOF\n"...)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"offsets shifted by bytes after the header", append(append(bytes.Clone(whole[:header]), "% a line a gateway added\n"...), whole[header:]...), "the whole text"},
		{"cut before its cross-reference table", whole[:xref], "the whole text"},
		{"startxref pointing past the end", append(bytes.Clone(whole[:startxref]), "startxref\n999999\n%%EOF\n"...), "the whole text"},
		{"line ends changed to CRLF", bytes.ReplaceAll(whole, []byte("\n"), []byte("\r\n")), "the whole text"},
		{"an update's later object wins", update, "the updated text"},
		// a second copy of the content stream the file's end cuts short, its stream and
		// "endobj" lost: the whole copy before it is read
		{"a later copy cut short by the file's end", append(bytes.Clone(whole[:startxref]), "4 0 obj\n<< /Length 44 >>\nstream\nBT /F1 10 Tf 72 700 Td (the wh"...), "the whole text"},
		{"objects inside an object stream", objectStreamPDF("BT /F1 10 Tf 72 700 Td (compressed objects) Tj ET"), "compressed objects"},
		// qpdf's QDF files keep object streams without a filter (tiff-predictor.pdf)
		{"objects inside a stored object stream", objectStreamPDFWith("BT /F1 10 Tf 72 700 Td (stored objects) Tj ET", false), "stored objects"},
		// qpdf writes the catalogue, a short object, just before the object stream: the
		// stream is not the catalogue's
		{"a short object before the object stream", bytes.Replace(objectStreamPDF("BT /F1 10 Tf 72 700 Td (after a short object) Tj ET"),
			[]byte("6 0 obj"), []byte("7 0 obj\n<< /Producer (x) >>\nendobj\n8 0 obj"), 1), "after a short object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { readsAs(t, "", tt.data, tt.want) })
	}
}

// TestDamagedXrefStillFails: a file without a catalogue stays damaged, with the reason.
func TestDamagedXrefStillFails(t *testing.T) {
	_, err := Read([]byte("%PDF-1.4\n1 0 obj\n<< /Type /Font >>\nendobj\n%%EOF\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("got %v, want it damaged", err)
	}
}

func FuzzRebuiltXref(f *testing.F) {
	whole := pdfWith(simpleFont(""), "", "BT /F1 10 Tf 72 700 Td (text) Tj ET")
	f.Add(whole[:bytes.LastIndex(whole, []byte("xref"))])
	f.Add(objectStreamPDF("BT (x) Tj ET"))
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 1 0 R >> endobj 2 0 obj << /Type /ObjStm /N 9 /First 2 /Filter /FlateDecode >> stream\nx\x9c endstream trailer << /Root 7 0 R /ID [<00> (a)] >> /XRef"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// objectHeaders finds what the regular expression finds
		var want []header
		for _, m := range objHeader.FindAllSubmatchIndex(data, -1) {
			num, _ := strconv.Atoi(string(data[m[2]:m[3]]))
			gen, _ := strconv.Atoi(string(data[m[4]:m[5]]))
			want = append(want, header{start: m[2], end: m[1], num: num, gen: gen})
		}
		if got := objectHeaders(data); !slices.Equal(got, want) {
			t.Fatalf("objectHeaders %v, the expression %v", got, want)
		}
		if fixed, ok := rebuiltXref(data); ok {
			Read(fixed, Options{MaxPages: 10}) // must not panic or hang
		}
	})
}

// TestDamagedPageObjects: a page whose resources object or whose own object has bytes
// damaged inside it (PdfPig's FailedToParseContentForPage32.pdf: "103 0 obj4</Font<<",
// "/M<diaBox") loses its own text at most; the document's other pages are read, as
// pdftotext reads them. The whole document was "damaged".
func TestDamagedPageObjects(t *testing.T) {
	data := testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R 7 0 R 9 0 R] /Count 3 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources 6 0 R /Contents 4 0 R >>"),
		testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (page one) Tj ET")),
		[]byte(simpleFont("")),
		[]byte("4</Font << /F1 5 0 R >> >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 8 0 R >>"),
		testdocs.Stream("", []byte("BT /F1 10 Tf 72 700 Td (page two) Tj ET")),
		[]byte("<< /Type /Page /Parent 2 0 R /M<diaBox [0 0 612 792] /Contents 4 0 R >>"))
	pages, err := Read(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 {
		t.Fatalf("%d pages, want 3", len(pages))
	}
	if got := strings.TrimSpace(pages[1].Text); got != "page two" {
		t.Errorf("page 2: got %q", got)
	}
	if got := strings.TrimSpace(pages[2].Text); got != "" {
		t.Errorf("page 3: got %q, want nothing", got)
	}
}
