package ui

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"

	"edgechat/history"
)

func bindingListener(f func()) binding.DataListener { return binding.NewDataListener(f) }

// key is one keyboard shortcut of the window: the menu that offers it (none for keys that
// only the help lists), what it does and the keys that do it. The menu, the canvas shortcuts
// and the Keyboard shortcuts help are all made from one table, so they cannot drift apart.
type key struct {
	menu  string // "File", "Chat", "View", "Help"; "" for keys handled elsewhere
	label string
	keys  []fyne.Shortcut // the first one is shown in the menu
	text  string          // for keys that are no shortcut (Esc, F1, Enter): how the help names them
	run   func()
}

// keyTable lists every key of the window, in the order of the menus and the help.
func (m *MainWindow) keyTable() []key {
	mod := fyne.KeyModifierShortcutDefault
	sc := func(k fyne.KeyName, mods ...fyne.KeyModifier) fyne.Shortcut {
		mm := mod
		for _, x := range mods {
			mm |= x
		}
		return &desktop.CustomShortcut{KeyName: k, Modifier: mm}
	}
	// Moving between chats uses Ctrl on every system, as browsers' tabs do.
	ctrl := func(k fyne.KeyName, shift bool) fyne.Shortcut {
		mm := fyne.KeyModifierControl
		if shift {
			mm |= fyne.KeyModifierShift
		}
		return &desktop.CustomShortcut{KeyName: k, Modifier: mm}
	}
	chat := m.ChatView
	t := []key{
		{menu: "File", label: "New chat", keys: []fyne.Shortcut{sc(fyne.KeyN)}, run: m.NewChat},
		{menu: "File", label: "Export as Markdown…", keys: []fyne.Shortcut{sc(fyne.KeyS)}, run: chat.export},
		{menu: "File", label: "Settings…", keys: []fyne.Shortcut{sc(fyne.KeyComma)}, run: m.ShowSettings},
		{menu: "Chat", label: "Focus message box", keys: []fyne.Shortcut{sc(fyne.KeyL)}, run: m.focusComposer},
		{menu: "Chat", label: "Search conversations", keys: []fyne.Shortcut{sc(fyne.KeyF)}, run: m.focusSearch},
		{menu: "Chat", label: "Choose the model…", keys: []fyne.Shortcut{sc(fyne.KeyM)}, run: m.showPicker},
		{menu: "Chat", label: "Stop the reply", text: "Esc", run: m.Chat.Stop},
		{menu: "Chat", label: "Regenerate last reply", keys: []fyne.Shortcut{sc(fyne.KeyR)}, run: chat.report(m.Chat.Regenerate)},
		{menu: "Chat", label: "Edit last message", keys: []fyne.Shortcut{sc(fyne.KeyE)}, run: chat.report(m.editLast)},
		{menu: "Chat", label: "Copy last reply", keys: []fyne.Shortcut{sc(fyne.KeyC, fyne.KeyModifierShift)}, run: chat.report(m.copyLastReply)},
		{menu: "Chat", label: "Select text of the last reply", keys: []fyne.Shortcut{sc(fyne.KeyA, fyne.KeyModifierShift)}, run: chat.report(m.selectLastReply)},
		{menu: "Chat", label: "Next chat", keys: []fyne.Shortcut{ctrl(fyne.KeyPageDown, false), ctrl(fyne.KeyTab, false)}, run: func() { m.stepChat(1) }},
		{menu: "Chat", label: "Previous chat", keys: []fyne.Shortcut{ctrl(fyne.KeyPageUp, false), ctrl(fyne.KeyTab, true)}, run: func() { m.stepChat(-1) }},
	}
	if m.ModelsView != nil {
		t = append(t, key{menu: "View", label: "Models", keys: []fyne.Shortcut{sc(fyne.KeyM, fyne.KeyModifierShift)}, run: m.showModelsByKey})
	}
	return append(t,
		key{label: "Send the message", text: "Enter"},
		key{label: "New line in the message", text: "Shift+Enter"},
		key{label: "Next / previous control", text: "Tab / Shift+Tab"},
		key{label: "Press the focused button, open the focused link", text: "Space"},
		key{label: "Menu of the focused link (Copy link address)", text: "Menu or Shift+F10"},
		key{label: "Select text of the focused reply (all of it)", text: "Enter (Ctrl+A)"},
		key{label: "Back to the formatted reply", text: "Esc"},
		key{menu: "Help", label: "Keyboard shortcuts", text: "F1", run: m.ShowKeys},
		key{menu: "Help", label: "About EdgeChat", run: m.ShowAbout},
	)
}

