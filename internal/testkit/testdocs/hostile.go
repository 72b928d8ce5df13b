package testdocs

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"strings"
)

// Hostile documents: small files that unpack, nest or repeat without end, as an attacker
// would send them. Each is made in memory in well under a second.

// RawPDF assembles a PDF from numbered objects (objs[0] is object 1, written as given, so
// a stream object carries its own "stream…endstream") with a cross-reference table and a
// trailer whose Root is object root.
func RawPDF(root int, objs ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n", i+1)
		b.Write(o)
		b.WriteString("\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, root, xref)
	return b.Bytes()
}

// Stream is a PDF stream object with dict's entries (without Length) and data as is.
func Stream(dict string, data []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<< %s /Length %d >>\nstream\n", dict, len(data))
	b.Write(data)
	b.WriteString("\nendstream")
	return b.Bytes()
}

// OnePagePDF is a PDF of one page whose content stream is content (Flate-compressed when
// filter is "/FlateDecode" and content was compressed by the caller), with Helvetica as F1.
func OnePagePDF(filter string, content []byte) []byte {
	dict := ""
	if filter != "" {
		dict = "/Filter " + filter
	}
	return RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
		Stream(dict, content),
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"),
	)
}

// Repeated is the zlib stream of unit repeated until about n bytes, made without
// compressing n bytes: a block flushed once the compressor's window holds the unit is
// repeated as it is, then the stream is closed with the checksum of all of it.
func Repeated(unit []byte, n int64) []byte {
	block := bytes.Repeat(unit, max(1, (64<<10)/len(unit)))
	var out bytes.Buffer
	out.Write([]byte{0x78, 0x9c}) // zlib header: deflate, default level
	fw, _ := flate.NewWriter(&out, flate.BestCompression)
	var steady []byte
	written := int64(0)
	for round := 0; written < n; round++ {
		if steady != nil {
			out.Write(steady)
		} else {
			start := out.Len()
			fw.Write(block)
			fw.Flush()
			if round == 3 { // the window is full of the unit: later rounds compress alike
				steady = bytes.Clone(out.Bytes()[start:])
			}
		}
		written += int64(len(block))
	}
	if steady != nil {
		// The flate writer's state is behind the copied rounds; end with an empty final block.
		out.Write([]byte{0x03, 0x00})
	} else {
		fw.Close()
	}
	out.Write(binary.BigEndian.AppendUint32(nil, adlerRepeat(adler32.Checksum(block), int64(len(block)), written/int64(len(block)))))
	return out.Bytes()
}

// adlerRepeat is the Adler-32 of k copies of a block of n bytes whose own sum is a, by
// doubling with zlib's adler32_combine.
func adlerRepeat(a uint32, n, k int64) uint32 {
	sum, sumLen := uint32(1), int64(0) // the sum of nothing
	for k > 0 {
		if k&1 == 1 {
			sum, sumLen = adlerCombine(sum, a, n), sumLen+n
		}
		a, n = adlerCombine(a, a, n), 2*n
		k >>= 1
	}
	return sum
}

// adlerCombine is zlib's adler32_combine: the sum of two pieces from their sums and the
// second's length.
func adlerCombine(a1, a2 uint32, len2 int64) uint32 {
	const base = 65521
	rem := uint32(len2 % base)
	sum1 := a1 & 0xffff
	sum2 := rem * sum1 % base
	sum1 += a2&0xffff + base - 1
	sum2 += a1>>16 + a2>>16 + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= base<<1 {
		sum2 -= base << 1
	}
	if sum2 >= base {
		sum2 -= base
	}
	return sum1 | sum2<<16
}

// FlateBombPDF is a one-page PDF whose content stream unpacks to about n bytes of text
// shown word by word.
func FlateBombPDF(n int64) []byte {
	return OnePagePDF("/FlateDecode", Repeated([]byte("BT /F1 12 Tf 72 700 Td (boom boom) Tj ET\n"), n))
}

