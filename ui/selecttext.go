package ui

import (
	"image/color"
	"math"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// selectText shows plain text, wrapped by this package's wrapper (as the replies are), that
// the user can select and copy but not change: drag, double-click a word, Shift with the
// arrows, Home, End; Ctrl+A selects all, Ctrl+C copies the selection, the right-click menu
// does both. Fyne 2.7 has no such widget: a Label's selection has no Ctrl+A, no keyboard
// and wraps with RichText's own word wrap; an Entry can be edited and, wrapped, scrolls
// inside a box of fixed height instead of growing with its text.
// Used on the main goroutine only.
type selectText struct {
	widget.BaseWidget
	text  string
	rows  []textRow // the drawn rows at width
	width float32

	anchor, caret int // byte offsets in text; the selection is between them
	focused       bool
	shiftKey      // Shift is held: the arrows select (desktop.Keyable)

	drag     dragScroll              // scrolls the transcript while a drag is past its edge
	onEscape func()                  // Esc (nil: Esc goes to the window)
	menu     func() []*fyne.MenuItem // extra items of the right-click menu
	keys     *windowKeys             // keys this widget does not use go to the window
}

// textRow is one drawn row: bytes [start, end) of the text. The spaces where a row was
// wrapped and the "\n" that ended it lie between rows.
type textRow struct{ start, end int }

// windowKeys hands keys a focused widget does not use on to the window (shortcuts.go).
type windowKeys struct {
	shortcut func(fyne.Shortcut) bool
	key      func(*fyne.KeyEvent) bool
}

func (k *windowKeys) typedShortcut(s fyne.Shortcut) {
	if k != nil && k.shortcut != nil {
		k.shortcut(s)
	}
}

func (k *windowKeys) typedKey(e *fyne.KeyEvent) {
	if k != nil && k.key != nil {
		k.key(e)
	}
}

// newSelectText shows text; scroll (may be nil) is the scroller around it, which a drag
// past its top or bottom scrolls (dragscroll.go).
func newSelectText(text string, scroll *container.Scroll) *selectText {
	s := &selectText{text: text}
	s.drag = dragScroll{scroll: scroll, follow: s.followPointer}
	s.ExtendBaseWidget(s)
	s.rewrap()
	return s
}

// setText replaces the text (a reply that goes on streaming), keeping the selection where
// it still fits.
func (s *selectText) setText(text string) {
	if text == s.text {
		return
	}
	s.text = text
	s.anchor, s.caret = min(s.anchor, len(text)), min(s.caret, len(text))
	old := len(s.rows)
	s.rewrap()
	s.Refresh()
	if len(s.rows) != old {
		canvas.Refresh(s) // taller or shorter: the parents lay out again
	}
}

// Selected is the selected text, as written.
func (s *selectText) Selected() string {
	a, b := s.selection()
	return s.text[a:b]
}

// SelectAll selects the whole text.
func (s *selectText) SelectAll() {
	s.anchor, s.caret = 0, len(s.text)
	s.Refresh()
}

func (s *selectText) selection() (int, int) { return min(s.anchor, s.caret), max(s.anchor, s.caret) }

func (s *selectText) copySelection() {
	t := s.Selected()
	if t == "" {
		return
	}
	fyne.CurrentApp().Clipboard().SetContent(t)
}

func (s *selectText) textSize() float32 { return theme.TextSize() }

func (s *selectText) rowHeight() float32 {
	return fyne.MeasureText("M", s.textSize(), fyne.TextStyle{}).Height
}

func (s *selectText) measure(t string) float32 {
	return fyne.MeasureText(t, s.textSize(), fyne.TextStyle{}).Width
}

// rewrap computes the rows for the current width.
func (s *selectText) rewrap() {
	w := s.width - 2*theme.InnerPadding() - 1
	s.rows = wrapRows(s.text, w, func(t string, st widget.RichTextStyle) float32 { return measureText(t, st) })
}

// wrapRows cuts text into rows no wider than width (0 or less: only at "\n") with the same
// wrapper that lays out replies. The wrapper turns the spaces at a wrap point into "\n", or
// puts a "\n" between two characters; reading its output beside text gives the rows.
func wrapRows(text string, width float32, measure func(string, widget.RichTextStyle) float32) []textRow {
	out := text
	if width > 0 {
		seg := &widget.TextSegment{Style: widget.RichTextStyleInline, Text: text}
		wr := &wrapper{width: width, measure: measure}
		out = wr.segments([]widget.RichTextSegment{seg})[0].(*widget.TextSegment).Text
	}
	var rows []textRow
	start, j := 0, 0
	for i := 0; i < len(out); i++ {
		if j < len(text) && out[i] == text[j] {
			if out[i] == '\n' {
				rows = append(rows, textRow{start, j})
				start = j + 1
			}
			j++
			continue
		}
		// A wrap point: the run of spaces it replaced, if any, lies between the rows.
		rows = append(rows, textRow{start, j})
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if r == '\n' || !unicode.IsSpace(r) {
				break
			}
			j += n
		}
		start = j
	}
	return append(rows, textRow{start, len(text)})
}

