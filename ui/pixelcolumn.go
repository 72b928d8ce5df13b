package ui

import (
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Rows of text start on whole device pixels inside a reply (pixelalign.go), but a reply sits
// below labels, buttons and other replies of fractional heights (a label is 27.078 units
// tall), in a list that scrolls by fractions: the rows of most replies still started between
// two pixels. The transcript's columns stack their children at whole-pixel positions
// (pixelColumn), the transcript puts its list on a whole pixel of the window
// (transcriptLayout), and the view scrolls by whole pixels (ChatView.scrollTo), so that every
// row of a reply lands on a whole pixel.

// pixelColumn is layout.NewVBoxLayout with each visible child on a whole device pixel:
// children stack with the theme's padding between them, each at its minimum height, and the
// next starts at the first whole pixel after the one before.
type pixelColumn struct{}

func newPixelColumn(objs ...fyne.CanvasObject) *fyne.Container {
	return &fyne.Container{Layout: pixelColumn{}, Objects: objs}
}

func (pixelColumn) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w float32
	h := stackPixels(objs, func(o fyne.CanvasObject, _, _ float32) { w = max(w, o.MinSize().Width) })
	return fyne.NewSize(w, h)
}

func (pixelColumn) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	stackPixels(objs, func(o fyne.CanvasObject, y, h float32) {
		o.Move(fyne.NewPos(0, y))
		o.Resize(fyne.NewSize(size.Width, h))
	})
}

// stackPixels walks objs' visible children as pixelColumn stacks them, calling place with each
// one's top and height, and returns where the last ends: MinSize and Layout share it, so the
// height a column asks for is the height it fills.
func stackPixels(objs []fyne.CanvasObject, place func(o fyne.CanvasObject, y, h float32)) float32 {
	var y float32
	scale := layoutScale(objs)
	first := true
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		if !first {
			y = ceilPixels(y+theme.Padding(), scale)
		}
		first = false
		h := o.MinSize().Height
		place(o, y, h)
		y = ceilPixels(y+h, scale)
	}
	return y
}

// layoutScale is the device pixels per unit of the canvas showing objs (of the first window
// before they are shown; 1 without one).
func layoutScale(objs []fyne.CanvasObject) float32 {
	for _, o := range objs {
		if s := pixelScaleOf(o); s > 0 {
			return s
		}
	}
	if ws := fyne.CurrentApp().Driver().AllWindows(); len(ws) > 0 {
		return canvasScale(ws[0].Canvas())
	}
	return 1
}

// roundPixels is v rounded to the nearest whole device pixel at scale.
func roundPixels(v, scale float32) float32 {
	if scale <= 0 {
		return v
	}
	return float32(math.Round(float64(v*scale))) / scale
}

// windowY is where o is drawn in its window. AbsolutePositionForObject is that less the
// canvas's interactive-area inset (none on desktop windows; the test driver's canvas has one).
func windowY(o fyne.CanvasObject) float32 {
	d := fyne.CurrentApp().Driver()
	y := d.AbsolutePositionForObject(o).Y
	if c := d.CanvasForObject(o); c != nil {
		inset, _ := c.InteractiveArea()
		y += inset.Y
	}
	return y
}
