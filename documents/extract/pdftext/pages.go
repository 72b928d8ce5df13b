package pdftext

import (
	"fmt"

	"github.com/ledongthuc/pdf"
)

// pageRef is a page, the resources it draws with and its boxes (its own or inherited).
type pageRef struct {
	v, res pdf.Value
	// media and crop are its MediaBox and CropBox (cover.go)
	media, crop pdf.Value
}

// pageList walks the page tree from the root, within bounds (depth, pages listed), passing
// inherited resources down instead of following Parent links back up. A kid that loops back
// to a node above it is passed over (r.lost), not the document.
func (r *reader) pageList() ([]pageRef, error) {
	var out []pageRef
	visits := 0
	errDeep := fmt.Errorf("%w: its page tree is too deep", ErrDamaged)
	errPages := fmt.Errorf("%w: it has more than %d pages", ErrTooBig, r.opt.MaxPages)
	var path []string // the Pages nodes above, which a kid may not be
	var walk func(v pdf.Value, up pageRef, depth int) error
	walk = func(v pdf.Value, up pageRef, depth int) error {
		if visits++; visits%1024 == 0 {
			if err := r.alive(); err != nil {
				return err
			}
		}
		if depth > r.opt.MaxDepth {
			return errDeep
		}
		if own := r.readableKey(v, "Resources"); own.Kind() == pdf.Dict {
			up.res = own
		}
		if own := r.readableKey(v, "MediaBox"); own.Kind() == pdf.Array {
			up.media = own
		}
		if own := r.readableKey(v, "CropBox"); own.Kind() == pdf.Array {
			up.crop = own
		}
		kids := r.readableKey(v, "Kids")
		if r.readableKey(v, "Type").Name() == "Page" || kids.Kind() != pdf.Array {
			if len(out) >= r.opt.MaxPages {
				return errPages
			}
			up.v = v
			out = append(out, up)
			return nil
		}
		key := v.String()
		for _, p := range path {
			if p == key {
				// a Pages node listed below itself (pdf-rs's crash-121-2.pdf: "3 0 obj << /Type
				// /Pages /Kids [3 0 R 14 0 R …]"): that kid is left out and its siblings read,
				// as pdftotext reads them ("Loop in Pages tree"); the repairs are tried first
				r.lost = "its page tree lists a node below itself"
				return nil
			}
		}
		path = append(path, key)
		defer func() { path = path[:len(path)-1] }()
		for i := range kids.Len() {
			if len(out) >= r.opt.MaxPages {
				return errPages
			}
			kid, why := readable(kids, i)
			if why != nil {
				r.lost = fmt.Sprint(why)
				// an object the object reader cannot read (bytes damaged inside it): a page
				// without text, the others read, as pdftotext reads them
				out = append(out, up)
				continue
			}
			if err := walk(kid, up, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	root := r.pdf.Trailer().Key("Root").Key("Pages")
	if root.IsNull() {
		return nil, fmt.Errorf("%w: it has no page tree", ErrDamaged)
	}
	if err := walk(root, pageRef{}, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// readable is the i-th element of the array a, and why the object reader panicked reading
// it (nil when it did not). A page tree's object damaged inside (PdfPig's
// FailedToParseContentForPage32.pdf: bytes changed in a page's resources, "103 0 obj4</Font<<",
// "/M<diaBox") loses its page (readable) or what that object holds (readableKey), not the
// whole document; Read tries its repairs first (r.lost).
func readable(a pdf.Value, i int) (v pdf.Value, why any) {
	defer func() {
		if p := recover(); p != nil {
			v, why = pdf.Value{}, p
		}
	}()
	v = a.Index(i)
	return v, nil
}

// readableKey is v's entry key, null when the object reader panics reading it (r.lost).
func (r *reader) readableKey(v pdf.Value, key string) (e pdf.Value) {
	defer func() {
		if p := recover(); p != nil {
			e, r.lost = pdf.Value{}, fmt.Sprint(p)
		}
	}()
	return v.Key(key)
}
