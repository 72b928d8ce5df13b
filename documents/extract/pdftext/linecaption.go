package pdftext

import (
	"math"

	"github.com/ledongthuc/pdf"
)

// captionSize is the size poppler draws a line annotation's caption at (AnnotLine's
// generateLineAppearance), whatever the annotation's default appearance says.
const captionSize = 9

// lineCaption draws the caption of a line annotation without an appearance (a /Cap true
// line: a measurement's "12 mm", a note along an arrow) as poppler makes its appearance:
// the /Contents lines at 9 points along the line (from /L's first point to its second),
// centred on it, moved off it by the leader line's length (/LL) and the caption's offset
// (/CO), set across the line when it has room there (/CP /Inline) or above it (/CP /Top,
// or a caption wider than the line). pdftotext reads it; EdgeChat drew nothing (pdfcpu's
// LineAnnotation.pdf was refused as having no text).
func (p *page) lineCaption(a pdf.Value) error {
	lines := valueLines(a.Key("Contents"))
	l := a.Key("L")
	if len(lines) == 0 || l.Kind() != pdf.Array || l.Len() != 4 {
		return nil
	}
	x1, y1, x2, y2 := l.Index(0).Float64(), l.Index(1).Float64(), l.Index(2).Float64(), l.Index(3).Float64()
	length := math.Hypot(x2-x1, y2-y1)
	if !(length > 0) || math.IsInf(length, 0) {
		return nil
	}
	cos, sin := (x2-x1)/length, (y2-y1)/length
	widest := 0
	for _, line := range lines {
		widest = max(widest, len([]rune(line)))
	}
	width, height := 0.5*captionSize*float64(widest), captionSize*float64(len(lines))
	leader := a.Key("LL").Float64()
	top := leader + height/2 // the caption's top, across the line
	if a.Key("CP").Name() == "Top" || width > length-4 {
		border := 1.0
		if bs := a.Key("BS").Key("W"); bs.Kind() == pdf.Integer || bs.Kind() == pdf.Real {
			border = bs.Float64()
		}
		top = leader + height + 2*border
	}
	left := (length - width) / 2
	if co := a.Key("CO"); co.Kind() == pdf.Array && co.Len() == 2 {
		left, top = left+co.Index(0).Float64(), top+co.Index(1).Float64()
	}
	saved := p.gs
	p.gs = gstate{ctm: identity, scale: 1, size: captionSize}
	defer func() { p.gs = saved }()
	base := top + 0.2*captionSize // Helvetica's descent above the top, as poppler moves it
	for _, line := range lines {
		base -= captionSize
		// along the line u, across it v: the page point x1 + u·cos − v·sin, y1 + u·sin + v·cos
		u := left + (width-0.5*captionSize*float64(len([]rune(line))))/2
		if err := p.drawString(line, captionSize, x1+u*cos-base*sin, y1+u*sin+base*cos, cos, sin); err != nil {
			return err
		}
	}
	return nil
}
