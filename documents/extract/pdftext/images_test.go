package pdftext

import (
	"bytes"
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/testdocs"
)

func flate(b []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// grayPix decodes a PNG or JPEG and returns its pixels as gray levels, row by row.
func grayPix(t testing.TB, format string, data []byte) [][]uint8 {
	t.Helper()
	var img image.Image
	var err error
	switch format {
	case "png":
		img, err = png.Decode(bytes.NewReader(data))
	case "jpeg":
		img, err = jpeg.Decode(bytes.NewReader(data))
	default:
		t.Fatalf("format %q", format)
	}
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	out := make([][]uint8, b.Dy())
	for y := range out {
		out[y] = make([]uint8, b.Dx())
		for x := range out[y] {
			out[y][x] = color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y
		}
	}
	return out
}

// imageCases are images of 4×2 pixels, stored in each way decodeImage reads, with the gray
// levels they show.
func imageCases() []struct {
	name string
	info imageInfo
	raw  []byte
	want [][]uint8
} {
	fl := []filter{{name: "FlateDecode", colors: 1, bpc: 8, columns: 1, earlyChange: 1}}
	return []struct {
		name string
		info imageInfo
		raw  []byte
		want [][]uint8
	}{
		{"8-bit gray, Flate", imageInfo{width: 4, height: 2, bpc: 8, comps: 1, filters: fl},
			flate([]byte{0, 50, 100, 255, 255, 100, 50, 0}), [][]uint8{{0, 50, 100, 255}, {255, 100, 50, 0}}},
		{"1-bit gray, raw", imageInfo{width: 4, height: 2, bpc: 1, comps: 1},
			[]byte{0b1010_0000, 0b0101_0000}, [][]uint8{{255, 0, 255, 0}, {0, 255, 0, 255}}},
		{"1-bit with Decode [1 0]", imageInfo{width: 4, height: 2, bpc: 1, comps: 1, decode: []float64{1, 0}},
			[]byte{0b1010_0000, 0b0101_0000}, [][]uint8{{0, 255, 0, 255}, {255, 0, 255, 0}}},
		{"8-bit RGB", imageInfo{width: 4, height: 2, bpc: 8, comps: 3},
			[]byte{255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 255, 0, 10, 10, 10, 20, 20, 20, 30, 30, 30},
			[][]uint8{{255, 0, 76, 29}, {150, 10, 20, 30}}},
		{"4-bit indexed RGB", imageInfo{width: 4, height: 2, bpc: 4, comps: 1, base: 3, hival: 1, palette: []byte{255, 255, 255, 0, 0, 0}},
			[]byte{0x01, 0x10, 0x11, 0x00}, [][]uint8{{255, 0, 0, 255}, {0, 0, 255, 255}}},
		{"CMYK", imageInfo{width: 4, height: 2, bpc: 8, comps: 4},
			[]byte{0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 128, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 0},
			[][]uint8{{255, 0, 127, 255}, {0, 0, 0, 255}}},
		{"PNG Up predictor", imageInfo{width: 4, height: 2, bpc: 8, comps: 1, filters: []filter{{name: "FlateDecode", predictor: 12, colors: 1, bpc: 8, columns: 4}}},
			flate([]byte{0, 10, 20, 30, 40, 2, 1, 1, 1, 1}), [][]uint8{{10, 20, 30, 40}, {11, 21, 31, 41}}},
		{"PNG Paeth and Sub", imageInfo{width: 4, height: 2, bpc: 8, comps: 1, filters: []filter{{name: "Fl", predictor: 15, colors: 1, bpc: 8, columns: 4}}},
			flate([]byte{1, 10, 10, 10, 10, 4, 0, 0, 0, 0}), [][]uint8{{10, 20, 30, 40}, {10, 20, 30, 40}}},
		{"ASCIIHex then RunLength", imageInfo{width: 4, height: 2, bpc: 8, comps: 1, filters: []filter{{name: "AHx"}, {name: "RL"}}},
			[]byte("FD 00 03 07 08 09 0A 80>"), [][]uint8{{0, 0, 0, 0}, {7, 8, 9, 10}}},
		{"16-bit gray", imageInfo{width: 4, height: 2, bpc: 16, comps: 1},
			[]byte{0, 0, 0xff, 0xff, 0x80, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, [][]uint8{{0, 255, 128, 64}, {0, 0, 0, 255}}},
		{"short data: white below", imageInfo{width: 4, height: 2, bpc: 8, comps: 1},
			[]byte{1, 2, 3, 4}, [][]uint8{{1, 2, 3, 4}, {255, 255, 255, 255}}},
	}
}

func TestDecodeImage(t *testing.T) {
	for _, c := range imageCases() {
		t.Run(c.name, func(t *testing.T) {
			format, data, err := decodeImage(c.info, c.raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, grayPix(t, format, data)); diff != "" {
				t.Errorf("pixels (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeImageJPEG(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 32, 32))
	for i := range img.Pix {
		img.Pix[i] = uint8(i % 32 * 8)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	dct := []filter{{name: "DCTDecode"}}
	format, data, err := decodeImage(imageInfo{width: 32, height: 32, bpc: 8, comps: 1, filters: dct}, buf.Bytes(), nil)
	if err != nil || format != "jpeg" || !bytes.Equal(data, buf.Bytes()) {
		t.Errorf("gray JPEG: %s, %d bytes, %v; want it as it is", format, len(data), err)
	}
	format, data, err = decodeImage(imageInfo{width: 32, height: 32, bpc: 8, comps: 1, filters: dct, decode: []float64{1, 0}}, buf.Bytes(), nil)
	if err != nil || format != "png" {
		t.Fatalf("inverted JPEG: %s, %v; want a PNG", format, err)
	}
	if got := grayPix(t, format, data)[3][31]; got > 20 {
		t.Errorf("inverted JPEG's white corner is %d, want near 0", got)
	}
}

func TestDecodeImageCCITT(t *testing.T) {
	raw, err := os.ReadFile("testdata/gopher.ccitt_group4")
	if err != nil {
		t.Fatal(err)
	}
	wantPNG, err := os.ReadFile("testdata/gopher.png")
	if err != nil {
		t.Fatal(err)
	}
	want := grayPix(t, "png", wantPNG)
	for _, c := range []struct {
		name     string
		blackIs1 bool
		decode   []float64
		invert   bool
	}{
		{"as stored", false, nil, false},
		{"BlackIs1", true, nil, true},
		{"Decode [1 0]", false, []float64{1, 0}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := imageInfo{width: 153, height: 55, bpc: 1, comps: 1, decode: c.decode,
				filters: []filter{{name: "CCITTFaxDecode", k: -1, columns: 153, blackIs1: c.blackIs1}}}
			format, data, err := decodeImage(info, raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := grayPix(t, format, data)
			differ := 0
			for y := range want {
				for x := range want[y] {
					if (got[y][x] == want[y][x]) == c.invert {
						differ++
					}
				}
			}
			if differ > 0 {
				t.Errorf("%d of %d pixels differ from the gopher", differ, 153*55)
			}
		})
	}
}

func TestDecodeImageRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		info imageInfo
	}{
		{"JBIG2", imageInfo{width: 4, height: 4, bpc: 1, comps: 1, filters: []filter{{name: "JBIG2Decode"}}}},
		{"unknown filter", imageInfo{width: 4, height: 4, bpc: 8, comps: 1, filters: []filter{{name: "Magic"}}}},
		{"mixed 2-D fax", imageInfo{width: 4, height: 4, bpc: 1, comps: 1, filters: []filter{{name: "CCITTFaxDecode", k: 1, columns: 4}}}},
		{"3 bits", imageInfo{width: 4, height: 4, bpc: 3, comps: 1}},
		{"bad zlib", imageInfo{width: 4, height: 4, bpc: 8, comps: 1, filters: []filter{{name: "FlateDecode"}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := decodeImage(c.info, []byte("not what it says"), nil)
			if !errors.Is(err, ErrImage) {
				t.Errorf("err = %v, want ErrImage", err)
			}
		})
	}
}

// scanPDF is a PDF of two pages: the first draws a Flate gray image directly, the second
// draws a form that draws a JBIG2 image and the first image again.
func scanPDF() []byte {
	pix := bytes.Repeat([]byte{0, 255}, 32*32/2)
	return testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 7 0 R >> >> /Contents 5 0 R >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Fm1 8 0 R >> >> /Contents 6 0 R >>"),
		testdocs.Stream("", []byte("q 72 0 0 72 0 0 cm /Im1 Do Q")),
		testdocs.Stream("", []byte("/Fm1 Do")),
		testdocs.Stream("/Type /XObject /Subtype /Image /Width 32 /Height 32 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode", flate(pix)),
		testdocs.Stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /Im2 9 0 R /Im1 7 0 R >> >>", []byte("q 144 0 0 144 0 0 cm /Im2 Do /Im1 Do /Im1 Do Q")),
		testdocs.Stream("/Type /XObject /Subtype /Image /Width 32 /Height 32 /BitsPerComponent 1 /ImageMask true /Filter /JBIG2Decode", []byte("jbig2")),
	)
}

func TestReadImages(t *testing.T) {
	var got []string
	_, err := ReadImages(scanPDF(), Options{}, func(img Image) error {
		got = append(got, fmt.Sprintf("page %d/%d %dx%d %d dpi %s data=%v err=%v", img.Page, img.Pages, img.Width, img.Height, img.DPI, img.Format, len(img.Data) > 0, img.Err != nil))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"page 1/2 32x32 32 dpi png data=true err=false",
		"page 2/2 32x32 16 dpi  data=false err=true",
		"page 2/2 32x32 16 dpi png data=true err=false",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
	stop := errors.New("enough")
	if _, err := ReadImages(scanPDF(), Options{}, func(Image) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("an error from each: %v, want it back", err)
	}
}

func FuzzDecodeImage(f *testing.F) {
	for i, c := range imageCases() {
		f.Add(uint16(c.info.width), uint16(c.info.height), uint8(c.info.bpc), uint8(c.info.comps), uint8(i%4), c.raw)
	}
	names := []string{"", "FlateDecode", "LZWDecode", "CCITTFaxDecode", "RunLengthDecode", "ASCII85Decode", "DCTDecode"}
	f.Fuzz(func(t *testing.T, w, h uint16, bpc, comps, kind uint8, raw []byte) {
		info := imageInfo{width: int(w%2048) + 1, height: int(h%2048) + 1, bpc: int(bpc % 17), comps: int(comps%5) + 1}
		if name := names[int(kind)%len(names)]; name != "" {
			info.filters = []filter{{name: name, predictor: int(kind/8) % 16, colors: info.comps, bpc: 8, columns: info.width, k: int(kind%3) - 1, earlyChange: 1}}
		}
		if kind&0x80 != 0 {
			info.comps, info.base, info.hival, info.palette = 1, 3, 3, raw[:min(len(raw), 12)]
		}
		format, data, err := decodeImage(info, raw, nil)
		if err != nil {
			if !errors.Is(err, ErrImage) {
				t.Fatalf("err %v does not wrap ErrImage", err)
			}
			return
		}
		if format == "png" {
			if _, err := png.DecodeConfig(bytes.NewReader(data)); err != nil {
				t.Fatalf("not a PNG: %v", err)
			}
		}
	})
}

// TestDecodeImageSharedFilters runs images through the stream readers filters.go shares with
// content streams: LZW with and without early change, and ASCII85.
func TestDecodeImageSharedFilters(t *testing.T) {
	pix := bytes.Repeat([]byte("abcd"), 16) // 8×8: rows of a b c d a b c d
	var want [][]uint8
	for range 8 {
		want = append(want, []uint8{'a', 'b', 'c', 'd', 'a', 'b', 'c', 'd'})
	}
	a85 := make([]byte, ascii85.MaxEncodedLen(len(pix)))
	a85 = append(a85[:ascii85.Encode(a85, pix)], "~>"...)
	for _, c := range []struct {
		name string
		f    filter
		raw  []byte
	}{
		{"LZW, early change", filter{name: "LZWDecode", earlyChange: 1}, lzwEncode(t, pix, true)},
		{"LZW, no early change", filter{name: "LZW", earlyChange: 0}, lzwEncode(t, pix, false)},
		{"ASCII85", filter{name: "ASCII85Decode"}, a85},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := imageInfo{width: 8, height: 8, bpc: 8, comps: 1, filters: []filter{c.f}}
			format, data, err := decodeImage(info, c.raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, grayPix(t, format, data)); diff != "" {
				t.Errorf("pixels (-want +got):\n%s", diff)
			}
		})
	}
}
