package pdftext

import (
	"math"

	"github.com/ledongthuc/pdf"
)

// minCoverDPI is the resolution below which an image holds no text to recognize (a
// background, a tint stretched over the page); scans are 150–600 dpi, faxes 100–200.
const minCoverDPI = 50

// letter is US Letter in points, for a page that names no box.
var letter = [4]float64{0, 0, 612, 792}

// visibleBox is the area of page p a reader sees: its CropBox within its MediaBox (both may be
// inherited), else its MediaBox, else US Letter.
func visibleBox(p pageRef) [4]float64 {
	media, ok := annotRect(p.media)
	if !ok || area(media) <= 0 {
		media = letter
	}
	if crop, ok := annotRect(p.crop); ok {
		if c := intersect(crop, media); area(c) > 0 {
			return c
		}
	}
	return media
}

// coverImage adds the share of the page the image XObject x covers, as the CTM draws it, to
// p.cover: images smaller than 16 pixels a side or under minCoverDPI as drawn add nothing.
func (p *page) coverImage(x pdf.Value) {
	p.coverPixels(float64(x.Key("Width").Int64()), float64(x.Key("Height").Int64()))
}

// coverPixels is coverImage for an image of w×h pixels.
func (p *page) coverPixels(w, h float64) {
	if w < minImageSide || h < minImageSide {
		return
	}
	m := p.gs.ctm
	// The image fills the unit square: its sides are the CTM's first two rows.
	wPt, hPt := math.Hypot(m[0], m[1]), math.Hypot(m[2], m[3])
	if wPt <= 0 || hPt <= 0 || w*72/wPt < minCoverDPI || h*72/hPt < minCoverDPI {
		return
	}
	var drawn [4]float64
	for i, c := range [4][2]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
		x := c[0]*m[0] + c[1]*m[2] + m[4]
		y := c[0]*m[1] + c[1]*m[3] + m[5]
		if i == 0 {
			drawn = [4]float64{x, y, x, y}
			continue
		}
		drawn = [4]float64{min(drawn[0], x), min(drawn[1], y), max(drawn[2], x), max(drawn[3], y)}
	}
	if page := area(p.visible); page > 0 {
		p.cover += area(intersect(drawn, p.visible)) / page
	}
}

func intersect(a, b [4]float64) [4]float64 {
	return [4]float64{max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])}
}

// area is a box's area, 0 when it is empty (or not a number).
func area(r [4]float64) float64 {
	w, h := r[2]-r[0], r[3]-r[1]
	if !(w > 0 && h > 0) {
		return 0
	}
	return w * h
}
