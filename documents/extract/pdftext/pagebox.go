package pdftext

import (
	"math"

	"github.com/ledongthuc/pdf"
)

// Text outside the page. A page shows what its media box frames; pdftotext drops each
// character whose origin and advance lie wholly outside it, and so does the reader here:
// one content stream drawn by several pages each framing a part of it (Prawn and iText's
// vouchers, pdf.js's issue1350.pdf), or a page cut out of a larger one (issue7454.pdf, a
// 384 by 111 point excerpt of a whole page of text), read as the parts the pages show, not
// each as the whole.

// pageBox is a page's media box in default user space, corners ordered; ok is false when
// the page gives none that frames anything, and nothing is then dropped.
type pageBox struct {
	x0, y0, x1, y1 float64
	ok             bool
}

// mediaBox reads a page's (or an inherited) /MediaBox.
func mediaBox(v pdf.Value) pageBox {
	r, ok := annotRect(v)
	if !ok {
		return pageBox{}
	}
	for i := range v.Len() {
		if k := v.Index(i).Kind(); k != pdf.Integer && k != pdf.Real {
			return pageBox{}
		}
	}
	if !(r[2]-r[0] > 0 && r[3]-r[1] > 0) || math.IsInf(r[2]-r[0], 0) || math.IsInf(r[3]-r[1], 0) {
		return pageBox{}
	}
	return pageBox{r[0], r[1], r[2], r[3], true}
}

// outside says whether a glyph drawn at trm's origin, advancing w in text space (as add
// takes it), lies wholly outside the page's box.
func (p *page) outside(trm matrix, w float64) bool {
	b := p.box
	if !b.ok {
		return false
	}
	x, y := trm[4], trm[5]
	var ax, ay float64 // the advance in user space
	if k := p.gs.size * p.gs.scale; k != 0 {
		ax, ay = trm[0]*w/k, trm[1]*w/k
	}
	return max(x, x+ax) < b.x0 || min(x, x+ax) > b.x1 || max(y, y+ay) < b.y0 || min(y, y+ay) > b.y1
}
