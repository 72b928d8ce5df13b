package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// composer is the multi-line message entry: Enter sends, Shift+Enter adds a line, Esc stops.
// Window shortcuts (Ctrl+N, Ctrl+,, Ctrl+L…) and F1 typed while it has focus are passed on.
type composer struct {
	widget.Entry
	shiftKey
	onSend     func()
	onEscape   func()
	onShortcut func(fyne.Shortcut) bool  // reports whether the window handled it
	onKey      func(*fyne.KeyEvent) bool // window keys without modifier (F1); reports whether handled
}

func newComposer() *composer {
	c := &composer{}
	c.MultiLine = true
	c.Wrapping = fyne.TextWrapWord
	c.SetMinRowsVisible(3)
	c.SetPlaceHolder(chatHint)
	c.ExtendBaseWidget(c)
	return c
}

// shiftKey tracks whether Shift is held while a widget has the keyboard (desktop only), from
// its key-down and key-up events: Fyne gives Shift alone no modifier a widget can read.
// Embedded, it is the widget's desktop.Keyable.
type shiftKey struct{ shift bool }

// KeyDown notes Shift.
func (s *shiftKey) KeyDown(e *fyne.KeyEvent) {
	if e.Name == desktop.KeyShiftLeft || e.Name == desktop.KeyShiftRight {
		s.shift = true
	}
}

// KeyUp notes Shift's release.
func (s *shiftKey) KeyUp(e *fyne.KeyEvent) {
	if e.Name == desktop.KeyShiftLeft || e.Name == desktop.KeyShiftRight {
		s.shift = false
	}
}

// KeyDown tracks Shift and lets the Entry select with it.
func (c *composer) KeyDown(k *fyne.KeyEvent) {
	c.shiftKey.KeyDown(k)
	c.Entry.KeyDown(k)
}

// KeyUp tracks Shift.
func (c *composer) KeyUp(k *fyne.KeyEvent) {
	c.shiftKey.KeyUp(k)
	c.Entry.KeyUp(k)
}

// TypedKey sends on Enter and stops on Esc; everything else edits.
func (c *composer) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		if !c.shift {
			if c.onSend != nil {
				c.onSend()
			}
			return
		}
	case fyne.KeyEscape:
		if c.onEscape != nil {
			c.onEscape()
		}
		return
	case fyne.KeyF1:
		if c.onKey != nil && c.onKey(k) {
			return
		}
	}
	c.Entry.TypedKey(k)
}

// TypedShortcut passes window shortcuts on; editing shortcuts go to the Entry.
func (c *composer) TypedShortcut(s fyne.Shortcut) {
	if _, ok := s.(*desktop.CustomShortcut); ok && c.onShortcut != nil && c.onShortcut(s) {
		return
	}
	c.Entry.TypedShortcut(s)
}

// AcceptsTab is false: Tab moves on to the Send button (Shift+Tab back) instead of typing a
// tab, so that keyboard users are not trapped in the message box, which has focus most of
// the time.
func (c *composer) AcceptsTab() bool { return false }
