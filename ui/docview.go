package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// binder remembers the listeners a view added so it can remove them when it goes away.
// Listeners run on the main goroutine.
type binder struct{ undo []func() }

func (b *binder) on(d binding.DataItem, f func()) {
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

// docView renders a DocVM: one widget per settled block (rendered once) and one for the open
// tail, which is the only part re-rendered while a reply streams.
type docView struct {
	binder
	doc      *DocVM
	box      *fyne.Container
	blocks   *fyne.Container // settled blocks, each frozen
	settled  *frozen         // blocks, measured once per added block, not per update
	rendered int
	prose    *widget.RichText // tail when it is prose
	code     *codeBlock       // tail when it is an open code block
	onGrow   func()           // called after the document changed (follow the stream)
	dim      bool             // reasoning: drawn in the placeholder colour
}

func newDocView(doc *DocVM, dim bool, onGrow func()) *docView {
	v := &docView{doc: doc, onGrow: onGrow, dim: dim}
	v.prose = widget.NewRichText()
	v.prose.Wrapping = fyne.TextWrapWord
	v.code = newCodeBlock(Block{Kind: BlockCode})
	v.prose.Hide()
	v.code.Hide()
	v.blocks = container.NewVBox()
	v.settled = newFrozen(v.blocks)
	v.box = container.NewVBox(v.settled, v.prose, v.code)
	v.on(doc.Settled, v.blocksChanged)
	v.on(doc.Tail, v.tailChanged)
	return v
}

// blocksChanged appends widgets for newly settled blocks, before the tail widgets.
func (v *docView) blocksChanged() {
	n := get[int](v.doc.Settled)
	if n <= v.rendered {
		return
	}
	for ; v.rendered < n; v.rendered++ {
		v.blocks.Add(newFrozen(renderBlock(v.doc.Block(v.rendered), v.dim)))
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
	b, _ := v.doc.Tail.Get()
	switch {
	case b.Kind == BlockCode:
		v.prose.Hide()
		v.code.set(b)
		v.code.Show()
	case b.Text != "":
		v.code.Hide()
		v.prose.ParseMarkdown(b.Text)
		if v.dim {
			dimSegments(v.prose.Segments)
			v.prose.Refresh()
		}
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

// renderBlock makes the widget of one settled block.
func renderBlock(b Block, dim bool) fyne.CanvasObject {
	if b.Kind == BlockCode {
		return newCodeBlock(b)
	}
	rt := widget.NewRichTextFromMarkdown(b.Text)
	if dim {
		dimSegments(rt.Segments)
	}
	rt.Wrapping = fyne.TextWrapWord
	return rt
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
	block Block
	text  *widget.RichText
	lang  *widget.Label
	copy  *widget.Button
}

func newCodeBlock(b Block) *codeBlock {
	c := &codeBlock{lang: widget.NewLabel("")}
	c.lang.TextStyle = fyne.TextStyle{Italic: true}
	c.lang.SizeName = theme.SizeNameCaptionText
	c.text = widget.NewRichText(&widget.TextSegment{Style: widget.RichTextStyleCodeBlock})
	c.copy = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		fyne.CurrentApp().Clipboard().SetContent(c.block.Text)
	})
	c.copy.Importance = widget.LowImportance
	c.ExtendBaseWidget(c)
	c.set(b)
	return c
}

// set shows b (used for the streaming tail).
func (c *codeBlock) set(b Block) {
	c.block = b
	c.lang.SetText(b.Lang)
	seg := c.text.Segments[0].(*widget.TextSegment)
	seg.Text = b.Text
	c.text.Refresh()
}

func (c *codeBlock) CreateRenderer() fyne.WidgetRenderer {
	bg := newThemedRect(theme.ColorNameInputBackground, theme.InputRadiusSize())
	head := container.NewBorder(nil, nil, c.lang, c.copy)
	body := container.NewBorder(head, nil, nil, nil, container.NewHScroll(c.text))
	return widget.NewSimpleRenderer(container.NewStack(bg, body))
}
