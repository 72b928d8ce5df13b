package ui

import (
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// ShowKeys shows every key of the window (keyTable), with the menu that offers it (F1);
// Esc or Close closes it.
func (m *MainWindow) ShowKeys() {
	if m.keysHelp != nil {
		return
	}
	rows := container.New(layout.NewFormLayout())
	for _, k := range m.keyTable() {
		keys := widget.NewLabel(keysText(k))
		keys.TextStyle.Bold = true
		what := k.label
		if k.menu != "" {
			what += " — " + k.menu + " menu"
		}
		rows.Add(keys)
		rows.Add(widget.NewLabel(what))
	}
	d := dialog.NewCustom("Keyboard shortcuts", "Close", container.NewVScroll(rows), m.Window)
	d.Resize(fyne.NewSize(560, 560))
	d.SetOnClosed(func() {
		m.keysHelp = nil
		if m.Window.Content() == m.main && m.right.Objects[0] == m.ChatView.Content {
			m.ChatView.FocusComposer()
		}
	})
	m.keysHelp = d
	d.Show()
	// Keys go to the window while the list is open, so that Esc closes it (typedKey).
	m.Window.Canvas().Unfocus()
}

// closeKeys closes the list of keys if it is open and reports whether it was.
func (m *MainWindow) closeKeys() bool {
	if m.keysHelp == nil {
		return false
	}
	m.keysHelp.Hide()
	return true
}

// keysText names the keys of k as a person types them: "Ctrl+Shift+C", "Ctrl+PageDown or
// Ctrl+Tab", "Esc".
func keysText(k key) string {
	if k.text != "" {
		return k.text
	}
	names := make([]string, 0, len(k.keys))
	for _, sc := range k.keys {
		names = append(names, shortcutText(sc))
	}
	return strings.Join(names, " or ")
}

// shortcutText names one shortcut: its modifiers, then its key.
func shortcutText(sc fyne.Shortcut) string {
	c, ok := sc.(*desktop.CustomShortcut)
	if !ok {
		return sc.ShortcutName()
	}
	var b strings.Builder
	for _, mod := range []struct {
		m    fyne.KeyModifier
		name string
	}{
		{fyne.KeyModifierControl, "Ctrl"},
		{fyne.KeyModifierAlt, "Alt"},
		{fyne.KeyModifierShift, "Shift"},
		{fyne.KeyModifierSuper, superName()},
	} {
		if c.Modifier&mod.m != 0 {
			b.WriteString(mod.name + "+")
		}
	}
	name := string(c.KeyName)
	switch c.KeyName {
	case fyne.KeyComma:
		name = ","
	case fyne.KeyPageDown:
		name = "Page Down"
	case fyne.KeyPageUp:
		name = "Page Up"
	}
	b.WriteString(name)
	return b.String()
}

func superName() string {
	if runtime.GOOS == "darwin" {
		return "Cmd"
	}
	return "Win"
}
