package ui

import (
	"image/color"

	"fyne.io/fyne/v2/canvas"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Words for icon-only buttons. Fyne 2.7 has no tooltips (neither has fyne-x, whose newest
// version needs Fyne 2.8) and no accessibility API: nothing a screen reader could read. So an
// icon-only button is a tipButton, whose Tip is shown while the pointer rests on it or the
// keyboard is on it, and is the one place a label for assistive technology would come from.
//
// The tip is drawn in a tipLayer, the last object of the window's main content, and not in a
// widget.PopUp: a pop-up is an overlay, which takes the keyboard while shown (what was typed
// went nowhere) and the next click (the button under the tip needed two).

// tipDelay is how long the pointer rests on a button before its tip shows.
const tipDelay = 600 * time.Millisecond

// tipButton is an icon-only button with a tip. Used on the main goroutine only.
type tipButton struct {
	widget.Button
	Tip   string
	hover int // counts MouseIn, so that a late timer of an earlier one does nothing
}

func newTipButton(icon fyne.Resource, tip string, tapped func()) *tipButton {
	b := &tipButton{Tip: tip}
	b.Icon, b.OnTapped = icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

// MouseIn shows the tip after tipDelay unless the pointer left.
func (b *tipButton) MouseIn(e *desktop.MouseEvent) {
	b.Button.MouseIn(e)
	b.hover++
	n := b.hover
	afterTipDelay(func() {
		if b.hover == n {
			showTip(b, b.Tip)
		}
	})
}

// afterTipDelay runs f on the main goroutine after tipDelay. Tests replace it to fire the
// delay themselves.
var afterTipDelay = func(f func()) {
	time.AfterFunc(tipDelay, func() { fyne.Do(f) })
}

// MouseOut hides the tip.
func (b *tipButton) MouseOut() {
	b.Button.MouseOut()
	b.hover++
	hideTip(b)
}

// Tapped hides the tip and presses the button.
func (b *tipButton) Tapped(e *fyne.PointEvent) {
	b.hover++
	hideTip(b)
	b.Button.Tapped(e)
}

// FocusGained shows the tip at once: the keyboard user sees what the button does.
func (b *tipButton) FocusGained() {
	b.Button.FocusGained()
	showTip(b, b.Tip)
}

// FocusLost hides the tip.
func (b *tipButton) FocusLost() {
	b.Button.FocusLost()
	hideTip(b)
}

// tipLayer draws the tip of one object over the content it is the last object of. It takes
// no events: clicks and the wheel reach what lies under it.
type tipLayer struct {
	widget.BaseWidget
	owner fyne.CanvasObject
	bg    *canvas.Rectangle
	text  *widget.Label
}

func newTipLayer() *tipLayer {
	l := &tipLayer{bg: canvas.NewRectangle(color.Transparent), text: widget.NewLabel("")}
	l.bg.StrokeWidth = 1
	l.bg.CornerRadius = theme.InputRadiusSize()
	l.text.SizeName = theme.SizeNameCaptionText
	l.bg.Hide()
	l.text.Hide()
	l.ExtendBaseWidget(l)
	return l
}

// MinSize is nothing: the layer does not widen or heighten the content.
func (l *tipLayer) MinSize() fyne.Size { return fyne.Size{} }

func (l *tipLayer) CreateRenderer() fyne.WidgetRenderer {
	return &tipLayerRenderer{objs: []fyne.CanvasObject{l.bg, l.text}}
}

type tipLayerRenderer struct{ objs []fyne.CanvasObject }

func (r *tipLayerRenderer) Destroy()                     {}
func (r *tipLayerRenderer) Layout(fyne.Size)             {}
func (r *tipLayerRenderer) MinSize() fyne.Size           { return fyne.Size{} }
func (r *tipLayerRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *tipLayerRenderer) Refresh() {
	for _, o := range r.objs {
		o.Refresh()
	}
}

// show draws text under owner (above it where there is no room), inside the layer.
func (l *tipLayer) show(owner fyne.CanvasObject, text string) {
	d := fyne.CurrentApp().Driver()
	pos := d.AbsolutePositionForObject(owner).Subtract(d.AbsolutePositionForObject(l))
	l.owner = owner
	l.bg.FillColor = theme.Color(theme.ColorNameOverlayBackground)
	l.bg.StrokeColor = theme.Color(theme.ColorNameInputBorder)
	l.text.SetText(text)
	size := l.text.MinSize()
	x := max(0, min(pos.X, l.Size().Width-size.Width))
	y := pos.Y + owner.Size().Height
	if y+size.Height > l.Size().Height {
		y = max(0, pos.Y-size.Height)
	}
	for _, o := range []fyne.CanvasObject{l.bg, l.text} {
		o.Move(fyne.NewPos(x, y))
		o.Resize(size)
		o.Show()
	}
	l.redraw()
}

// hide hides the tip if it is owner's.
func (l *tipLayer) hide(owner fyne.CanvasObject) {
	if l.owner != owner {
		return
	}
	l.owner = nil
	l.bg.Hide()
	l.text.Hide()
	l.redraw()
}

// redraw repaints the layer. Refreshing the tip's parts is not enough: the driver does not
// know objects it never drew (hidden until now), and dropped their refresh.
func (l *tipLayer) redraw() {
	l.Refresh()
	canvas.Refresh(l)
}

// shown is the text shown and whose it is ("", nil when none).
func (l *tipLayer) shown() (string, fyne.CanvasObject) {
	if l.owner == nil {
		return "", nil
	}
	return l.text.Text, l.owner
}

// layerFor is the tip layer of the window that shows o: the last object of its content.
func layerFor(o fyne.CanvasObject) *tipLayer {
	c := fyne.CurrentApp().Driver().CanvasForObject(o)
	if c == nil {
		return nil
	}
	if box, ok := c.Content().(*fyne.Container); ok && len(box.Objects) > 0 {
		if l, ok := box.Objects[len(box.Objects)-1].(*tipLayer); ok {
			return l
		}
	}
	return nil
}

// showTip shows text for owner in its window's tip layer, if it has one.
func showTip(owner fyne.CanvasObject, text string) {
	if l := layerFor(owner); l != nil && text != "" && owner.Visible() {
		l.show(owner, text)
	}
}

func hideTip(owner fyne.CanvasObject) {
	if l := layerFor(owner); l != nil {
		l.hide(owner)
	}
}
