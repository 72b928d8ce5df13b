package pdftext

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// inlinePDF is a one-page US Letter PDF whose content is content, with Helvetica as /F1 and
// /Cs1 a gray color space in its resources.
func inlinePDF(content []byte) []byte {
	return testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /ColorSpace << /Cs1 /DeviceGray >> >> /Contents 4 0 R >>"),
		testdocs.Stream("", content),
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"),
	)
}

// inline is the operators that draw an inline image of dict and data over the box
// [x y x+w y+h] (points).
func inline(x, y, w, h float64, dict string, data []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "q %g 0 0 %g %g %g cm BI %s ID ", w, h, x, y, dict)
	b.Write(data)
	b.WriteString("\nEI Q\n")
	return b.Bytes()
}

const footer = "BT /F1 10 Tf 72 40 Td (Scanned by the front desk) Tj ET"

// A page scanned into inline images (whole, or in strips) is covered by them, as by image
// XObjects, and the text after them is read.
func TestInlineImageCover(t *testing.T) {
	fax, err := os.ReadFile("testdata/gopher.ccitt_group4")
	if err != nil {
		t.Fatal(err)
	}
	pix := flate(bytes.Repeat([]byte{0x80}, 1700*1100))
	strip := "/W 1700 /H 1100 /BPC 8 /CS /G /F /Fl"
	for _, c := range []struct {
		name    string
		content []byte
		want    float64
	}{
		{"one image, 200 dpi", inline(0, 0, 612, 792, "/W 1700 /H 2200 /BPC 8 /CS /G /F /Fl", flate(bytes.Repeat([]byte{0x80}, 1700*2200))), 1},
		{"two strips", append(inline(0, 0, 612, 396, strip, pix), inline(0, 396, 612, 396, strip, pix)...), 1},
		{"the top half, a stencil mask", inline(0, 396, 612, 396, "/IM true /W 1700 /H 1100 /F /CCF /DP << /K -1 /Columns 1700 >>", fax), 0.5},
		{"a logo", inline(72, 700, 72, 72, "/W 16 /H 16 /BPC 8 /CS /RGB", bytes.Repeat([]byte{1, 2, 3}, 256)), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			content := append(c.content, footer...)
			pages, err := Read(inlinePDF(content), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := pages[0].ImageCover; math.Abs(got-c.want) > 0.01 {
				t.Errorf("ImageCover = %.3f, want %.3f", got, c.want)
			}
			if got := strings.TrimSpace(pages[0].Text); got != "Scanned by the front desk" {
				t.Errorf("text %q, want the footer after the images", got)
			}
		})
	}
}

// Inline images are handed on to the recognizer decoded as image XObjects are: their
// abbreviated keys and filter names, a fax stencil mask, an indexed palette, a color space
// named in the resources, and data holding "EI" when the dictionary gives its length (L).
func TestReadInlineImages(t *testing.T) {
	fax, err := os.ReadFile("testdata/gopher.ccitt_group4")
	if err != nil {
		t.Fatal(err)
	}
	gopher, err := os.ReadFile("testdata/gopher.png")
	if err != nil {
		t.Fatal(err)
	}
	ramp := make([]byte, 16*16) // each row 0, 16, 32 … 240
	for i := range ramp {
		ramp[i] = byte(i % 16 * 16)
	}
	withEI := bytes.Repeat([]byte{0x80}, 16*16)
	copy(withEI[40:], "\nEI \n")
	indexed := make([]byte, 16*16/8) // 1 bit a pixel: the left half 0 (black), the right 1 (white)
	for i := range indexed {
		if i%2 == 1 {
			indexed[i] = 0xff
		}
	}
	for _, c := range []struct {
		name, dict string
		data       []byte
		want       func(x, y int) uint8 // nil: the gopher
	}{
		{"Flate gray, abbreviated", "/W 16 /H 16 /BPC 8 /CS /G /F /Fl", flate(ramp), func(x, y int) uint8 { return uint8(x * 16) }},
		{"filters as arrays", "/W 16 /H 16 /BPC 8 /CS /DeviceGray /F [/A85 /Fl] /DP [null null]", a85(flate(ramp)), func(x, y int) uint8 { return uint8(x * 16) }},
		{"fax stencil mask", "/IM true /W 153 /H 55 /F /CCF /DP << /K -1 /Columns 153 >>", fax, nil},
		{"indexed palette", "/W 16 /H 16 /BPC 1 /CS [/I /RGB 1 <000000FFFFFF>]", indexed, func(x, y int) uint8 { return map[bool]uint8{true: 255}[x >= 8] }},
		{"named color space", "/W 16 /H 16 /BPC 8 /CS /Cs1", ramp, func(x, y int) uint8 { return uint8(x * 16) }},
		{"EI inside, length given", "/W 16 /H 16 /BPC 8 /CS /G /L 256", withEI, func(x, y int) uint8 { return withEI[y*16+x] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := readInline(t, c.dict, c.data)
			if len(got) != 1 || got[0].Err != nil {
				t.Fatalf("images %+v, want one read", got)
			}
			pix := grayPix(t, got[0].Format, got[0].Data)
			want := c.want
			if want == nil {
				g := grayPix(t, "png", gopher)
				want = func(x, y int) uint8 { return g[y][x] }
			}
			differ := 0
			for y := range pix {
				for x := range pix[y] {
					if pix[y][x] != want(x, y) {
						differ++
					}
				}
			}
			if differ > 0 {
				t.Errorf("%d of %d pixels differ (first row %v)", differ, len(pix)*len(pix[0]), pix[0])
			}
		})
	}
}

