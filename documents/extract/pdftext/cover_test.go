package pdftext

import (
	"fmt"
	"math"
	"testing"

	"edgechat/internal/testkit/testdocs"
)

// coverPDF is a one-page PDF whose page (with page's extra keys) runs content, with Im1 an
// image of w×h pixels and Fm1 a form that draws it under a matrix that halves it.
func coverPDF(pagesExtra, pageExtra, content string, w, h int) []byte {
	return testdocs.RawPDF(1,
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 "+pagesExtra+" >>"),
		[]byte("<< /Type /Page /Parent 2 0 R "+pageExtra+" /Resources << /XObject << /Im1 5 0 R /Fm1 6 0 R >> >> /Contents 4 0 R >>"),
		testdocs.Stream("", []byte(content)),
		testdocs.Stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode", w, h), []byte("pixels")),
		testdocs.Stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Matrix [0.5 0 0 0.5 0 0] /Resources << /XObject << /Im1 5 0 R >> >>", []byte("q 612 0 0 792 0 0 cm /Im1 Do Q")),
	)
}

func TestImageCover(t *testing.T) {
	const letter = "/MediaBox [0 0 612 792]"
	for _, c := range []struct {
		name, pages, page, content string
		w, h                       int
		want                       float64
	}{
		{"a scanned page, 200 dpi", "", letter, "q 612 0 0 792 0 0 cm /Im1 Do Q", 1700, 2200, 1},
		{"the top half", "", letter, "q 612 0 0 396 0 396 cm /Im1 Do Q", 1700, 1100, 0.5},
		{"two strips", "", letter, "q 612 0 0 396 0 0 cm /Im1 Do Q q 612 0 0 396 0 396 cm /Im1 Do Q", 1700, 1100, 1},
		{"turned a quarter", "", letter, "q 0 792 -612 0 612 0 cm /Im1 Do Q", 2200, 1700, 1},
		{"half off the page", "", letter, "q 612 0 0 792 306 0 cm /Im1 Do Q", 1700, 2200, 0.5},
		{"through a form that halves it", "", letter, "/Fm1 Do", 1700, 2200, 0.25},
		{"a tint stretched over the page", "", letter, "q 612 0 0 792 0 0 cm /Im1 Do Q", 32, 32, 0},
		{"a rule", "", letter, "q 612 0 0 4 0 400 cm /Im1 Do Q", 1700, 8, 0},
		{"no image", "", letter, "BT ET", 1700, 2200, 0},
		{"the box inherited", "/MediaBox [0 0 306 396]", "", "q 306 0 0 396 0 0 cm /Im1 Do Q", 1700, 2200, 1},
		{"no box: US Letter", "", "", "q 612 0 0 396 0 0 cm /Im1 Do Q", 1700, 1100, 0.5},
		{"cropped to the image", "", letter + " /CropBox [0 0 612 396]", "q 612 0 0 396 0 0 cm /Im1 Do Q", 1700, 1100, 1},
		{"drawn twice over", "", letter, "q 612 0 0 792 0 0 cm /Im1 Do /Im1 Do Q", 1700, 2200, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			pages, err := Read(coverPDF(c.pages, c.page, c.content, c.w, c.h), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := pages[0].ImageCover; math.Abs(got-c.want) > 0.01 {
				t.Errorf("ImageCover = %.3f, want %.3f", got, c.want)
			}
		})
	}
}

func TestReadImagesOfPages(t *testing.T) {
	var got []int
	_, err := ReadImages(scanPDF(), Options{ImagePage: func(page int) bool { return page == 2 }}, func(img Image) error {
		got = append(got, img.Page)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != 2 || got[1] != 2 {
		t.Errorf("images of pages %v, want page 2's two", got)
	}
}