// OneStringBombPDF is a one-page PDF whose content stream unpacks to one string of about
// n bytes.
func OneStringBombPDF(n int64) []byte {
	body := Repeated([]byte("AAAAAAAAAAAAAAAA"), n)
	// A raw deflate stream cannot be cut; the string's parentheses come from two streams.
	return RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 6 0 R >> >> /Contents [4 0 R 5 0 R 7 0 R] >>"),
		Stream("", []byte("BT /F1 12 Tf (")),
		Stream("/Filter /FlateDecode", body),
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
		Stream("", []byte(") Tj ET")),
	)
}

// RepeatedPagePDF lists one page n times in its page tree.
func RepeatedPagePDF(n int) []byte {
	kids := strings.Repeat("3 0 R ", n)
	return RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, n)),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
		Stream("", []byte("BT /F1 12 Tf 72 700 Td (the same page again) Tj ET")),
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
	)
}

// NestedPDF is a one-page PDF whose content stream nests n arrays.
func NestedPDF(n int) []byte {
	content := "BT /F1 12 Tf (before) Tj " + strings.Repeat("[", n) + strings.Repeat("]", n) + " TJ ET"
	return OnePagePDF("", []byte(content))
}

// FormLoopPDF is a page that draws a form XObject that draws itself.
func FormLoopPDF() []byte {
	return RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /X1 6 0 R >> >> /Contents 4 0 R >>"),
		Stream("", []byte("BT /F1 12 Tf 72 700 Td (page text) Tj ET /X1 Do")),
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
		Stream("/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /Font << /F1 5 0 R >> /XObject << /X1 6 0 R >> >>",
			[]byte("BT /F1 12 Tf 72 600 Td (form text) Tj ET /X1 Do")),
	)
}

// NestedHTML is an HTML page whose body nests n div elements around a sentence.
func NestedHTML(n int) []byte {
	var b bytes.Buffer
	b.Grow(11*n + 100)
	b.WriteString("<!DOCTYPE html><html><body><p>Deep inside.</p>")
	for range n {
		b.WriteString("<div>")
	}
	b.WriteString("bottom")
	for range n {
		b.WriteString("</div>")
	}
	b.WriteString("</body></html>")
	return b.Bytes()
}

// OneLineMarkdown is about n bytes of Markdown prose on a single line.
func OneLineMarkdown(n int) []byte {
	var b bytes.Buffer
	b.Grow(n + 64)
	b.WriteString("# Title\n\n")
	for seed := uint64(0); b.Len() < n; seed++ {
		b.WriteString(Filler(seed, 64<<10))
		b.WriteByte(' ')
	}
	return b.Bytes()
}

// ZipBomb is a zip-packed document (part names which: "word/document.xml",
// "content.xml") whose part unpacks to size bytes of white space inside an element and
// says it unpacks to claim bytes; the other files make it look like the kind it claims.
func ZipBomb(part string, size, claim int, others ...File) []byte {
	var packed bytes.Buffer
	fw, err := flate.NewWriter(&packed, flate.BestCompression)
	if err != nil {
		panic(err)
	}
	fw.Write([]byte("<a>"))
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for n := 3; n < size; n += len(chunk) {
		fw.Write(chunk[:min(len(chunk), size-n)])
	}
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range others {
		w, _ := zw.Create(f.Name)
		w.Write([]byte(f.Body))
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: part, Method: zip.Deflate, CompressedSize64: uint64(packed.Len()), UncompressedSize64: uint64(claim), CRC32: 0})
	if err != nil {
		panic(err)
	}
	w.Write(packed.Bytes())
	zw.Close()
	return buf.Bytes()
}

// ManyEntriesZip is an EPUB-looking archive of n empty files.
func ManyEntriesZip(n int) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range n {
		zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("f%d", i), Method: zip.Store})
	}
	zw.Close()
	return buf.Bytes()
}
