package pdftext

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/ccitt"
)

// imageInfo is what decoding an image needs from its dictionary.
type imageInfo struct {
	width, height int
	bpc           int // bits per component
	comps         int // components per pixel (1 for an indexed image)
	// tint says 1 is full ink (Separation, DeviceN), as against gray's 0 being black.
	tint bool
	// base, hival and palette are an indexed image's base components, highest index and
	// lookup table.
	base, hival int
	palette     []byte
	decode      []float64
	filters     []filter
}

// filter is one of a stream's filters with the decode parameters it reads.
type filter struct {
	name                   string
	predictor, colors, bpc int
	columns, rows, k       int
	earlyChange            int
	blackIs1, byteAlign    bool
}

// decodeImage turns an image's stored data into a file a recognizer reads: JPEG and JPEG
// 2000 data as they are (unless their colors need turning), everything else as a PNG of
// gray (or two-color) pixels. limit counts the unpacked bytes against the budgets (nil:
// none). Errors of the data itself wrap ErrImage; the budgets' errors come as they are.
func decodeImage(info imageInfo, raw []byte, limit func(io.Reader, string) io.Reader) (format string, out []byte, err error) {
	var r io.Reader = bytes.NewReader(raw)
	for i, f := range info.filters {
		last := i == len(info.filters)-1
		if next, ok, err := decodeStage(r, f); ok {
			if err != nil {
				return "", nil, fmt.Errorf("%w: %v", ErrImage, err)
			}
			r = next
			if f.name == "FlateDecode" || f.name == "Fl" || f.name == "LZWDecode" || f.name == "LZW" {
				r = predicted(r, f) // the filters with predictors
			}
			r = tagged(r)
			continue
		}
		switch f.name {
		case "DCTDecode", "DCT":
			if !last {
				return "", nil, fmt.Errorf("%w: a filter after DCTDecode", ErrImage)
			}
			return jpegImage(info, counted(r, limit))
		case "JPXDecode":
			data, err := readAll(counted(r, limit), -1)
			return "jp2", data, err
		case "CCITTFaxDecode", "CCF":
			if !last {
				return "", nil, fmt.Errorf("%w: a filter after CCITTFaxDecode", ErrImage)
			}
			if f.k > 0 {
				return "", nil, fmt.Errorf("%w: its CCITT fax coding (mixed 2-D, K > 0) is not read", ErrImage)
			}
			sf := ccitt.Group3
			if f.k < 0 {
				sf = ccitt.Group4
			}
			height := info.height
			if f.rows > 0 {
				height = min(height, f.rows)
			}
			if f.columns != info.width {
				return "", nil, fmt.Errorf("%w: its fax coding is %d pixels wide, the image %d", ErrImage, f.columns, info.width)
			}
			// ccitt writes 0 for black unless told that black is 1 (then gray 1, white, is
			// black: a BlackIs1 image is drawn inverted unless its Decode turns it back)
			info.bpc, info.comps, info.tint = 1, 1, false
			r = tagged(ccitt.NewReader(r, ccitt.MSB, sf, info.width, height, &ccitt.Options{Align: f.byteAlign, Invert: f.blackIs1}))
		case "JBIG2Decode":
			return "", nil, fmt.Errorf("%w: it is a JBIG2 image, which EdgeChat cannot decode", ErrImage)
		default:
			return "", nil, fmt.Errorf("%w: its filter %s is unknown", ErrImage, f.name)
		}
		r = tagged(r)
	}
	return samplesImage(info, counted(r, limit))
}

// counted wraps r in the budgets' limit, when there is one.
func counted(r io.Reader, limit func(io.Reader, string) io.Reader) io.Reader {
	if limit == nil {
		return r
	}
	return limit(r, "an image")
}

// imageError marks an error of an image's own data, as against the budgets'.
type imageError struct{ err error }

func (e imageError) Error() string { return e.err.Error() }
func (e imageError) Unwrap() []error {
	return []error{ErrImage, e.err}
}

type taggedImage struct{ r io.Reader }

func tagged(r io.Reader) io.Reader { return taggedImage{r} }

func (t taggedImage) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, ErrImage) {
		err = imageError{err}
	}
	return n, err
}

// readAll reads r to its end, or n bytes when n ≥ 0; a damaged end keeps what came before
// it, as readers show the top of a damaged scan.
func readAll(r io.Reader, n int) ([]byte, error) {
	var data []byte
	var err error
	if n >= 0 {
		data = make([]byte, n)
		var got int
		got, err = io.ReadFull(r, data)
		data = data[:got]
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = nil
		}
	} else {
		data, err = io.ReadAll(r)
	}
	if err != nil && errors.Is(err, ErrImage) && len(data) > 0 {
		err = nil
	}
	if err != nil && !errors.Is(err, ErrImage) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrImage, err)
	}
	return data, nil
}

