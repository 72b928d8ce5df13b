package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// binder remembers the listeners a view added so it can remove them when it goes away.
// Listeners run on the main goroutine.
type binder struct{ undo []func() }

// on calls f now and whenever d changes. Called on the main goroutine while a view is built:
// AddListener makes its first call through fyne.Do, after the view may have been drawn
// once with its default state (a progress bar with no status, a footer while streaming).
func (b *binder) on(d binding.DataItem, f func()) {
	f()
	l := binding.NewDataListener(f)
	d.AddListener(l)
	b.undo = append(b.undo, func() { d.RemoveListener(l) })
}

func (b *binder) unbind() {
	for _, u := range b.undo {
		u()
	}
	b.undo = nil
}

// get reads a binding, ignoring the error bindings only return for external data.
func get[T any](b interface{ Get() (T, error) }) T {
	v, _ := b.Get()
	return v
}

// label is widget.NewLabelWithData showing the text from the start (Bind fills the label
// in only when its listener first runs, through fyne.Do); unbind unbinds it.
func (b *binder) label(s binding.String) *widget.Label {
	l := widget.NewLabel(get[string](s))
	l.Bind(s)
	b.undo = append(b.undo, l.Unbind)
	return l
}

// docView renders a DocVM: one widget per settled block (rendered once) and one for the open
// tail, which is the only part re-rendered while a reply streams.
type docView struct {
	binder
	doc      *DocVM
	box      *fyne.Container
	blocks   *fyne.Container // settled blocks, each frozen
	settled  *frozen         // blocks, measured once per added block, not per update
	rendered int
	tail     Block           // the open block shown now
	prose    *wrapText       // tail when it is prose
	code     *codeBlock      // tail when it is an open code block
	onGrow   func()          // called after the document changed (follow the stream)
	wheel    fyne.Scrollable // the page around: gets the vertical wheel over code blocks
	dim      bool            // reasoning: drawn in the placeholder colour
}

// newDocView shows doc; onGrow is called when it changes later (not while it is built), and
// wheel (may be nil) is the scroller that shows it.
func newDocView(doc *DocVM, dim bool, onGrow func(), wheel fyne.Scrollable) *docView {
	v := &docView{doc: doc, dim: dim, wheel: wheel}
	v.prose = newWrapText(nil)
	v.code = newCodeBlock(Block{Kind: BlockCode}, wheel)
	v.prose.Hide()
	v.code.Hide()
	v.blocks = newPixelColumn()
	v.settled = newFrozen(v.blocks)
	v.box = newPixelColumn(v.settled, v.prose, v.code)
	v.on(doc.Settled, v.blocksChanged)
	v.on(doc.Tail, v.tailChanged)
	v.onGrow = onGrow
	return v
}

// blocksChanged appends widgets for newly settled blocks, before the tail widgets.
func (v *docView) blocksChanged() {
	n := get[int](v.doc.Settled)
	if n <= v.rendered {
		return
	}
	for ; v.rendered < n; v.rendered++ {
		v.blocks.Add(newFrozen(renderBlock(v.doc.Block(v.rendered), v.dim, v.wheel)))
	}
	// Re-measure without refreshing every settled block: the driver re-lays out the
	// parents whose minimum size changed on the next frame; lay out this level now.
	v.settled.valid = false
	v.box.Layout.Layout(v.box.Objects, v.box.Size())
	canvas.Refresh(v.box)
	v.grew()
}

// tailChanged re-renders the open block; its cost depends on that block only.
func (v *docView) tailChanged() {
	b := get[Block](v.doc.Tail)
	if b == v.tail {
		return // AddListener's own first call, after the one made while building
	}
	v.tail = b
	switch {
	case b.Kind == BlockCode:
		v.prose.Hide()
		v.code.set(b)
		v.code.Show()
	case b.Text != "":
		v.code.Hide()
		segs := markdownSegments(b.Text)
		if v.dim {
			dimSegments(segs)
		}
		v.prose.set(segs)
		v.prose.Show()
	default:
		v.prose.Hide()
		v.code.Hide()
	}
	v.grew()
}

func (v *docView) grew() {
	if v.onGrow != nil {
		v.onGrow()
	}
}

// frozen shows a widget that no longer changes and caches its minimum size, so that
// measuring a transcript does not re-measure the text of every settled block per update.
// The cache is dropped when the width changes (text re-wraps) and on Refresh (new content,
// theme or text size).
type frozen struct {
	widget.BaseWidget
	content fyne.CanvasObject
	min     fyne.Size
	valid   bool
	width   float32
}

func newFrozen(content fyne.CanvasObject) *frozen {
	f := &frozen{content: content}
	f.ExtendBaseWidget(f)
	return f
}

// MinSize returns the cached minimum size of the content.
func (f *frozen) MinSize() fyne.Size {
	if !f.valid {
		f.min, f.valid = f.content.MinSize(), true
	}
	return f.min
}

// Resize drops the cache when the width changes.
func (f *frozen) Resize(s fyne.Size) {
	if s.Width != f.width {
		f.width, f.valid = s.Width, false
	}
	f.BaseWidget.Resize(s)
}

// Refresh drops the cache and redraws the content.
func (f *frozen) Refresh() {
	f.valid = false
	f.BaseWidget.Refresh()
}

func (f *frozen) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(f.content) }

// renderBlock makes the widget of one settled block; wheel is as for newCodeBlock.
func renderBlock(b Block, dim bool, wheel fyne.Scrollable) fyne.CanvasObject {
	if b.Kind == BlockCode {
		return newCodeBlock(b, wheel)
	}
	segs := markdownSegments(b.Text)
	if dim {
		dimSegments(segs)
	}
	return newWrapText(segs)
}

