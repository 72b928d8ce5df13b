package pdftext

import (
	"errors"
	"fmt"
	"math"

	"github.com/ledongthuc/pdf"
)

// Image is one picture a page draws (through Do, in forms too), made ready for a text
// recognizer: Data is a PNG, JPEG or JPEG 2000 file (Format "png", "jpeg", "jp2"), or Err
// says why it cannot be read (a JBIG2 image, damaged data).
type Image struct {
	// Page is the page that draws it (1-based) of Pages.
	Page, Pages int
	// Width and Height are in pixels.
	Width, Height int
	// DPI is its resolution as drawn on the page, 0 when it cannot be told.
	DPI    int
	Format string
	Data   []byte
	Err    error
}

// ErrImage is why an image cannot be handed on (Image.Err wraps it).
var ErrImage = errors.New("the image cannot be read")

// Bounds of the images handed on.
const (
	minImageSide   = 16         // smaller ones are rules, bullets and logos: no text to recognize
	maxImageSide   = 1 << 16    // pixels on one side
	maxImagePixels = 80_000_000 // a letter page scanned at 1,000 dpi; ~80 MB of gray
	maxImagesPage  = 64         // distinct images handed on per page
)

// imagePage is the page being read, for ReadImages: its number, the number of pages, and
// the images it drew already (one drawn twice is handed on once).
type imagePage struct {
	page, pages int
	seen        []string
}

// ReadImages is Read that also hands each image the pages draw to each, in the order drawn,
// one page after the other. An error from each stops the reading and is returned. Images
// smaller than 16 pixels on a side, and the ones a page draws again, are not handed on.
func ReadImages(data []byte, opt Options, each func(Image) error) ([]Page, error) {
	opt.images = each
	return Read(data, opt)
}

// drawImage hands an image XObject on to the reading's images.
func (p *page) drawImage(x pdf.Value) error {
	if !p.wantImage(x.String()) {
		return nil
	}
	info, err := p.doc.imageInfo(x)
	return p.handImage(info, err, func() ([]byte, error) { return p.doc.imageData(x) })
}

// wantImage reports whether the image known as key, drawn now, is to be handed on: its page
// is one asked for, it was not handed on before, and the page has handed on fewer than
// maxImagesPage.
func (p *page) wantImage(key string) bool {
	st := &p.doc.imgs
	if want := p.doc.opt.ImagePage; want != nil && !want(st.page) {
		return false
	}
	for _, k := range st.seen {
		if k == key {
			return false
		}
	}
	if len(st.seen) >= maxImagesPage {
		return false
	}
	st.seen = append(st.seen, key)
	return true
}

// handImage decodes an image drawn now (info as its dictionary gave it, or why it could not,
// infoErr; raw its data as stored) and hands it on to the reading's images.
func (p *page) handImage(info imageInfo, err error, raw func() ([]byte, error)) error {
	if err == nil && (info.width < minImageSide || info.height < minImageSide) {
		return nil
	}
	st := &p.doc.imgs
	img := Image{Page: st.page, Pages: st.pages, Width: info.width, Height: info.height}
	// The image fills the unit square of the CTM: its sides' lengths in points give the dpi.
	if h := math.Hypot(p.gs.ctm[2], p.gs.ctm[3]); h > 1 && info.height > 0 {
		img.DPI = int(math.Round(float64(info.height) / (h / 72)))
	}
	if err == nil {
		var data []byte
		if data, err = raw(); err == nil {
			img.Format, img.Data, err = decodeImage(info, data, p.doc.opt.Limit)
		}
	}
	if err != nil {
		if !errors.Is(err, ErrImage) {
			return err // a budget's: it stops the reading
		}
		img.Err = err
	}
	return p.doc.opt.images(img)
}

// imageInfo reads what decoding an image needs from its dictionary.
func (r *reader) imageInfo(x pdf.Value) (info imageInfo, err error) {
	info.width, info.height = int(x.Key("Width").Int64()), int(x.Key("Height").Int64())
	if info.width <= 0 || info.height <= 0 || info.width > maxImageSide || info.height > maxImageSide ||
		int64(info.width)*int64(info.height) > maxImagePixels {
		return info, fmt.Errorf("%w: it is %d×%d pixels", ErrImage, info.width, info.height)
	}
	info.bpc = int(x.Key("BitsPerComponent").Int64())
	if x.Key("ImageMask").Bool() {
		info.bpc, info.comps = 1, 1
	} else if err := r.colorSpace(x.Key("ColorSpace"), &info, 0); err != nil {
		return info, err
	}
	for i := range x.Key("Decode").Len() {
		info.decode = append(info.decode, x.Key("Decode").Index(i).Float64())
	}
	info.filters = streamFilters(x)
	return info, nil
}