// MinSize is as narrow as a word and as tall as the text wrapped at the current width.
func (s *selectText) MinSize() fyne.Size {
	p := theme.InnerPadding()
	return fyne.NewSize(2*p+theme.TextSize(), 2*p+float32(len(s.rows))*s.rowHeight())
}

// Resize re-wraps the text when the width changes.
func (s *selectText) Resize(size fyne.Size) {
	if size.Width != s.width {
		s.width = size.Width
		old := len(s.rows)
		s.rewrap()
		if len(s.rows) != old {
			defer canvas.Refresh(s)
		}
	}
	s.BaseWidget.Resize(size)
}

// rowAt is the row under y (clamped to the text).
func (s *selectText) rowAt(y float32) int {
	r := int((y - theme.InnerPadding()) / s.rowHeight())
	return max(0, min(r, len(s.rows)-1))
}

// offsetAt is the text offset nearest to p: the boundary between characters closest to x.
func (s *selectText) offsetAt(p fyne.Position) int {
	row := s.rows[s.rowAt(p.Y)]
	x := p.X - theme.InnerPadding()
	prev := float32(0)
	for i := row.start; i < row.end; {
		_, n := utf8.DecodeRuneInString(s.text[i:])
		w := s.measure(s.text[row.start : i+n])
		if x < (prev+w)/2 {
			return i
		}
		prev = w
		i += n
	}
	return row.end
}

// rowOf is the row that holds offset o (an offset between rows belongs to the row before).
func (s *selectText) rowOf(o int) int {
	for i, r := range s.rows {
		if o <= r.end {
			return i
		}
	}
	return len(s.rows) - 1
}

// moveTo puts the caret at o, extending the selection when extend is set.
func (s *selectText) moveTo(o int, extend bool) {
	s.caret = max(0, min(o, len(s.text)))
	if !extend {
		s.anchor = s.caret
	}
	s.Refresh()
}

func (s *selectText) requestFocus() {
	if c := fyne.CurrentApp().Driver().CanvasForObject(s); c != nil && c.Focused() != s {
		c.Focus(s)
	}
}

// MouseDown starts a selection (Shift extends the one there is).
func (s *selectText) MouseDown(e *desktop.MouseEvent) {
	if e.Button != desktop.MouseButtonPrimary {
		return
	}
	s.requestFocus()
	s.moveTo(s.offsetAt(e.Position), s.shift || e.Modifier&fyne.KeyModifierShift != 0)
}

// MouseUp is part of desktop.Mouseable.
func (s *selectText) MouseUp(*desktop.MouseEvent) {}

// Dragged extends the selection to the pointer, and scrolls while it is past the top or the
// bottom of the scroller.
func (s *selectText) Dragged(e *fyne.DragEvent) {
	s.drag.moved(e.AbsolutePosition)
	s.followPointer()
}

// followPointer extends the selection to the text under the pointer. It reads where the
// text is now: the driver's e.Position does not follow the scroller's offset.
func (s *selectText) followPointer() {
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(s)
	s.moveTo(s.offsetAt(s.drag.pointer.Subtract(at)), true)
}

