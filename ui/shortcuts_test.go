package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
)

// chatWindow is a window with a model set and the given messages sent, one conversation each.
func chatWindow(t *testing.T, messages ...string) *MainWindow {
	t.Helper()
	s := config.Defaults()
	s.CPU.Model = modelDir(t)
	m, _ := newTestWindow(t, s)
	for _, msg := range messages {
		m.NewChat()
		if err := m.Chat.Send(msg); err != nil {
			t.Fatal(err)
		}
		waitIdle(t, m.Chat)
	}
	return m
}

func press(m *MainWindow, k fyne.KeyName, mod fyne.KeyModifier) {
	m.Window.Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: mod})
}

func TestShortcutsChatActions(t *testing.T) {
	mod := fyne.KeyModifierShortcutDefault
	m := chatWindow(t, "Plan a trip")

	press(m, fyne.KeyC, mod|fyne.KeyModifierShift)
	if got := m.app.Clipboard().Content(); got != "ok" {
		t.Errorf("Ctrl+Shift+C copied %q, want the last reply %q", got, "ok")
	}

	press(m, fyne.KeyR, mod)
	waitIdle(t, m.Chat)
	if items, _ := m.Chat.Messages.Get(); len(items) != 2 || items[1].Text() != "ok" {
		t.Errorf("after Ctrl+R: %d messages, want the question and a new reply", len(items))
	}

	m.Window.Canvas().Unfocus()
	press(m, fyne.KeyE, mod)
	if got := get[string](m.Chat.Draft); got != "Plan a trip" {
		t.Errorf("Ctrl+E draft = %q, want the last message back", got)
	}
	if m.Window.Canvas().Focused() != m.ChatView.Composer {
		t.Error("Ctrl+E did not put the cursor in the message box")
	}
	if items, _ := m.Chat.Messages.Get(); len(items) != 0 {
		t.Errorf("after Ctrl+E: %d messages, want none", len(items))
	}
	// Nothing left to regenerate or copy: the chat says so instead of doing nothing.
	press(m, fyne.KeyC, mod|fyne.KeyModifierShift)
	if got := get[string](m.Chat.Error); !strings.Contains(got, "no reply to copy") {
		t.Errorf("Ctrl+Shift+C with no reply: error %q", got)
	}

	press(m, fyne.KeyF, mod)
	if m.Window.Canvas().Focused() != m.SidebarView.Search {
		t.Error("Ctrl+F did not focus the search")
	}
	press(m, fyne.KeyComma, mod)
	press(m, fyne.KeyL, mod)
	if m.right.Objects[0] != m.ChatView.Content || m.Window.Canvas().Focused() != m.ChatView.Composer {
		t.Error("Ctrl+L from the settings did not show the chat with the cursor in the message box")
	}
}

func TestShortcutsMoveBetweenChats(t *testing.T) {
	m := chatWindow(t, "first", "second", "third")
	order := titles(m.Sidebar)
	if len(order) != 3 {
		t.Fatalf("sidebar = %v", order)
	}
	at := func() string { return get[string](m.Chat.Title) }
	ctrl := fyne.KeyModifierControl
	steps := []struct {
		name string
		key  fyne.KeyName
		mod  fyne.KeyModifier
		step int
	}{
		{"Ctrl+PageDown", fyne.KeyPageDown, ctrl, 1},
		{"Ctrl+PageDown", fyne.KeyPageDown, ctrl, 1},
		{"Ctrl+Tab", fyne.KeyTab, ctrl, 1},
		{"Ctrl+PageUp", fyne.KeyPageUp, ctrl, -1},
		{"Ctrl+Shift+Tab", fyne.KeyTab, ctrl | fyne.KeyModifierShift, -1},
		{"Ctrl+Shift+Tab", fyne.KeyTab, ctrl | fyne.KeyModifierShift, -1},
	}
	i := slices.Index(order, at())
	if i < 0 {
		t.Fatalf("open chat %q is not in the sidebar %v", at(), order)
	}
	for _, s := range steps {
		press(m, s.key, s.mod)
		i = (i + s.step + len(order)) % len(order) // wrapping around at both ends
		if at() != order[i] {
			t.Errorf("%s: open chat %q, want %q (sidebar %v)", s.name, at(), order[i], order)
		}
	}
	m.NewChat()
	press(m, fyne.KeyPageUp, ctrl)
	if at() != order[2] {
		t.Errorf("Ctrl+PageUp from a new chat opened %q, want the last %q", at(), order[2])
	}
	m.NewChat()
	press(m, fyne.KeyPageDown, ctrl)
	if at() != order[0] {
		t.Errorf("Ctrl+PageDown from a new chat opened %q, want the first %q", at(), order[0])
	}
}

func TestShortcutsModelsView(t *testing.T) {
	lib := &fakeLibrary{}
	s := config.Defaults()
	s.CPU.Model = modelDir(t)
	m, _ := newModelsWindow(t, s, lib)
	press(m, fyne.KeyM, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift)
	if m.right.Objects[0] != m.ModelsView.Content {
		t.Fatal("Ctrl+Shift+M did not open the Models view")
	}
	test.Tap(findButton(m.ModelsView.Content, "Back"))
	if m.right.Objects[0] != m.ChatView.Content {
		t.Error("Back after Ctrl+Shift+M did not return to the chat")
	}
}

// The menu, the shortcuts and the help are one table: every menu shortcut works and every
// key is in the help.
func TestShortcutsMenuAndHelpAgree(t *testing.T) {
	m := chatWindow(t)
	for _, menu := range m.Window.MainMenu().Items {
		for _, it := range menu.Items {
			if it.Shortcut != nil && m.shortcuts[it.Shortcut.ShortcutName()] == nil {
				t.Errorf("%s › %s: its shortcut is not installed", menu.Label, it.Label)
			}
		}
	}
	m.Window.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyF1})
	help := labels(m.Window.Canvas().Overlays().Top())
	for _, k := range m.keyTable() {
		if !strings.Contains(help, keysText(k)) || !strings.Contains(help, k.label) {
			t.Errorf("the help does not list %q (%s)", k.label, keysText(k))
		}
	}
	if !strings.Contains(help, "Ctrl+Shift+C") && !strings.Contains(help, "Cmd+Shift+C") {
		t.Errorf("help names keys oddly:\n%s", help)
	}
	// Esc closes it, and the cursor is back in the message box.
	m.Window.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if m.Window.Canvas().Overlays().Top() != nil {
		t.Fatal("Esc did not close the list of keys")
	}
	if m.Window.Canvas().Focused() != m.ChatView.Composer {
		t.Error("after the list of keys closed, the message box has no focus")
	}

	// F1 also works while typing a message, and opens one list only.
	m.ChatView.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyF1})
	m.Window.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyF1})
	if n := len(m.Window.Canvas().Overlays().List()); n != 1 {
		t.Errorf("F1 in the message box, then F1: %d dialogs, want the list of keys once", n)
	}
}

func labels(o fyne.CanvasObject) string {
	var b strings.Builder
	if o == nil {
		return ""
	}
	walk(o, func(x fyne.CanvasObject) {
		if l, ok := x.(*widget.Label); ok {
			b.WriteString(l.Text + "\n")
		}
	})
	return b.String()
}
