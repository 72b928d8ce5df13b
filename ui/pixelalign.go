package ui

import (
	"image/color"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
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
// Rows are snapped vertically too. RichText stacks a paragraph's rows at the text's height
// (19.078 units at the default size), so a row after the first started between two pixels
// and was drawn a pixel taller (~8% of rows at scale 1, ~16% at 1.25 and 2, ~38% at 1.5).
// RichText gives no hold on a row's y, but a row is as tall as its tallest object: alignRuns
// puts an invisible pixelStrut in each row, as tall as the row's tallest text rounded up to
// whole device pixels, and wraps each block (table, rule) in a pixelBlock whose height is
// rounded up the same way. Every row then starts on a whole pixel; a line is at most a pixel
// taller (19.078 → 20 px at scale 1, 23.85 → 24 px at 1.25). An inline-code run stays where
// RichText puts it on the row's baseline (a fraction below the row's top: the fonts differ).
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

// pixelStrut is an invisible inline segment of no width that makes its row height tall.
type pixelStrut struct{ height float32 }

func (p *pixelStrut) Inline() bool    { return true }
func (p *pixelStrut) Textual() string { return "" }

func (p *pixelStrut) Visual() fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(0, p.height))
	return r
}

func (p *pixelStrut) Update(o fyne.CanvasObject) {
	o.(*canvas.Rectangle).SetMinSize(fyne.NewSize(0, p.height))
}
func (p *pixelStrut) Select(_, _ fyne.Position) {}
func (p *pixelStrut) SelectedText() string      { return "" }
func (p *pixelStrut) Unselect()                 {}

// pixelBlock is a block segment (a table, a rule) drawn with its height rounded up to whole
// device pixels, so that the rows below it start on a whole pixel.
type pixelBlock struct {
	widget.RichTextSegment
	scale float32
}

func (b *pixelBlock) Visual() fyne.CanvasObject {
	return container.New(pixelHeight{b.scale}, b.RichTextSegment.Visual())
}

func (b *pixelBlock) Update(o fyne.CanvasObject) {
	b.RichTextSegment.Update(o.(*fyne.Container).Objects[0])
}

// pixelHeight lays out one object at the whole size, as tall as its minimum rounded up to
// whole device pixels.
type pixelHeight struct{ scale float32 }

func (p pixelHeight) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := objs[0].MinSize()
	return fyne.NewSize(m.Width, ceilPixels(m.Height, p.scale))
}

func (p pixelHeight) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.Position{})
	objs[0].Resize(size)
}

// ceilPixels is v rounded up to whole device pixels at scale (a hundredth of a pixel over a
// whole one, float error, does not count).
func ceilPixels(v, scale float32) float32 {
	if scale <= 0 {
		return v
	}
	return float32(math.Ceil(float64(v*scale)-0.01)) / scale
}

// aligner follows RichText's layout of rows (textRenderer.layoutRow): a row starts at the
// inner padding and goes on across inline segments; a "\n" or a block segment ends it.
type aligner struct {
	scale  float32     // device pixels per Fyne unit
	start  float32     // where a row starts
	x      float32     // where the next run starts
	strut  *pixelStrut // the current row's, nil until something is put in the row
	blocks map[widget.RichTextSegment]*pixelBlock
}

// alignRuns returns segs with a pixelGap before each run that would start between two
// device pixels; scale is the canvas's pixels per unit.
// blocks keeps the pixelBlock of each block segment from one call to the next (a RichText
// keeps a segment's drawn objects by the segment: a new one would build the table again at
// each width); nil makes new ones.
func alignRuns(segs []widget.RichTextSegment, scale float32, blocks map[widget.RichTextSegment]*pixelBlock) []widget.RichTextSegment {
	pad := theme.InnerPadding()
	a := &aligner{scale: scale, start: pad, x: pad, blocks: blocks}
	return a.walk(segs)
}

func (a *aligner) newRow() { a.x, a.strut = a.start, nil }

// row puts the row's strut in out when it has none yet and makes the row at least h tall.
func (a *aligner) row(out []widget.RichTextSegment, h float32) []widget.RichTextSegment {
	if a.strut == nil {
		a.strut = &pixelStrut{}
		out = append(out, a.strut)
	}
	a.strut.height = max(a.strut.height, ceilPixels(h, a.scale))
	return out
}

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
			out = a.text(out, s)
			if !s.Inline() {
				a.newRow()
			}
		case *widget.HyperlinkSegment:
			out = a.gapBefore(out)
			out = a.row(out, textHeight(widget.RichTextStyleInline))
			out = append(out, s)
			a.x += measureText(s.Text, widget.RichTextStyleInline)
		case *widget.ParagraphSegment:
			out = append(out, &widget.ParagraphSegment{Texts: a.walk(s.Texts)})
			if n := len(s.Texts); n > 0 && !s.Texts[n-1].Inline() {
				a.newRow()
			}
		default:
			if s.Inline() {
				out = append(out, s)
			} else {
				out = append(out, a.block(s))
				a.newRow()
			}
		}
	}
	return out
}

// block is the pixelBlock of s at the aligner's scale.
func (a *aligner) block(s widget.RichTextSegment) *pixelBlock {
	b := a.blocks[s]
	if b == nil || b.scale != a.scale {
		b = &pixelBlock{RichTextSegment: s, scale: a.scale}
		if a.blocks != nil {
			a.blocks[s] = b
		}
	}
	return b
}

// text appends s to out, cut after each "\n" so that each row it starts gets its strut: the
// pieces but the last are inline (a block piece would end its row after the "\n" and add an
// empty row).
func (a *aligner) text(out []widget.RichTextSegment, s *widget.TextSegment) []widget.RichTextSegment {
	h := textHeight(s.Style)
	if !strings.Contains(s.Text, "\n") {
		a.x += measureText(s.Text, s.Style)
		return append(a.row(out, h), s)
	}
	lines := strings.SplitAfter(s.Text, "\n")
	for i, line := range lines {
		if i > 0 {
			a.newRow()
		}
		piece := &widget.TextSegment{Style: s.Style, Text: line}
		if i < len(lines)-1 {
			piece.Style.Inline = true
		}
		a.x += measureText(strings.TrimSuffix(line, "\n"), s.Style)
		out = append(a.row(out, h), piece)
	}
	return out
}

// textHeight is the height of a row of text in style st.
func textHeight(st widget.RichTextStyle) float32 {
	size := theme.TextSize()
	if st.SizeName != "" {
		size = theme.Size(st.SizeName)
	}
	return fyne.MeasureText("", size, st.TextStyle).Height
}

// pixelScale is the device pixels per Fyne unit of the canvas showing o (1 before it is shown).
func pixelScale(o fyne.CanvasObject) float32 {
	if s := pixelScaleOf(o); s > 0 {
		return s
	}
	return 1
}

// pixelScaleOf is the device pixels per unit of the canvas showing o, 0 when none shows it.
func pixelScaleOf(o fyne.CanvasObject) float32 {
	c := fyne.CurrentApp().Driver().CanvasForObject(o)
	if c == nil {
		return 0
	}
	return canvasScale(c)
}

// canvasScale is the device pixels per unit of c (1 when it does not say).
func canvasScale(c fyne.Canvas) float32 {
	x, _ := c.PixelCoordinateForPosition(fyne.NewPos(1000, 0))
	if x <= 0 {
		return 1
	}
	return float32(x) / 1000
}