// filterOf is a filter and the decode parameters it uses.
func filterOf(name string, p pdf.Value) filter {
	return filterWith(name, func(key string) (float64, bool) {
		v := p.Key(key)
		switch v.Kind() {
		case pdf.Integer, pdf.Real:
			return v.Float64(), true
		case pdf.Bool:
			if v.Bool() {
				return 1, true
			}
			return 0, true
		}
		return 0, false
	})
}

// filterWith is a filter and the decode parameters it uses, as param gives them (numbers;
// booleans as 1 and 0; ok false for a key that is absent or of another type): a stream's
// dictionary or an inline image's.
func filterWith(name string, param func(key string) (float64, bool)) filter {
	num := func(key string, def int) int {
		if v, ok := param(key); ok {
			return int(v)
		}
		return def
	}
	f := filter{name: name, predictor: num("Predictor", 0), colors: num("Colors", 1), bpc: num("BitsPerComponent", 8),
		columns: num("Columns", 1), earlyChange: num("EarlyChange", 1), k: num("K", 0), rows: num("Rows", 0),
		blackIs1: num("BlackIs1", 0) == 1, byteAlign: num("EncodedByteAlign", 0) == 1}
	if name == "CCITTFaxDecode" || name == "CCF" {
		f.columns = num("Columns", 1728)
	}
	return f
}

// colorSpace fills info's components (and palette) from an image's color space.
func (r *reader) colorSpace(cs pdf.Value, info *imageInfo, depth int) error {
	name := cs.Name()
	if cs.Kind() == pdf.Array && cs.Len() > 0 {
		name = cs.Index(0).Name()
	}
	switch name {
	case "DeviceGray", "G", "CalGray", "Separation", "DeviceN":
		info.comps = 1 // a separation's tint: 1 is full ink, as gray's 0 is (decode inverts it)
		if name == "Separation" {
			info.tint = true
		}
		if name == "DeviceN" {
			info.comps = max(cs.Index(1).Len(), 1)
			info.tint = true
		}
		return nil
	case "DeviceRGB", "RGB", "CalRGB", "Lab":
		info.comps = 3
		return nil
	case "DeviceCMYK", "CMYK":
		info.comps = 4
		return nil
	case "ICCBased":
		switch n := cs.Index(1).Key("N").Int64(); n {
		case 1, 3, 4:
			info.comps = int(n)
			return nil
		}
	case "Indexed", "I":
		if depth > 0 {
			break
		}
		var base imageInfo
		if err := r.colorSpace(cs.Index(1), &base, depth+1); err != nil {
			return err
		}
		info.comps, info.base, info.hival = 1, base.comps, int(cs.Index(2).Int64())
		lookup := cs.Index(3)
		switch lookup.Kind() {
		case pdf.String:
			info.palette = []byte(lookup.RawString())
		case pdf.Stream:
			data, err := r.stream(lookup, "an image's palette")
			if err != nil && fatal(err) {
				return err
			} else if err != nil {
				return fmt.Errorf("%w: its palette: %v", ErrImage, err)
			}
			info.palette = data
		}
		return nil
	case "":
		if info.bpc == 0 { // JPX images may leave it to the file
			return nil
		}
	}
	return fmt.Errorf("%w: its colors are %s", ErrImage, cs)
}

// imageData is a stream's data as stored, before its filters.
func (r *reader) imageData(x pdf.Value) ([]byte, error) {
	if r.pdf.Trailer().Key("Encrypt").Kind() == pdf.Dict {
		return nil, fmt.Errorf("%w: the images of an encrypted PDF are not read", ErrImage)
	}
	data, err := r.rawStream(x)
	if err != nil {
		return nil, fmt.Errorf("%w: its data cannot be found", ErrImage)
	}
	return data, nil
}
