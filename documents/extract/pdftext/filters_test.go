package pdftext

import (
	"bufio"
	"bytes"
	"compress/lzw"
	"context"
	"encoding/ascii85"
	"io"
	"strings"
	"testing"

	tifflzw "golang.org/x/image/tiff/lzw"

	"edgechat/internal/testkit/testdocs"
)

// lzwEncode codes data as PDF's LZWDecode with EarlyChange 1 (early) or 0, and checks
// the result with the readers of x/image's TIFF LZW (early) and the standard library's
// (GIF's widths).
func lzwEncode(t testing.TB, data []byte, early bool) []byte {
	e := 0
	if early {
		e = 1
	}
	var out []byte
	var acc uint64
	var nbits, width uint = 0, 9
	emit := func(code int) {
		acc = acc<<width | uint64(code)
		nbits += width
		for nbits >= 8 {
			nbits -= 8
			out = append(out, byte(acc>>nbits))
		}
	}
	dict, next := map[string]int{}, 258
	reset := func() {
		emit(256)
		clear(dict)
		next, width = 258, 9
	}
	grow := func(n int) {
		if n+e >= 1<<width && width < 12 {
			width++
		}
	}
	reset()
	w := ""
	for _, c := range data {
		if _, ok := dict[w+string(c)]; ok || w == "" {
			w += string(c)
			continue
		}
		emit(lzwCode(dict, w))
		dict[w+string(c)] = next
		next++
		grow(next - 1)
		if next >= 4093 {
			reset()
		}
		w = string(c)
	}
	if w != "" {
		emit(lzwCode(dict, w))
		grow(next)
	}
	emit(257)
	if nbits > 0 {
		out = append(out, byte(acc<<(8-nbits)))
	}
	var check io.ReadCloser
	if early {
		check = tifflzw.NewReader(bytes.NewReader(out), tifflzw.MSB, 8)
	} else {
		check = lzw.NewReader(bytes.NewReader(out), lzw.MSB, 8)
	}
	if got, err := io.ReadAll(check); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the test's LZW coder is wrong: %v", err)
	}
	return out
}

func lzwCode(dict map[string]int, w string) int {
	if len(w) == 1 {
		return int(w[0])
	}
	return dict[w]
}

// a85 is b in ASCII85, wrapped and ended as a PDF writes it.
func a85(b []byte) []byte {
	out := make([]byte, ascii85.MaxEncodedLen(len(b)))
	out = out[:ascii85.Encode(out, b)]
	return append(append(out[:2:2], append([]byte("\n"), out[2:]...)...), "~>"...)
}

// pdfWithStream is a one-page PDF whose content stream is data under the stream
// dictionary entries dict.
func pdfWithStream(dict string, data []byte) []byte {
	return testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
		testdocs.Stream(dict, data),
		[]byte(simpleFont("")))
}

func TestFilters(t *testing.T) {
	content := "BT /F1 10 Tf 72 700 Td (LZW coded content, as Distiller 3 wrote it) Tj ET"
	long := strings.Repeat("BT /F1 10 Tf 72 700 Td (the table fills and clears) Tj ET\n", 400) + content
	tests := []struct {
		name, dict string
		data       []byte
		want       string
	}{
		{"ISO 32000's example of LZWDecode", "/Filter /LZWDecode",
			[]byte{0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01}, "-----A---B"},
		{"LZWDecode with early change (the default)", "/Filter /LZWDecode", lzwEncode(t, []byte(long), true), long},
		{"LZWDecode without early change", "/Filter /LZWDecode /DecodeParms << /EarlyChange 0 >>", lzwEncode(t, []byte(long), false), long},
		{"ASCIIHexDecode, an odd last digit", "/Filter /ASCIIHexDecode", []byte("48 65\n6c6C 6f7>junk"), "Hellop"},
		{"RunLengthDecode", "/Filter /RunLengthDecode", []byte{2, 'a', 'b', 'c', 254, 'x', 0, 'y', 128, 'z'}, "abcxxxy"},
		{"a chain: ASCIIHex over LZW", "/Filter [/ASCIIHexDecode /LZWDecode]",
			[]byte("800B6050 220C0C85 01>"), "-----A---B"},
		{"a chain: ASCII85 over RunLength", "/Filter [/ASCII85Decode /RL]", a85([]byte{2, 'a', 'b', 'c', 128}), "abc"},
		// the abbreviations of inline images, which poppler takes in any stream (PDFBox's
		// rendering/source.pdf: content streams under /A85, refused as damaged)
		{"ASCII85Decode abbreviated", "/Filter /A85", a85([]byte("abc")), "abc"},
		{"FlateDecode abbreviated", "/Filter [/A85 /Fl]", a85(flate([]byte("abc"))), "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := pdfWithStream(tt.dict, tt.data)
			r, list, err := open(data, Options{Context: context.Background(), MaxPages: 10, MaxDepth: 10})
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.stream(list[0].v.Key("Contents"), "content")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	pages, err := Read(pdfWithStream("/Filter /LZWDecode", lzwEncode(t, []byte(content), true)), Options{})
	if err != nil || len(pages) != 1 || strings.TrimSpace(pages[0].Text) != "LZW coded content, as Distiller 3 wrote it" {
		t.Errorf("a page of LZW-coded content: %v %+v", err, pages)
	}
}

// FuzzFilters decodes any bytes as LZW (both early changes), ASCIIHex and RunLength
// data: no panic, no endless loop, no more output than LZW's and RunLength's ratios allow.
func FuzzFilters(f *testing.F) {
	f.Add([]byte{0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01})
	f.Add(lzwEncode(f, []byte(strings.Repeat("abcabcabd", 300)), true))
	f.Add([]byte("48 65\n6c6C 6f7>"))
	f.Add([]byte{2, 'a', 'b', 'c', 254, 'x', 0, 'y', 128, 'z'})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, rd := range []io.Reader{
			newLZWReader(bufio.NewReader(bytes.NewReader(data)), 1),
			newLZWReader(bufio.NewReader(bytes.NewReader(data)), 0),
			&hexReader{r: bufio.NewReader(bytes.NewReader(data))},
			&runLengthReader{r: bufio.NewReader(bytes.NewReader(data))},
		} {
			out, _ := io.ReadAll(io.LimitReader(rd, int64(4096*len(data)+1)))
			if len(out) > 4096*len(data) {
				t.Fatalf("%d bytes out of %d", len(out), len(data))
			}
		}
		Read(pdfWithStream("/Filter [/ASCIIHexDecode /LZWDecode]", data), Options{}) // must not panic or hang
	})
}