// installShortcuts adds the main menu and the keyboard shortcuts of keyTable (Cmd instead of
// Ctrl on macOS), Esc to stop and F1 for the list of keys.
func (m *MainWindow) installShortcuts() {
	menus := map[string][]*fyne.MenuItem{}
	for _, k := range m.keyTable() {
		for _, sc := range k.keys {
			f := k.run
			m.shortcuts[sc.ShortcutName()] = f
			m.Window.Canvas().AddShortcut(sc, func(fyne.Shortcut) { f() })
		}
		if k.menu == "" {
			continue
		}
		label := k.label
		if k.text != "" {
			label += " (" + k.text + ")"
		}
		item := fyne.NewMenuItem(label, k.run)
		if len(k.keys) > 0 {
			item.Shortcut = k.keys[0]
		}
		menus[k.menu] = append(menus[k.menu], item)
	}
	var main []*fyne.Menu
	for _, name := range []string{"File", "Chat", "View", "Help"} {
		if len(menus[name]) > 0 {
			main = append(main, fyne.NewMenu(name, menus[name]...))
		}
	}
	m.Window.SetMainMenu(fyne.NewMainMenu(main...))
	m.Window.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) { m.typedKey(k) })
	// The composer keeps focus most of the time; it passes these on instead of eating them.
	m.ChatView.Composer.onShortcut = m.TypedShortcut
	m.ChatView.Composer.onKey = m.typedKey
	m.ChatView.keys = windowKeys{shortcut: m.TypedShortcut, key: m.typedKey}
}

// typedKey handles the keys without modifier that are not shortcuts: Esc closes the list of
// keys or stops the reply, F1 opens the list.
// It reports whether k was one of them.
func (m *MainWindow) typedKey(k *fyne.KeyEvent) bool {
	switch k.Name {
	case fyne.KeyEscape:
		if !m.closeKeys() {
			m.Chat.Stop()
		}
	case fyne.KeyF1:
		m.ShowKeys()
	default:
		return false
	}
	return true
}

// TypedShortcut runs a window shortcut and reports whether s was one.
func (m *MainWindow) TypedShortcut(s fyne.Shortcut) bool {
	if f := m.shortcuts[s.ShortcutName()]; f != nil {
		f()
		return true
	}
	return false
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

// focusComposer shows the chat if another view is open and puts the cursor in the message box.
func (m *MainWindow) focusComposer() {
	m.focusChat()
	m.ChatView.FocusComposer()
}

// focusSearch puts the cursor in the sidebar's search (the sidebar is beside every view but
// the welcome page).
func (m *MainWindow) focusSearch() {
	if m.Window.Content() == m.main {
		m.Window.Canvas().Focus(m.SidebarView.Search)
	}
}

// editLast takes the last message back into the composer and puts the cursor there.
func (m *MainWindow) editLast() error {
	if err := m.Chat.EditLast(); err != nil {
		return err
	}
	m.focusComposer()
	return nil
}

// copyLastReply puts the last reply's answer on the clipboard.
func (m *MainWindow) copyLastReply() error {
	items, _ := m.Chat.Messages.Get()
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Role == "assistant" {
			m.app.Clipboard().SetContent(items[i].Text())
			return nil
		}
	}
	return errors.New("there is no reply to copy yet")
}

// selectLastReply shows the last reply's text for selecting, with the keyboard in it.
func (m *MainWindow) selectLastReply() error {
	items, _ := m.Chat.Messages.Get()
	for i := len(items) - 1; i >= 0; i-- {
		if b := m.ChatView.bubbles[items[i]]; b != nil && b.reply != nil {
			m.focusChat()
			b.reply.start(false)
			return nil
		}
	}
	return errors.New("there is no reply to select yet")
}

// focusChat shows the chat if another view is open.
func (m *MainWindow) focusChat() {
	if m.right.Objects[0] != m.ChatView.Content || m.Window.Content() != m.main {
		m.ShowChat()
	}
}

// stepChat opens the conversation after (+1) or before (-1) the open one in the sidebar,
// wrapping around; from a new chat, the first or the last.
func (m *MainWindow) stepChat(d int) {
	items := get[[]history.Summary](m.Sidebar.Items)
	if len(items) == 0 || m.Window.Content() != m.main {
		return
	}
	cur := get[string](m.Chat.CurrentID)
	i := -1
	for j, it := range items {
		if it.ID == cur {
			i = j
		}
	}
	switch {
	case i < 0 && d < 0:
		i = len(items) - 1
	case i < 0:
		i = 0
	default:
		i = (i + d + len(items)) % len(items)
	}
	m.open(items[i].ID)
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
