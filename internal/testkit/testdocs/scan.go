package testdocs

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// ScanPage is one page of ScanPDF: lines of text drawn as pixels, stored as a Flate gray
// image or, with JPEG, as a JPEG; and Text, lines of text set in Helvetica (over the image,
// when there is one). A page of Text alone is a page of a PDF made from a text document.
type ScanPage struct {
	Lines []string
	JPEG  bool
	// Inline stores the scan inline in the page's content (BI … EI), as some scanners do.
	Inline bool
	Text   []string
}

// Scan page size: US Letter at 200 dpi, text at 30 px (about 11 pt).
const (
	scanW, scanH = 1700, 2200
	scanPx       = 30
)

// ScanImage draws lines of black text (Go Regular, 30 px) on a white letter page at 200 dpi.
func ScanImage(lines []string) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, scanW, scanH))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		panic(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: scanPx, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		panic(err)
	}
	defer face.Close()
	d := font.Drawer{Dst: img, Src: image.Black, Face: face}
	for i, line := range lines {
		d.Dot = fixed.P(150, 200+i*scanPx*2)
		d.DrawString(line)
	}
	return img
}

// ScanPDF writes a PDF whose pages are images of text, as a scanner makes them: no text
// layer, each page one full-page image; pages of Text make it a PDF that mixes text pages
// and scanned ones.
func ScanPDF(pages ...ScanPage) []byte {
	objs := [][]byte{
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		nil, // the page tree, once the pages are known
	}
	var kids bytes.Buffer
	for _, p := range pages {
		if p.Lines == nil {
			n := len(objs) + 1
			fmt.Fprintf(&kids, "%d 0 R ", n)
			objs = append(objs,
				[]byte(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents %d 0 R >>", n+1)),
				Stream("", textContent(p.Text)))
			continue
		}
		img := ScanImage(p.Lines)
		var data bytes.Buffer
		dict := fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /BitsPerComponent 8 /ColorSpace /DeviceGray", scanW, scanH)
		if p.JPEG {
			if err := jpeg.Encode(&data, img, &jpeg.Options{Quality: 85}); err != nil {
				panic(err)
			}
			dict += " /Filter /DCTDecode"
		} else {
			w := zlib.NewWriter(&data)
			w.Write(img.Pix)
			w.Close()
			dict += " /Filter /FlateDecode"
		}
		n := len(objs) + 1 // the page; its content and image follow
		fmt.Fprintf(&kids, "%d 0 R ", n)
		if p.Inline {
			var content bytes.Buffer
			fmt.Fprintf(&content, "q 612 0 0 792 0 0 cm BI /W %d /H %d /BPC 8 /CS /G /F %s ID ", scanW, scanH, map[bool]string{true: "/DCT", false: "/Fl"}[p.JPEG])
			content.Write(data.Bytes())
			content.WriteString("\nEI Q\n")
			content.Write(textContent(p.Text))
			objs = append(objs,
				[]byte(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents %d 0 R >>", n+1)),
				Stream("", content.Bytes()))
			continue
		}
		objs = append(objs,
			[]byte(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 %d 0 R >> /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents %d 0 R >>", n+2, n+1)),
			Stream("", append([]byte("q 612 0 0 792 0 0 cm /Im0 Do Q\n"), textContent(p.Text)...)),
			Stream(dict, data.Bytes()),
		)
	}
	objs[1] = []byte(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids.String(), len(pages)))
	return RawPDF(1, objs...)
}

// textContent sets lines in Helvetica, 11 pt, from the top left of a letter page down.
func textContent(lines []string) []byte {
	if len(lines) == 0 {
		return nil
	}
	var b bytes.Buffer
	b.WriteString("BT /F1 11 Tf 14 TL 72 720 Td\n")
	esc := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
	for _, l := range lines {
		fmt.Fprintf(&b, "(%s) Tj T*\n", esc.Replace(l))
	}
	b.WriteString("ET")
	return b.Bytes()
}
