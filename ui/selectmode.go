package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Replies and their reasoning are rendered Markdown, and Fyne's RichText cannot be selected.
// "Select text" (the
// reply's right-click menu, its footer button, Enter or Ctrl+A on the focused reply,
// Ctrl+Shift+A for the last reply) swaps the rendered reply for its text as the model wrote
// it, in a selectText; Esc or Done swaps back. User messages are plain text and always
// shown in a selectText.

// selectMode is a reply's (or its reasoning's) text area: the rendered text in a focusable
// frame, and, built when first asked for, the panel to select it as written. Used on the main goroutine only.
type selectMode struct {
	b     *bubble
	doc   *DocVM // the answer, or the reasoning
	what  string // "reply", "reasoning"
	frame *replyFrame
	box   *fyne.Container // frame or panel
	panel fyne.CanvasObject
	sel   *selectText
	tail  binding.DataListener // follows the text while selecting a reply that streams
}

func newSelectMode(b *bubble, doc *DocVM, what string, rendered fyne.CanvasObject) *selectMode {
	s := &selectMode{b: b, doc: doc, what: what}
	s.frame = newReplyFrame(rendered, s)
	s.box = newPixelColumn(s.frame)
	return s
}

// selecting reports whether the panel is shown.
func (s *selectMode) selecting() bool { return s.panel != nil && s.panel.Visible() }

// start shows the reply's text for selecting and puts the keyboard there; all selects it all.
func (s *selectMode) start(all bool) {
	d := s.doc
	if s.panel == nil {
		s.sel = newSelectText(d.Text(), s.b.scroll)
		s.sel.onEscape = s.done
		s.sel.menu = func() []*fyne.MenuItem {
			return []*fyne.MenuItem{fyne.NewMenuItem("Show formatted", s.done)}
		}
		note := widget.NewLabel("Select text — the " + s.what + " as written (Markdown). Esc when done.")
		note.SizeName = theme.SizeNameCaptionText
		note.Truncation = fyne.TextTruncateEllipsis
		cp := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
			if t := s.sel.Selected(); t != "" {
				fyne.CurrentApp().Clipboard().SetContent(t)
			} else {
				fyne.CurrentApp().Clipboard().SetContent(d.Text())
			}
		})
		cp.Importance = widget.LowImportance
		done := widget.NewButton("Done", s.done)
		done.Importance = widget.LowImportance
		bg := newThemedRect(theme.ColorNameInputBackground, theme.InputRadiusSize())
		s.panel = container.NewBorder(container.NewBorder(nil, nil, nil, container.NewHBox(cp, done), note), nil, nil, nil,
			container.NewStack(bg, s.sel))
		s.box.Add(s.panel)
	}
	s.sel.keys = s.b.keys
	s.sel.setText(d.Text())
	if s.tail == nil {
		s.tail = binding.NewDataListener(func() { s.sel.setText(d.Text()) })
		d.Tail.AddListener(s.tail)
	}
	s.frame.Hide()
	s.panel.Show()
	if all {
		s.sel.SelectAll()
	}
	if c := fyne.CurrentApp().Driver().CanvasForObject(s.box); c != nil {
		c.Focus(s.sel)
	}
	s.b.grown()
}

// done shows the rendered reply again, with the keyboard on it if it was on the text.
func (s *selectMode) done() {
	if !s.selecting() {
		return
	}
	s.stopFollowing()
	c := fyne.CurrentApp().Driver().CanvasForObject(s.box)
	focused := c != nil && c.Focused() == s.sel
	s.panel.Hide()
	s.frame.Show()
	if focused {
		c.Focus(s.frame)
	}
	s.b.grown()
}

func (s *selectMode) stopFollowing() {
	if s.tail != nil {
		s.doc.Tail.RemoveListener(s.tail)
		s.tail = nil
	}
}

// copyAll puts the whole text on the clipboard.
func (s *selectMode) copyAll() { fyne.CurrentApp().Clipboard().SetContent(s.doc.Text()) }

// replyFrame holds the rendered reply. It takes the keyboard (Tab reaches it; a focus line
// shows it): Enter or Space selects text, Ctrl+A selects all of it, Ctrl+C copies the reply.
// Right-click offers the same; a double-click selects text.
type replyFrame struct {
	widget.BaseWidget
	content fyne.CanvasObject
	mode    *selectMode
	focused bool
}

func newReplyFrame(content fyne.CanvasObject, mode *selectMode) *replyFrame {
	f := &replyFrame{content: content, mode: mode}
	f.ExtendBaseWidget(f)
	return f
}

func (f *replyFrame) CreateRenderer() fyne.WidgetRenderer {
	ring := canvas.NewRectangle(color.Transparent)
	ring.StrokeWidth = theme.InputBorderSize()
	ring.CornerRadius = theme.InputRadiusSize()
	return &replyFrameRenderer{WidgetRenderer: widget.NewSimpleRenderer(container.NewStack(f.content, ring)), f: f, ring: ring}
}

type replyFrameRenderer struct {
	fyne.WidgetRenderer
	f    *replyFrame
	ring *canvas.Rectangle
}

func (r *replyFrameRenderer) Refresh() {
	r.ring.StrokeColor = color.Transparent
	if r.f.focused {
		r.ring.StrokeColor = theme.Color(theme.ColorNameFocus)
	}
	r.ring.Refresh()
}

// FocusGained shows the focus line.
func (f *replyFrame) FocusGained() {
	f.focused = true
	f.Refresh()
}

// FocusLost hides the focus line.
func (f *replyFrame) FocusLost() {
	f.focused = false
	f.Refresh()
}

// TypedRune ignores typing.
func (f *replyFrame) TypedRune(rune) {}

// TypedKey: Enter or Space selects text; other keys are the window's.
func (f *replyFrame) TypedKey(e *fyne.KeyEvent) {
	switch e.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		f.mode.start(false)
	default:
		f.mode.b.keys.typedKey(e)
	}
}

// TypedShortcut: Ctrl+A selects all the text, Ctrl+C copies the reply; others are the window's.
func (f *replyFrame) TypedShortcut(s fyne.Shortcut) {
	switch s.(type) {
	case *fyne.ShortcutSelectAll:
		f.mode.start(true)
	case *fyne.ShortcutCopy:
		f.mode.copyAll()
	default:
		f.mode.b.keys.typedShortcut(s)
	}
}

// TappedSecondary offers Select text and Copy.
func (f *replyFrame) TappedSecondary(e *fyne.PointEvent) {
	c := fyne.CurrentApp().Driver().CanvasForObject(f)
	if c == nil {
		return
	}
	menu := fyne.NewMenu("",
		fyne.NewMenuItem("Select text", func() { f.mode.start(false) }),
		fyne.NewMenuItem("Copy "+f.mode.what, f.mode.copyAll))
	widget.ShowPopUpMenuAtPosition(menu, c, e.AbsolutePosition)
}

// DoubleTapped selects text.
func (f *replyFrame) DoubleTapped(*fyne.PointEvent) { f.mode.start(false) }
