package ui

import (
	"reflect"
	"testing"

	"fyne.io/fyne/v2"

	"edgechat/config"
)

// Tab moves through the window in reading order: the sidebar (New chat, search, the list),
// then the chat down to the message box and Send, and around again; the message box lets
// Tab out.
func TestTabOrder(t *testing.T) {
	m := chatWindow(t, "first", "second")
	_ = m.ChatView.vm.Draft.Set("Hello") // Send is a stop once there is something to send
	c := m.Window.Canvas()
	want := []fyne.Focusable{m.SidebarView.New, m.SidebarView.Search, m.SidebarView.List, m.ChatView.Composer, m.ChatView.SendButton}
	c.Unfocus()
	var got []fyne.Focusable
	for range 40 {
		c.FocusNext()
		got = append(got, c.Focused())
		if c.Focused() == m.ChatView.SendButton {
			break
		}
	}
	i := 0
	for _, f := range got {
		if i < len(want) && f == want[i] {
			i++
		}
	}
	if i < len(want) || got[0] != want[0] {
		t.Errorf("Tab visits %d of the main controls in order (stuck before %T); order: %T", i, want[min(i, len(want)-1)], got)
	}
	c.FocusNext()
	if c.Focused() != m.SidebarView.New {
		t.Errorf("Tab after Send went to %T, want New chat", c.Focused())
	}
	if m.ChatView.Composer.AcceptsTab() {
		t.Error("the message box takes Tab: keyboard users cannot leave it")
	}
}

// Opening the settings or the models takes the focus from the message box: a message box
// that still thought it had focus kept its cursor blinking unseen, redrawing the window.
func TestOtherViewsTakeTheMessageBoxFocus(t *testing.T) {
	lib := &fakeLibrary{}
	s := config.Defaults()
	s.CPU.Model = modelDir(t)
	m, _ := newModelsWindow(t, s, lib)
	entryFocused := func() bool {
		f := reflect.ValueOf(&m.ChatView.Composer.Entry).Elem().FieldByName("focused")
		if !f.IsValid() {
			t.Fatal("Fyne's Entry has no focused field any more: check whether a replaced view's entry still blinks, and update this test")
		}
		return f.Bool()
	}
	for _, tc := range []struct {
		name string
		show func()
	}{
		{"settings", m.ShowSettings},
		{"models", m.ShowModels},
	} {
		m.ShowChat()
		if !entryFocused() {
			t.Fatal("the chat did not focus the message box")
		}
		tc.show()
		if entryFocused() {
			t.Errorf("%s: the message box still has focus", tc.name)
		}
	}
}
