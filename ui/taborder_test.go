package ui

import (
	"testing"

	"fyne.io/fyne/v2"
)

// Tab moves through the window in reading order: the sidebar (New chat, search, the list),
// then the chat down to the message box and Send, and around again; the message box lets
// Tab out.
func TestTabOrder(t *testing.T) {
	m := chatWindow(t, "first", "second")
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
