package pdftext

import (
	"fmt"
	"strconv"

	"github.com/ledongthuc/pdf"
)

// Inline images (BI … ID data EI): a content stream's own pictures. Some scanners and
// converters write a page's scan so, whole or in strips; they count toward the page's image
// cover (a scanned page) and are handed on to the text recognizer as image XObjects are.

// inlineKeys are the full names of an inline image's abbreviated keys.
var inlineKeys = map[string]string{
	"W": "Width", "H": "Height", "BPC": "BitsPerComponent", "CS": "ColorSpace", "D": "Decode",
	"DP": "DecodeParms", "F": "Filter", "IM": "ImageMask", "I": "Interpolate", "L": "Length",
}

// inlineImage reads the inline image whose dictionary is args (its keys and values, as the
// operands of ID) and whose data follows in l: it moves l past the data, adds the image to
// the page's cover and hands it on to the reading's images.
func (p *page) inlineImage(args []operand, rs *resources, l *lexer) error {
	dict := map[string]operand{}
	for i := 0; i+1 < len(args); i += 2 {
		if args[i].kind != kName {
			continue
		}
		key := args[i].str
		if full, ok := inlineKeys[key]; ok {
			key = full
		}
		dict[key] = args[i+1]
	}
	data := l.inlineImage(int(dict["Length"].num))
	w, h := dict["Width"].num, dict["Height"].num
	p.coverPixels(w, h)
	if p.doc.opt.images == nil || !p.wantImage("inline "+strconv.Itoa(l.pos)) {
		return nil
	}
	info, err := p.doc.inlineInfo(dict, rs.v)
	return p.handImage(info, err, func() ([]byte, error) { return data, nil })
}

// inlineInfo reads what decoding an inline image needs from its dictionary; res is the
// resources a color space's name is looked up in.
func (r *reader) inlineInfo(dict map[string]operand, res pdf.Value) (info imageInfo, err error) {
	info.width, info.height = int(dict["Width"].num), int(dict["Height"].num)
	if info.width <= 0 || info.height <= 0 || info.width > maxImageSide || info.height > maxImageSide ||
		int64(info.width)*int64(info.height) > maxImagePixels {
		return info, fmt.Errorf("%w: it is %d×%d pixels", ErrImage, info.width, info.height)
	}
	info.bpc = int(dict["BitsPerComponent"].num)
	if m := dict["ImageMask"]; m.kind == kBool && m.num == 1 {
		info.bpc, info.comps = 1, 1
	} else if err := r.inlineColorSpace(dict["ColorSpace"], res, &info); err != nil {
		return info, err
	}
	for _, d := range dict["Decode"].arr {
		info.decode = append(info.decode, d.num)
	}
	names, params := dict["Filter"], dict["DecodeParms"]
	if names.kind == kName {
		names, params = operand{kind: kArray, arr: []operand{names}}, operand{kind: kArray, arr: []operand{params}}
	}
	for i, name := range names.arr {
		var param operand
		if i < len(params.arr) {
			param = params.arr[i]
		}
		info.filters = append(info.filters, filterWith(name.str, func(key string) (float64, bool) {
			v, ok := dictValue(param, key)
			return v.num, ok && (v.kind == kNum || v.kind == kBool)
		}))
	}
	return info, nil
}

// inlineColorSpace fills info's components (and palette) from an inline image's color
// space: a device space by its name or abbreviation, an indexed one as an array, or any
// other by its name in the resources.
func (r *reader) inlineColorSpace(cs operand, res pdf.Value, info *imageInfo) error {
	device := func(name string) int {
		switch name {
		case "G", "DeviceGray":
			return 1
		case "RGB", "DeviceRGB":
			return 3
		case "CMYK", "DeviceCMYK":
			return 4
		}
		return 0
	}
	switch cs.kind {
	case kName:
		if n := device(cs.str); n > 0 {
			info.comps = n
			return nil
		}
		named := res.Key("ColorSpace").Key(cs.str)
		if named.Kind() == pdf.Null {
			return fmt.Errorf("%w: its colors are %s, which the page does not define", ErrImage, cs.str)
		}
		return r.colorSpace(named, info, 0)
	case kArray:
		if len(cs.arr) == 4 && (cs.arr[0].str == "I" || cs.arr[0].str == "Indexed") {
			var base imageInfo
			if n := device(cs.arr[1].str); n > 0 {
				base.comps = n
			} else if named := res.Key("ColorSpace").Key(cs.arr[1].str); named.Kind() != pdf.Null {
				if err := r.colorSpace(named, &base, 1); err != nil {
					return err
				}
			} else {
				return fmt.Errorf("%w: its palette's colors are %s", ErrImage, cs.arr[1].str)
			}
			info.comps, info.base, info.hival = 1, base.comps, int(cs.arr[2].num)
			info.palette = []byte(cs.arr[3].str)
			return nil
		}
	case kNull:
		return fmt.Errorf("%w: it names no colors", ErrImage)
	}
	return fmt.Errorf("%w: its colors cannot be read", ErrImage)
}

// dictValue is the value of key in an inline dictionary operand (its keys and values in
// turn), ok false when it has none.
func dictValue(d operand, key string) (operand, bool) {
	if d.kind != kDict {
		return operand{}, false
	}
	for i := 0; i+1 < len(d.arr); i += 2 {
		if d.arr[i].kind == kName && d.arr[i].str == key {
			return d.arr[i+1], true
		}
	}
	return operand{}, false
}
