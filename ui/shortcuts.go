package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
)

func bindingListener(f func()) binding.DataListener { return binding.NewDataListener(f) }

// installShortcuts adds the menu and keyboard shortcuts: Ctrl+N new chat, Ctrl+, settings,
// Ctrl+L focus the composer, Ctrl+M the model picker, Esc stop (Cmd on macOS).
func (m *MainWindow) installShortcuts() {
	mod := fyne.KeyModifierShortcutDefault
	newChat := &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: mod}
	settings := &desktop.CustomShortcut{KeyName: fyne.KeyComma, Modifier: mod}
	focus := &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: mod}
	model := &desktop.CustomShortcut{KeyName: fyne.KeyM, Modifier: mod}
	for sc, f := range map[*desktop.CustomShortcut]func(){
		newChat:  m.NewChat,
		settings: m.ShowSettings,
		focus:    m.ChatView.FocusComposer,
		model:    m.showPicker,
	} {
		m.shortcuts[sc.ShortcutName()] = f
		m.Window.Canvas().AddShortcut(sc, func(fyne.Shortcut) { f() })
	}
	m.Window.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			m.Chat.Stop()
		}
	})
	// The composer keeps focus most of the time; it passes these on instead of eating them.
	m.ChatView.Composer.onShortcut = m.TypedShortcut

	item := func(label string, sc fyne.Shortcut, f func()) *fyne.MenuItem {
		i := fyne.NewMenuItem(label, f)
		i.Shortcut = sc
		return i
	}
	m.Window.SetMainMenu(fyne.NewMainMenu(
		fyne.NewMenu("File",
			item("New chat", newChat, m.NewChat),
			fyne.NewMenuItem("Export as Markdown…", m.ChatView.export),
			fyne.NewMenuItemSeparator(),
			item("Settings…", settings, m.ShowSettings),
		),
		fyne.NewMenu("Chat",
			item("Focus message box", focus, m.ChatView.FocusComposer),
			item("Choose the model…", model, m.showPicker),
			fyne.NewMenuItem("Stop (Esc)", m.Chat.Stop),
			fyne.NewMenuItem("Regenerate last reply", m.ChatView.report(m.Chat.Regenerate)),
			fyne.NewMenuItem("Edit last message", m.ChatView.report(m.Chat.EditLast)),
		),
		fyne.NewMenu("Help",
			fyne.NewMenuItem("About EdgeChat", m.ShowAbout),
		),
	))
}

// ShowAbout shows the version, commit and ONNX Runtime in use.
func (m *MainWindow) ShowAbout() {
	text := "EdgeChat"
	if m.deps.About != nil {
		text = m.deps.About()
	}
	dialog.ShowInformation("About EdgeChat", text+
		"\n\nRuns language models on this PC: the NPU first, the CPU as fallback.\nNo prompt leaves the machine.", m.Window)
}

// TypedShortcut runs a window shortcut and reports whether s was one.
func (m *MainWindow) TypedShortcut(s fyne.Shortcut) bool {
	if f := m.shortcuts[s.ShortcutName()]; f != nil {
		f()
		return true
	}
	return false
}

// showPicker opens the chat's model picker, showing the chat first (Ctrl+M).
func (m *MainWindow) showPicker() {
	if !HasModel(m.deps.Settings.Settings()) {
		return
	}
	if len(m.right.Objects) == 0 || m.right.Objects[0] != m.ChatView.Content || m.Window.Content() != m.main {
		m.ShowChat()
	}
	m.ChatView.ShowPicker()
}
