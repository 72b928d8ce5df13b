package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// bubble is the view of one MessageVM. It only binds and forwards taps.
type bubble struct {
	binder
	msg      *MessageVM
	answer   *docView    // replies: Markdown
	userText *selectText // the user's message, verbatim
	reply    *selectMode // replies: the rendered answer, or its text to select
	thought  *selectMode // the same for the reasoning
	keys     *windowKeys // keys the bubble's text does not use go to the window
	think    *docView
	content  fyne.CanvasObject
	onGrow   func()
	scroll   *container.Scroll // the transcript (nil in some tests)

	thinkToggle *widget.Button
	thinkBody   fyne.CanvasObject
	status      *fyne.Container
	statusLabel *widget.Label
	errLabel    *widget.Label
	notes       *widget.Label
	footer      fyne.CanvasObject
	details     *widget.Label
	copyBtn     *tipButton
}

// newBubble builds the bubble in the current state of m. onGrow is called whenever it
// changes size afterwards (text streams in, the footer appears) to follow the transcript;
// scroll (may be nil) is the transcript's scroller: it gets the wheel over code blocks (see
// newCodeBlock) and scrolls while a selection is dragged past its edge.
func newBubble(m *MessageVM, onGrow func(), scroll *container.Scroll) *bubble {
	b := &bubble{msg: m, scroll: scroll}
	var wheel fyne.Scrollable // no typed nil in the interface
	if scroll != nil {
		wheel = scroll
	}
	copyTip := "Copy reply"
	if m.Role == "user" {
		copyTip = "Copy message"
	}
	b.copyBtn = newTipButton(theme.ContentCopyIcon(), copyTip, func() {
		fyne.CurrentApp().Clipboard().SetContent(m.Text())
	})
	b.copyBtn.Importance = widget.LowImportance
	if m.Role == "user" {
		b.content = b.userLayout()
	} else {
		b.answer = newDocView(m.Answer, false, onGrow, wheel)
		b.think = newDocView(m.Thinking, true, onGrow, wheel)
		b.content = b.assistantLayout()
	}
	b.onGrow = onGrow // set last: the listeners' first calls build the bubble, they do not grow it
	return b
}

// userLayout shows the user's text as typed: not Markdown, line breaks kept, selectable.
func (b *bubble) userLayout() fyne.CanvasObject {
	b.userText = newSelectText(b.msg.Text(), b.scroll)
	bg := newThemedRect(theme.ColorNameSelection, 2*theme.InputRadiusSize())
	card := container.NewStack(bg, container.NewPadded(container.NewBorder(nil, nil, nil, b.copyBtn, b.userText)))
	indent := canvas.NewRectangle(color.Transparent)
	indent.SetMinSize(fyne.NewSize(96, 1))
	return container.NewBorder(nil, nil, indent, nil, card)
}

func (b *bubble) assistantLayout() fyne.CanvasObject {
	m := b.msg
	// Thinking: a header that folds the reasoning away.
	b.thinkToggle = widget.NewButtonWithIcon("Thinking", theme.MenuDropDownIcon(), func() {
		open, _ := m.ThinkingOpen.Get()
		_ = m.ThinkingOpen.Set(!open)
	})
	b.thinkToggle.Importance = widget.LowImportance
	b.thinkToggle.Alignment = widget.ButtonAlignLeading
	line := newThemedRect(theme.ColorNameDisabled, 0)
	line.min = fyne.NewSize(3, 1)
	b.thought = newSelectMode(b, m.Thinking, "reasoning", b.think.box)
	b.thinkBody = container.NewBorder(nil, nil, line, nil, b.thought.box)
	thinkSection := newPixelColumn(b.thinkToggle, b.thinkBody)
	b.on(m.HasThinking, func() { b.show(thinkSection, get[bool](m.HasThinking)) })
	b.on(m.ThinkingOpen, b.thinkingOpenChanged)
	b.on(m.Streaming, b.thinkingOpenChanged)

	// Progress before the first token ("Loading model…").
	b.statusLabel = b.label(m.Status)
	b.statusLabel.TextStyle = fyne.TextStyle{Italic: true}
	bar := widget.NewProgressBarInfinite()
	b.status = container.NewBorder(nil, nil, nil, nil, container.NewVBox(b.statusLabel, bar))
	b.on(m.Status, func() {
		s := get[string](m.Status)
		b.show(b.status, s != "")
		if s == "" {
			bar.Stop()
		} else {
			bar.Start()
		}
	})

	b.errLabel = b.label(m.Error)
	b.errLabel.Wrapping = fyne.TextWrapWord
	b.errLabel.Importance = widget.DangerImportance
	b.on(m.Error, func() { b.show(b.errLabel, get[string](m.Error) != "") })

	b.notes = b.label(m.Notes)
	b.notes.Wrapping = fyne.TextWrapWord
	b.notes.Importance = widget.WarningImportance
	b.notes.SizeName = theme.SizeNameCaptionText
	b.on(m.Notes, func() { b.show(b.notes, get[string](m.Notes) != "") })

	b.footer = b.footerRow()
	b.on(m.Streaming, func() { b.show(b.footer, !get[bool](m.Streaming)) })
	b.reply = newSelectMode(b, m.Answer, "reply", b.answer.box)
	return newPixelColumn(thinkSection, b.status, b.toolCallsRow(), b.reply.box, b.sourcesRow(), b.errLabel, b.notes, b.footer, b.details)
}