// rowBytes is the bytes of one row of an image's samples.
func rowBytes(info imageInfo) int { return (info.width*info.comps*info.bpc + 7) / 8 }

// samplesImage makes a PNG of the image's samples, read from r.
func samplesImage(info imageInfo, r io.Reader) (string, []byte, error) {
	switch info.bpc {
	case 1, 2, 4, 8, 16:
	default:
		return "", nil, fmt.Errorf("%w: %d bits per component", ErrImage, info.bpc)
	}
	if info.comps < 1 || info.comps > 32 {
		return "", nil, fmt.Errorf("%w: %d color components", ErrImage, info.comps)
	}
	stride := rowBytes(info)
	if int64(stride)*int64(info.height) > 4*maxImagePixels {
		return "", nil, fmt.Errorf("%w: too many samples", ErrImage)
	}
	data, err := readAll(r, stride*info.height)
	if err != nil {
		return "", nil, err
	}
	if len(data) == 0 {
		return "", nil, fmt.Errorf("%w: it holds no data", ErrImage)
	}
	img := grayImage(info, data, stride)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrImage, err)
	}
	return "png", buf.Bytes(), nil
}

// grayImage turns rows of samples into gray pixels (a two-color image for 1-bit gray); rows
// the data does not reach are white.
func grayImage(info imageInfo, data []byte, stride int) image.Image {
	rect := image.Rect(0, 0, info.width, info.height)
	levels := lookupLevels(info)
	if info.bpc == 1 && info.comps == 1 && info.palette == nil {
		img := image.NewPaletted(rect, color.Palette{color.Gray{levels[0][0]}, color.Gray{levels[0][1]}})
		for y := range info.height {
			if (y+1)*stride > len(data) {
				fill := uint8(0)
				if levels[0][1] == 255 {
					fill = 1
				}
				for i := y * info.width; i < len(img.Pix); i++ {
					img.Pix[i] = fill
				}
				break
			}
			row := data[y*stride:]
			pix := img.Pix[y*img.Stride:]
			for x := range info.width {
				pix[x] = row[x>>3] >> (7 - x&7) & 1
			}
		}
		return img
	}
	img := image.NewGray(rect)
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	comp := make([]uint8, info.comps)
	mask := uint32(1)<<info.bpc - 1
	for y := range info.height {
		if (y+1)*stride > len(data) {
			break
		}
		row := data[y*stride:]
		pix := img.Pix[y*img.Stride:]
		bit := 0
		for x := range info.width {
			for c := range info.comps {
				var s uint32
				switch info.bpc {
				case 8:
					s = uint32(row[bit>>3])
				case 16:
					s = uint32(row[bit>>3])<<8 | uint32(row[bit>>3+1])
				default:
					s = uint32(row[bit>>3]>>(8-info.bpc-bit&7)) & mask
				}
				bit += info.bpc
				if info.bpc == 16 {
					comp[c] = levels[c][s>>8]
				} else {
					comp[c] = levels[c][s]
				}
			}
			pix[x] = grayOf(info, comp)
		}
	}
	return img
}

// lookupLevels maps each component's sample values (16-bit ones by their high byte) to 0–255
// through the Decode array; an indexed image's samples map to palette indexes.
func lookupLevels(info imageInfo) [][]uint8 {
	bpc := min(info.bpc, 8)
	n := 1 << bpc
	out := make([][]uint8, info.comps)
	for c := range out {
		lo, hi := 0.0, 1.0
		if info.palette != nil {
			hi = float64(n - 1) // an index is the sample itself
		}
		if len(info.decode) >= 2*c+2 {
			lo, hi = info.decode[2*c], info.decode[2*c+1]
		}
		out[c] = make([]uint8, n)
		for s := range n {
			v := lo + float64(s)*(hi-lo)/float64(n-1)
			if info.palette == nil {
				v *= 255
			}
			out[c][s] = uint8(min(max(v+0.5, 0), 255))
		}
	}
	return out
}

// grayOf is the gray level of one pixel's components (after lookupLevels).
func grayOf(info imageInfo, c []uint8) uint8 {
	if info.palette != nil {
		i := int(c[0]) * info.base
		if i+info.base > len(info.palette) {
			return 0
		}
		var p imageInfo
		p.comps = info.base
		return grayOf(p, info.palette[i:i+info.base])
	}
	switch {
	case info.comps == 3:
		return uint8((299*uint32(c[0]) + 587*uint32(c[1]) + 114*uint32(c[2]) + 500) / 1000)
	case info.comps == 4:
		ink := (30*uint32(c[0]) + 59*uint32(c[1]) + 11*uint32(c[2]) + 50) / 100
		return uint8(255 - min(ink+uint32(c[3]), 255))
	case info.tint: // Separation, DeviceN: the darkest ink
		m := uint8(0)
		for _, v := range c {
			m = max(m, v)
		}
		return 255 - m
	}
	return c[0]
}

