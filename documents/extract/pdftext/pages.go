package pdftext

import (
	"fmt"

	"github.com/ledongthuc/pdf"
)

// pageRef is a page and the resources it draws with and its media box (its own or
// inherited).
type pageRef struct {
	v, res, box pdf.Value
}

// pageList walks the page tree from the root, within bounds (depth, pages listed), passing
// inherited resources down instead of following Parent links back up.
func (r *reader) pageList() ([]pageRef, error) {
	var out []pageRef
	visits := 0
	errLoop := fmt.Errorf("%w: its page tree loops or is too deep", ErrDamaged)
	errPages := fmt.Errorf("%w: it has more than %d pages", ErrTooBig, r.opt.MaxPages)
	var path []string // the Pages nodes above, which a kid may not be
	var walk func(v, res, box pdf.Value, depth int) error
	walk = func(v, res, box pdf.Value, depth int) error {
		if visits++; visits%1024 == 0 {
			if err := r.alive(); err != nil {
				return err
			}
		}
		if depth > r.opt.MaxDepth {
			return errLoop
		}
		if own := v.Key("Resources"); own.Kind() == pdf.Dict {
			res = own
		}
		if own := v.Key("MediaBox"); own.Kind() == pdf.Array {
			box = own
		}
		kids := v.Key("Kids")
		if v.Key("Type").Name() == "Page" || kids.Kind() != pdf.Array {
			if len(out) >= r.opt.MaxPages {
				return errPages
			}
			out = append(out, pageRef{v: v, res: res, box: box})
			return nil
		}
		key := v.String()
		for _, p := range path {
			if p == key {
				return errLoop
			}
		}
		path = append(path, key)
		defer func() { path = path[:len(path)-1] }()
		for i := range kids.Len() {
			if len(out) >= r.opt.MaxPages {
				return errPages
			}
			if err := walk(kids.Index(i), res, box, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	root := r.pdf.Trailer().Key("Root").Key("Pages")
	if root.IsNull() {
		return nil, fmt.Errorf("%w: it has no page tree", ErrDamaged)
	}
	if err := walk(root, pdf.Value{}, pdf.Value{}, 0); err != nil {
		return nil, err
	}
	return out, nil
}