// footerRow: backend badge, speed and tokens; the info button shows the details.
func (b *bubble) footerRow() fyne.CanvasObject {
	m := b.msg
	badge := newBadge()
	b.on(m.Backend, func() { badge.set(get[string](m.Backend)) })
	stats := b.label(m.Footer)
	stats.SizeName = theme.SizeNameCaptionText
	b.details = b.label(m.Details)
	b.details.SizeName = theme.SizeNameCaptionText
	b.details.Wrapping = fyne.TextWrapWord
	b.details.Hide()
	info := newTipButton(theme.InfoIcon(), "Details", func() { b.show(b.details, !b.details.Visible()) })
	info.Importance = widget.LowImportance
	tip := func() string { return get[string](m.Details) }
	sel := newTipButton(theme.FileTextIcon(), "Select text", func() { b.reply.start(false) })
	sel.Importance = widget.LowImportance
	return container.NewHBox(newHoverTip(badge, tip), newHoverTip(stats, tip), info, sel, b.copyBtn)
}

// grown re-follows the transcript after the bubble changed size.
func (b *bubble) grown() {
	if b.onGrow != nil {
		b.onGrow()
	}
}

// setKeys hands the keys the bubble's text does not use to the window.
func (b *bubble) setKeys(k *windowKeys) {
	b.keys = k
	if b.userText != nil {
		b.userText.keys = k
	}
}

// show shows or hides a part; once the bubble is built, a change re-follows the transcript.
func (b *bubble) show(o fyne.CanvasObject, visible bool) {
	if o.Visible() == visible {
		return
	}
	showIf(o, visible)
	b.grown()
}

func (b *bubble) thinkingOpenChanged() {
	open := get[bool](b.msg.ThinkingOpen)
	b.show(b.thinkBody, open)
	label := "Thinking"
	if get[bool](b.msg.Streaming) && b.msg.Answer.Text() == "" {
		label = "Thinking…"
	}
	icon := theme.MenuExpandIcon()
	if open {
		icon = theme.MenuDropDownIcon()
	}
	// One refresh, and none when nothing changed: each re-reads the button's SVG icon, and
	// this runs several times per bubble while a transcript is built.
	if b.thinkToggle.Text != label || b.thinkToggle.Icon != icon {
		b.thinkToggle.Text, b.thinkToggle.Icon = label, icon
		b.thinkToggle.Refresh()
	}
}

func (b *bubble) close() {
	b.unbind()
	if b.reply != nil {
		b.reply.stopFollowing()
		b.thought.stopFollowing()
	}
	if b.answer != nil {
		b.answer.unbind()
	}
	if b.think != nil {
		b.think.unbind()
	}
}

func showIf(o fyne.CanvasObject, show bool) {
	if show == o.Visible() {
		return
	}
	if show {
		o.Show()
	} else {
		o.Hide()
	}
}

// badge is the small coloured "NPU"/"CPU" tag of a reply.
type badge struct {
	widget.BaseWidget
	text *canvas.Text
	bg   *canvas.Rectangle
}

func newBadge() *badge {
	b := &badge{text: canvas.NewText("", color.White), bg: canvas.NewRectangle(color.Transparent)}
	b.text.TextStyle = fyne.TextStyle{Bold: true}
	b.text.TextSize = theme.CaptionTextSize()
	b.bg.CornerRadius = 4
	b.ExtendBaseWidget(b)
	b.Hide()
	return b
}

func (b *badge) set(label string) {
	b.text.Text = label
	switch label {
	case "NPU":
		b.bg.FillColor = color.NRGBA{R: 0x2e, G: 0x7d, B: 0x32, A: 0xff}
	case "CPU":
		b.bg.FillColor = color.NRGBA{R: 0x15, G: 0x65, B: 0xc0, A: 0xff}
	default:
		b.bg.FillColor = color.NRGBA{R: 0x6a, G: 0x1b, B: 0x9a, A: 0xff}
	}
	showIf(b, label != "")
	b.Refresh()
}

func (b *badge) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack(b.bg, container.NewCenter(container.NewPadded(b.text))))
}

// themedRect is a rectangle filled with a theme colour that follows theme changes.
type themedRect struct {
	widget.BaseWidget
	name   fyne.ThemeColorName
	radius float32
	min    fyne.Size
}

func newThemedRect(name fyne.ThemeColorName, radius float32) *themedRect {
	r := &themedRect{name: name, radius: radius}
	r.ExtendBaseWidget(r)
	return r
}

func (r *themedRect) MinSize() fyne.Size { return r.min }

func (r *themedRect) CreateRenderer() fyne.WidgetRenderer {
	rect := canvas.NewRectangle(theme.Color(r.name))
	rect.CornerRadius = r.radius
	return &themedRectRenderer{WidgetRenderer: widget.NewSimpleRenderer(rect), rect: rect, name: r.name}
}

type themedRectRenderer struct {
	fyne.WidgetRenderer
	rect *canvas.Rectangle
	name fyne.ThemeColorName
}

func (r *themedRectRenderer) Refresh() {
	r.rect.FillColor = theme.Color(r.name)
	r.rect.Refresh()
}

// hoverTip shows tip() under its content while the mouse is over it, in the window's tip
// layer (tooltip.go).
type hoverTip struct {
	widget.BaseWidget
	content fyne.CanvasObject
	tip     func() string
}

func newHoverTip(content fyne.CanvasObject, tip func() string) *hoverTip {
	h := &hoverTip{content: content, tip: tip}
	h.ExtendBaseWidget(h)
	return h
}

func (h *hoverTip) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(h.content) }

// MouseIn shows the tip below the content.
func (h *hoverTip) MouseIn(*desktop.MouseEvent) { showTip(h, h.tip()) }

// MouseMoved is part of desktop.Hoverable.
func (h *hoverTip) MouseMoved(*desktop.MouseEvent) {}

// MouseOut hides the tip.
func (h *hoverTip) MouseOut() { hideTip(h) }