// An inline image that cannot be decoded is handed on with its reason, as an XObject is,
// and does not stop the page's text.
func TestReadInlineImageRefused(t *testing.T) {
	for _, dict := range []string{
		"/W 16 /H 16 /BPC 8 /CS /Nowhere",             // a color space the page does not define
		"/W 16 /H 16 /BPC 1 /IM true /F /JBIG2Decode", // no JBIG2 decoder
		"/W 16 /H 16 /BPC 8",                          // no color space
	} {
		if got := readInline(t, dict, bytes.Repeat([]byte{7}, 256)); len(got) != 1 || got[0].Err == nil {
			t.Errorf("%s: images %+v, want one with its reason", dict, got)
		}
	}
}

// readInline reads a page that draws an inline image of dict and data over the whole page,
// the footer after it, and returns the images handed on; the footer must read.
func readInline(t *testing.T, dict string, data []byte) []Image {
	t.Helper()
	content := append(inline(0, 0, 612, 792, dict, data), footer...)
	var got []Image
	pages, err := ReadImages(inlinePDF(content), Options{}, func(img Image) error {
		got = append(got, img)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if txt := strings.TrimSpace(pages[0].Text); txt != "Scanned by the front desk" {
		t.Errorf("%s: text %q, want the footer after the image", dict, txt)
	}
	return got
}

// FuzzInlineImage reads inline images of any dictionary and data, handed on to a
// recognizer: the lexer's search for EI, the dictionary's keys and the decoders must not
// panic or hang, and the text after the image is still read.
func FuzzInlineImage(f *testing.F) {
	for _, c := range []struct{ dict, data string }{
		{"/W 16 /H 16 /BPC 8 /CS /G /F /Fl", string(flate(bytes.Repeat([]byte{9}, 256)))},
		{"/W 16 /H 16 /BPC 1 /CS [/I /RGB 1 <000000FFFFFF>]", string(bytes.Repeat([]byte{0x0f}, 32))},
		{"/IM true /W 32 /H 8 /F [/AHx /CCF] /DP [null << /K -1 /Columns 32 /BlackIs1 true >>]", "00ff>"},
		{"/W 16 /H 16 /BPC 8 /CS /Cs1 /L 300", "EI EI\nEI"},
		{"/W 99999 /H -3 /CS [/I /Cs1 300 (x)] /D [1 0 1]", ""},
	} {
		f.Add(c.dict, c.data)
	}
	f.Fuzz(func(t *testing.T, dict, data string) {
		content := append(inline(0, 0, 612, 792, dict, []byte(data)), footer...)
		ReadImages(inlinePDF(content), Options{}, func(Image) error { return nil }) // must not panic or hang
	})
}
