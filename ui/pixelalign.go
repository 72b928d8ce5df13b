package ui

import (
	"image/color"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Text right after a bold or inline-code run was drawn lighter. RichText places the runs of a
// row one after the other at the sum of their widths, so every run but the first starts at a
// fraction of a pixel. Fyne's painter draws a run from a texture round(width) pixels wide into
// a box from round(x) to round(x+width), one pixel wider or narrower when x is fractional, and
// the smooth scaling that fits the texture to the box greys the letters. alignRuns puts an
// invisible pixelGap (less than a pixel wide) before each run that starts inside a row, so
// that every run starts on a whole device pixel and is drawn at its own size.
//
// Rows are not snapped vertically: RichText stacks a paragraph's rows at the text's height
// (19.078 units at the default size), so a row after the first may start between two pixels
// and be drawn a pixel taller (~8% of rows at scale 1, ~16% at 1.25 and 2, ~38% at 1.5).
// RichText gives no hold on a row's y; an invisible strut per row of a whole-pixel height
// would snap them, but makes every line up to a pixel taller and adds an object per row.
// selectText lays out its own rows and puts each on a whole pixel (selecttext.go).

// pixelGap is an invisible inline segment of a given width.
type pixelGap struct{ width float32 }

func (g *pixelGap) Inline() bool    { return true }
func (g *pixelGap) Textual() string { return "" }

func (g *pixelGap) Visual() fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(g.width, 0))
	return r
}

func (g *pixelGap) Update(o fyne.CanvasObject) {
	o.(*canvas.Rectangle).SetMinSize(fyne.NewSize(g.width, 0))
}
func (g *pixelGap) Select(_, _ fyne.Position) {}
func (g *pixelGap) SelectedText() string      { return "" }
func (g *pixelGap) Unselect()                 {}

// aligner follows RichText's layout of rows (textRenderer.layoutRow): a row starts at the
// inner padding and goes on across inline segments; a "\n" or a block segment ends it.
type aligner struct {
	scale float32 // device pixels per Fyne unit
	start float32 // where a row starts
	x     float32 // where the next run starts
}

// alignRuns returns segs with a pixelGap before each run that would start between two
// device pixels; scale is the canvas's pixels per unit.
func alignRuns(segs []widget.RichTextSegment, scale float32) []widget.RichTextSegment {
	pad := theme.InnerPadding()
	a := &aligner{scale: scale, start: pad, x: pad}
	return a.walk(segs)
}

func (a *aligner) newRow() { a.x = a.start }

// gapBefore adds a gap to out when a run starting at a.x would not start on a whole pixel.
func (a *aligner) gapBefore(out []widget.RichTextSegment) []widget.RichTextSegment {
	if a.x == a.start || a.scale <= 0 {
		return out
	}
	px := a.x * a.scale
	g := (float32(math.Ceil(float64(px)-0.01)) - px) / a.scale
	if g <= 0.001 {
		return out
	}
	a.x += g
	return append(out, &pixelGap{width: g})
}

func (a *aligner) walk(segs []widget.RichTextSegment) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(segs))
	for _, s := range segs {
		switch s := s.(type) {
		case *widget.TextSegment:
			if s.Text != "" && s.Text[0] != '\n' {
				out = a.gapBefore(out)
			}
			out = append(out, s)
			for i, part := range strings.Split(s.Text, "\n") {
				if i > 0 {
					a.newRow()
				}
				a.x += measureText(part, s.Style)
			}
			if !s.Inline() {
				a.newRow()
			}
		case *widget.HyperlinkSegment:
			out = a.gapBefore(out)
			out = append(out, s)
			a.x += measureText(s.Text, widget.RichTextStyleInline)
		case *widget.ParagraphSegment:
			out = append(out, &widget.ParagraphSegment{Texts: a.walk(s.Texts)})
			if n := len(s.Texts); n > 0 && !s.Texts[n-1].Inline() {
				a.newRow()
			}
		default:
			out = append(out, s)
			if !s.Inline() {
				a.newRow()
			}
		}
	}
	return out
}

// pixelScale is the device pixels per Fyne unit of the canvas showing o (1 before it is shown).
func pixelScale(o fyne.CanvasObject) float32 {
	c := fyne.CurrentApp().Driver().CanvasForObject(o)
	if c == nil {
		return 1
	}
	x, _ := c.PixelCoordinateForPosition(fyne.NewPos(1000, 0))
	if x <= 0 {
		return 1
	}
	return float32(x) / 1000
}