// dimSegments draws text in the placeholder colour (for the model's reasoning).
func dimSegments(segs []widget.RichTextSegment) {
	for _, s := range segs {
		switch s := s.(type) {
		case *widget.TextSegment:
			s.Style.ColorName = theme.ColorNamePlaceHolder
		case *widget.ParagraphSegment:
			dimSegments(s.Texts)
		case *widget.ListSegment:
			dimSegments(s.Items)
		}
	}
}

// codeBlock shows code in a monospace box with its language and a Copy button.
type codeBlock struct {
	widget.BaseWidget
	block  Block
	text   *widget.RichText
	lang   *widget.Label
	copy   *widget.Button
	scroll *codeScroll
	scale  float32 // the device pixels per unit the rows were snapped for (pixelalign.go)
}

// newCodeBlock shows b; wheel (may be nil) is the scroller around it, which gets the
// vertical wheel while the pointer is over the code.
func newCodeBlock(b Block, wheel fyne.Scrollable) *codeBlock {
	c := &codeBlock{lang: widget.NewLabel("")}
	c.lang.TextStyle = fyne.TextStyle{Italic: true}
	c.lang.SizeName = theme.SizeNameCaptionText
	c.text = widget.NewRichText(&widget.TextSegment{Style: widget.RichTextStyleCodeBlock})
	c.copy = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		fyne.CurrentApp().Clipboard().SetContent(c.block.Text)
	})
	c.copy.Importance = widget.LowImportance
	c.scroll = newCodeScroll(c.text, wheel)
	c.ExtendBaseWidget(c)
	c.set(b)
	return c
}

// set shows b (used for the streaming tail).
func (c *codeBlock) set(b Block) {
	c.block = b
	c.lang.SetText(b.Lang)
	c.scale = pixelScale(c)
	c.text.Segments = alignRuns([]widget.RichTextSegment{&widget.TextSegment{Style: widget.RichTextStyleCodeBlock, Text: b.Text}}, c.scale, nil)
	c.text.Refresh()
}

// Resize snaps the rows again when the block is first shown at another scale than 1.
func (c *codeBlock) Resize(s fyne.Size) {
	if pixelScale(c) != c.scale {
		c.set(c.block)
	}
	c.BaseWidget.Resize(s)
}

func (c *codeBlock) CreateRenderer() fyne.WidgetRenderer {
	bg := newThemedRect(theme.ColorNameInputBackground, theme.InputRadiusSize())
	head := container.NewBorder(nil, nil, c.lang, c.copy)
	// The head last, so that the Copy button is on top where the two overlap.
	return widget.NewSimpleRenderer(container.New(codeLayout{}, bg, c.scroll, head))
}

// codeLayout stacks the head (language, Copy) over the code without the empty line that a
// border layout leaves: the code's own top padding sits in the head's bottom padding.
// Objects: background, code, head.
type codeLayout struct{}

func (codeLayout) overlap() float32 { return theme.InnerPadding() + theme.Padding() }

func (l codeLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	code, head := objs[1].MinSize(), objs[2].MinSize()
	return fyne.NewSize(max(code.Width, head.Width), l.top(head.Height, objs)+max(0, code.Height))
}

func (l codeLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	bg, code, head := objs[0], objs[1], objs[2]
	bg.Resize(size)
	headH := head.MinSize().Height
	head.Move(fyne.Position{})
	head.Resize(fyne.NewSize(size.Width, headH))
	top := l.top(headH, objs)
	code.Move(fyne.NewPos(0, top))
	code.Resize(fyne.NewSize(size.Width, size.Height-top))
}

// top is where the code starts below a head headH tall: on a whole device pixel, so that its
// rows do (pixelalign.go).
func (l codeLayout) top(headH float32, objs []fyne.CanvasObject) float32 {
	return ceilPixels(max(0, headH-l.overlap()), layoutScale(objs))
}

// codeScroll scrolls code sideways and passes the vertical wheel on to outer, the page
// around it. A plain horizontal container.Scroll takes the vertical wheel too (it turns it
// into sideways scrolling, or drops it when the code fits), so the page stopped scrolling
// while the pointer was over a code block.
type codeScroll struct {
	container.Scroll
	outer fyne.Scrollable
}

func newCodeScroll(content fyne.CanvasObject, outer fyne.Scrollable) *codeScroll {
	s := &codeScroll{outer: outer}
	s.Direction = container.ScrollHorizontalOnly
	s.Content = content
	s.ExtendBaseWidget(s)
	return s
}

// Scrolled scrolls the code by DX (or by DY with Shift held) and the page by DY.
func (s *codeScroll) Scrolled(ev *fyne.ScrollEvent) {
	if s.outer == nil {
		s.Scroll.Scrolled(ev)
		return
	}
	dx, dy := ev.Scrolled.DX, ev.Scrolled.DY
	if d, ok := fyne.CurrentApp().Driver().(desktop.Driver); ok && d.CurrentKeyModifiers()&fyne.KeyModifierShift != 0 && dx == 0 {
		dx, dy = dy, 0
	}
	if dx != 0 {
		side := *ev
		side.Scrolled = fyne.Delta{DX: dx}
		s.Scroll.Scrolled(&side)
	}
	if dy != 0 {
		up := *ev
		up.Scrolled = fyne.Delta{DY: dy}
		s.outer.Scrolled(&up)
	}
}