// DragEnd stops scrolling and keeps the keyboard here for Ctrl+C: the desktop driver takes
// the focus away when the button is let go over something that cannot have it (the header
// above the transcript), just before it calls DragEnd.
func (s *selectText) DragEnd() {
	s.drag.end()
	s.requestFocus()
}

// DoubleTapped selects the word under the pointer.
func (s *selectText) DoubleTapped(e *fyne.PointEvent) {
	o := s.offsetAt(e.Position)
	row := s.rows[s.rowOf(o)]
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }
	a, b := o, o
	for a > row.start {
		r, n := utf8.DecodeLastRuneInString(s.text[row.start:a])
		if !isWord(r) {
			break
		}
		a -= n
	}
	for b < row.end {
		r, n := utf8.DecodeRuneInString(s.text[b:row.end])
		if !isWord(r) {
			break
		}
		b += n
	}
	s.anchor = a
	s.moveTo(b, true)
}

// TappedSecondary shows Copy, Select all and the owner's items.
func (s *selectText) TappedSecondary(e *fyne.PointEvent) {
	c := fyne.CurrentApp().Driver().CanvasForObject(s)
	if c == nil {
		return
	}
	copyItem := fyne.NewMenuItem("Copy", s.copySelection)
	copyItem.Disabled = s.Selected() == ""
	items := []*fyne.MenuItem{copyItem, fyne.NewMenuItem("Select all", s.SelectAll)}
	if s.menu != nil {
		items = append(items, fyne.NewMenuItemSeparator())
		items = append(items, s.menu()...)
	}
	widget.ShowPopUpMenuAtPosition(fyne.NewMenu("", items...), c, e.AbsolutePosition)
}

// Cursor is the text cursor.
func (s *selectText) Cursor() desktop.Cursor { return desktop.TextCursor }

// FocusGained shows the focus.
func (s *selectText) FocusGained() {
	s.focused = true
	s.Refresh()
}

// FocusLost hides the focus; the selection stays.
func (s *selectText) FocusLost() {
	s.focused, s.shift = false, false
	s.Refresh()
}

// TypedRune ignores typing: the text is read-only.
func (s *selectText) TypedRune(rune) {}

// TypedKey moves the caret (selecting with Shift); Esc calls onEscape.
func (s *selectText) TypedKey(e *fyne.KeyEvent) {
	if e.Name == fyne.KeyEscape && s.onEscape != nil {
		s.onEscape()
		return
	}
	if !s.moveKey(e.Name, s.shift) {
		s.keys.typedKey(e)
	}
}

// moveKey moves the caret for an arrow, Home, End, PageUp or PageDown.
func (s *selectText) moveKey(k fyne.KeyName, extend bool) bool {
	row := s.rowOf(s.caret)
	a, b := s.selection()
	switch k {
	case fyne.KeyLeft:
		if a != b && !extend {
			s.moveTo(a, false)
			return true
		}
		_, n := utf8.DecodeLastRuneInString(s.text[:s.caret])
		s.moveTo(s.caret-n, extend)
	case fyne.KeyRight:
		if a != b && !extend {
			s.moveTo(b, false)
			return true
		}
		_, n := utf8.DecodeRuneInString(s.text[s.caret:])
		s.moveTo(s.caret+n, extend)
	case fyne.KeyUp, fyne.KeyDown:
		to := row - 1
		if k == fyne.KeyDown {
			to = row + 1
		}
		if to < 0 || to >= len(s.rows) {
			return true
		}
		x := s.measure(s.text[s.rows[row].start:s.caret])
		y := theme.InnerPadding() + (float32(to)+0.5)*s.rowHeight()
		s.moveTo(s.offsetAt(fyne.NewPos(theme.InnerPadding()+x, y)), extend)
	case fyne.KeyHome:
		s.moveTo(s.rows[row].start, extend)
	case fyne.KeyEnd:
		s.moveTo(s.rows[row].end, extend)
	case fyne.KeyPageUp:
		s.moveTo(0, extend)
	case fyne.KeyPageDown:
		s.moveTo(len(s.text), extend)
	default:
		return false
	}
	return true
}

