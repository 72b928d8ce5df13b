package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"edgechat/history"
)

// Every icon-only button of the main views (sidebar, chat header, bubbles, composer,
// attachments, start-up banner) has words: it is a tipButton with a tip.
func TestIconButtonsHaveWords(t *testing.T) {
	m := chatWindow(t, "Plan a trip", "Pack a bag")
	src, indexed := withFiles(t, m.Chat)
	if err := m.Chat.Attach(writeDoc(t, src, "notes.txt", []byte("Take a map."))); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, indexed)
	for _, it := range get[[]history.Summary](m.Sidebar.Items) {
		if it.ID != get[string](m.Chat.CurrentID) {
			_ = m.Sidebar.Delete(it.ID) // another chat: the undo bar and its dismiss button
			break
		}
	}

	tips := map[string]bool{}
	walk(m.main, func(o fyne.CanvasObject) {
		switch b := o.(type) {
		case *widget.Button:
			if b.Text == "" && b.Icon != nil {
				t.Errorf("icon-only button %q has no words (make it a tipButton)", b.Icon.Name())
			}
		case *tipButton:
			if b.Tip == "" {
				t.Errorf("tip button %q has an empty tip", b.Icon.Name())
			}
			tips[b.Tip] = true
		}
	})
	// The walk reached each kind: a test that finds nothing proves nothing.
	for _, want := range []string{"Export as Markdown", "Settings", "Rename chat", "Delete chat", "Copy message",
		"Copy reply", "Details", "Select text", "Remove notes.txt", "Dismiss"} {
		if !tips[want] {
			t.Errorf("no button with the tip %q found", want)
		}
	}
}

// A tip shows while the pointer rests on the button or the keyboard is on it, and the
// keyboard stays where it was (a pop-up would have taken it).
func TestTipShowsWithoutTakingTheKeyboard(t *testing.T) {
	m := chatWindow(t, "Plan a trip")
	layer := m.main.(*fyne.Container).Objects[len(m.main.(*fyne.Container).Objects)-1].(*tipLayer)
	c := m.Window.Canvas()
	m.ChatView.FocusComposer()
	b := m.ChatView.Export
	// The delay fires when the test says, on the test's goroutine (the test driver's main).
	var pending []func()
	restore := afterTipDelay
	afterTipDelay = func(f func()) { pending = append(pending, f) }
	t.Cleanup(func() { afterTipDelay = restore })
	rest := func() {
		for _, f := range pending {
			f()
		}
		pending = nil
	}

	b.MouseIn(nil)
	if _, owner := layer.shown(); owner != nil {
		t.Error("the tip showed before the pointer rested on the button")
	}
	rest()
	if text, owner := layer.shown(); owner != b || text != "Export as Markdown" {
		t.Errorf("resting on Export shows %q", text)
	}
	if c.Focused() != m.ChatView.Composer {
		t.Error("showing the tip took the keyboard from the message box")
	}
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b)
	if layer.bg.Position().Y < pos.Y+b.Size().Height-1 || layer.bg.Position().X+layer.bg.Size().Width > layer.Size().Width+1 {
		t.Errorf("tip at %v size %v, button at %v: want it under the button, inside the window", layer.bg.Position(), layer.bg.Size(), pos)
	}
	b.MouseOut()
	if _, owner := layer.shown(); owner != nil {
		t.Error("the tip stayed after the pointer left")
	}

	// Leaving before the delay: no tip later.
	b.MouseIn(nil)
	b.MouseOut()
	rest()
	if _, owner := layer.shown(); owner != nil {
		t.Error("a tip showed after the pointer had left")
	}

	c.Focus(m.ChatView.Settings)
	if text, _ := layer.shown(); text != "Settings" {
		t.Errorf("the keyboard on Settings shows %q", text)
	}
	c.Focus(m.ChatView.Composer)
	if _, owner := layer.shown(); owner != nil {
		t.Error("the tip stayed after the keyboard left")
	}
}