// jpegImage hands JPEG data on as it is, unless its colors are CMYK or its Decode array
// inverts them: those are decoded here and written as a gray PNG.
func jpegImage(info imageInfo, r io.Reader) (string, []byte, error) {
	data, err := readAll(r, -1)
	if err != nil {
		return "", nil, err
	}
	inverted := len(info.decode) >= 2 && info.decode[0] > info.decode[1]
	if info.comps != 4 && !inverted {
		return "jpeg", data, nil
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrImage, err)
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxImagePixels {
		return "", nil, fmt.Errorf("%w: it is %d×%d pixels", ErrImage, cfg.Width, cfg.Height)
	}
	src, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrImage, err)
	}
	b := src.Bounds()
	img := image.NewGray(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			var g uint8
			if cm, ok := src.(*image.CMYK); ok {
				c := cm.CMYKAt(x, y)
				// Adobe's CMYK JPEGs store inverted values, which Go's decoder turns back
				g = grayOf(imageInfo{comps: 4}, []uint8{c.C, c.M, c.Y, c.K})
			} else {
				g = color.GrayModel.Convert(src.At(x, y)).(color.Gray).Y
			}
			if inverted {
				g = 255 - g
			}
			img.Pix[(y-b.Min.Y)*img.Stride+x-b.Min.X] = g
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrImage, err)
	}
	return "png", buf.Bytes(), nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// predicted undoes a Flate or LZW filter's predictor: PNG's per-row filters (10–15) or
// TIFF's horizontal differencing (2).
func predicted(r io.Reader, f filter) io.Reader {
	if f.predictor < 2 {
		return r
	}
	if f.colors < 1 || f.colors > 32 || f.columns < 1 || f.columns > maxImageSide*32 {
		return errReader{fmt.Errorf("%w: its predictor's parameters", ErrImage)}
	}
	switch f.bpc {
	case 1, 2, 4, 8, 16:
	default:
		return errReader{fmt.Errorf("%w: its predictor's parameters", ErrImage)}
	}
	bpp := max((f.colors*f.bpc+7)/8, 1)
	stride := (f.columns*f.colors*f.bpc + 7) / 8
	if f.predictor == 2 {
		if f.bpc != 8 {
			return errReader{fmt.Errorf("%w: TIFF predictor with %d bits", ErrImage, f.bpc)}
		}
		return &rowReader{r: r, cur: make([]byte, stride), undo: func(cur, _ []byte) error {
			for i := bpp; i < len(cur); i++ {
				cur[i] += cur[i-bpp]
			}
			return nil
		}}
	}
	return &rowReader{r: r, tag: true, cur: make([]byte, stride), prev: make([]byte, stride), undo: func(cur, prev []byte) error {
		return unPNG(cur[0], cur[1:], prev, bpp)
	}}
}

// unPNG undoes one row of PNG filter kind over the previous row.
func unPNG(kind byte, cur, prev []byte, bpp int) error {
	switch kind {
	case 0:
	case 1:
		for i := bpp; i < len(cur); i++ {
			cur[i] += cur[i-bpp]
		}
	case 2:
		for i := range cur {
			cur[i] += prev[i]
		}
	case 3:
		for i := range cur {
			var left byte
			if i >= bpp {
				left = cur[i-bpp]
			}
			cur[i] += byte((int(left) + int(prev[i])) / 2)
		}
	case 4:
		for i := range cur {
			var a, c byte
			if i >= bpp {
				a, c = cur[i-bpp], prev[i-bpp]
			}
			cur[i] += paeth(a, prev[i], c)
		}
	default:
		return fmt.Errorf("%w: PNG predictor %d", ErrImage, kind)
	}
	return nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := iabs(p-int(a)), iabs(p-int(b)), iabs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func iabs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// rowReader reads rows of a predictor and undoes it row by row; with tag each row starts
// with its PNG filter kind.
type rowReader struct {
	r         io.Reader
	tag       bool
	cur, prev []byte
	pend      []byte
	undo      func(cur, prev []byte) error
	err       error
}

func (r *rowReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.pend) > 0 {
			m := copy(p[n:], r.pend)
			r.pend = r.pend[m:]
			n += m
			continue
		}
		if r.err != nil {
			break
		}
		buf := r.cur
		if r.tag {
			buf = make([]byte, 1+len(r.cur))
		}
		if _, err := io.ReadFull(r.r, buf); err != nil {
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			r.err = err
			break
		}
		if r.tag {
			if err := r.undo(buf, r.prev); err != nil {
				r.err = err
				break
			}
			copy(r.prev, buf[1:])
			r.pend = r.prev
			continue
		}
		if err := r.undo(buf, nil); err != nil {
			r.err = err
			break
		}
		r.pend = buf
	}
	if n > 0 {
		return n, nil
	}
	return 0, r.err
}