// TypedShortcut: Ctrl+C copies, Ctrl+A selects all, Shift with a moving key selects; the
// others are the window's.
func (s *selectText) TypedShortcut(sc fyne.Shortcut) {
	switch sc := sc.(type) {
	case *fyne.ShortcutCopy:
		s.copySelection()
		return
	case *fyne.ShortcutSelectAll:
		s.SelectAll()
		return
	case *desktop.CustomShortcut:
		if sc.Modifier == fyne.KeyModifierShift && s.moveKey(sc.KeyName, true) {
			return
		}
	}
	s.keys.typedShortcut(sc)
}

func (s *selectText) CreateRenderer() fyne.WidgetRenderer {
	r := &selectTextRenderer{s: s, focus: canvas.NewRectangle(color.Transparent)}
	r.focus.StrokeWidth = theme.InputBorderSize()
	r.focus.CornerRadius = theme.InputRadiusSize()
	r.Refresh()
	return r
}

type selectTextRenderer struct {
	s     *selectText
	focus *canvas.Rectangle
	marks []*canvas.Rectangle // selection, one per row it covers
	texts []*canvas.Text      // one per row
	objs  []fyne.CanvasObject
}

func (r *selectTextRenderer) Destroy() {}

func (r *selectTextRenderer) MinSize() fyne.Size { return r.s.MinSize() }

func (r *selectTextRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *selectTextRenderer) Layout(fyne.Size) { r.place() }

// Refresh rebuilds the rows and the selection marks.
func (r *selectTextRenderer) Refresh() {
	s := r.s
	fg := theme.Color(theme.ColorNameForeground)
	for len(r.texts) < len(s.rows) {
		r.texts = append(r.texts, canvas.NewText("", fg))
	}
	r.texts = r.texts[:len(s.rows)]
	for i, row := range s.rows {
		t := r.texts[i]
		t.Text, t.Color, t.TextSize = s.text[row.start:row.end], fg, s.textSize()
	}
	r.focus.StrokeColor = color.Transparent
	if s.focused {
		r.focus.StrokeColor = theme.Color(theme.ColorNameFocus)
	}
	r.place()
	for _, t := range r.texts {
		t.Refresh()
	}
	r.focus.Refresh()
}

// place positions the rows and the selection.
func (r *selectTextRenderer) place() {
	s := r.s
	p, h := theme.InnerPadding(), s.rowHeight()
	// Rows on whole device pixels: the painter scales a text placed between two (pixelalign.go).
	scale := pixelScale(s)
	rowY := func(i int) float32 { return float32(math.Round(float64((p+float32(i)*h)*scale))) / scale }
	r.focus.Resize(s.Size())
	for i, t := range r.texts {
		t.Move(fyne.NewPos(p, rowY(i)))
		t.Resize(fyne.NewSize(s.Size().Width-2*p, h))
	}
	a, b := s.selection()
	r.marks = r.marks[:0]
	sel := theme.Color(theme.ColorNameSelection)
	for i, row := range s.rows {
		from, to := max(a, row.start), min(b, row.end)
		if a == b || !(from < to || (a <= row.end && b > row.end)) {
			continue // nothing of this row is selected
		}
		x1 := s.measure(s.text[row.start:from])
		x2 := s.measure(s.text[row.start:to])
		if b > row.end {
			x2 += s.measure(" ") // the selection goes on past the end of the row
		}
		m := canvas.NewRectangle(sel)
		m.Move(fyne.NewPos(p+x1, rowY(i)))
		m.Resize(fyne.NewSize(x2-x1, h))
		r.marks = append(r.marks, m)
	}
	r.objs = r.objs[:0]
	r.objs = append(r.objs, r.focus)
	for _, m := range r.marks {
		r.objs = append(r.objs, m)
	}
	for _, t := range r.texts {
		r.objs = append(r.objs, t)
	}
}
