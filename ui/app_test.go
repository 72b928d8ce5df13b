package ui

import (
	"strings"
	"testing"

	"edgechat/reply"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
)

func newTestWindow(t *testing.T, s config.Settings) (*MainWindow, *memSettings) {
	t.Helper()
	a := test.NewTempApp(t)
	st := &memSettings{s: s}
	hs := newMemStore()
	m := New(a, Deps{
		Engine:   &fakeEngine{gen: script(reply.Summary{FinishReason: "stop", Backend: "cpu"}, text("ok"))},
		Settings: st, History: hs, NewSaver: hs.newSaver,
	})
	t.Cleanup(m.Chat.Close)
	return m, st
}

func TestMainWindowFirstRunShowsWelcome(t *testing.T) {
	m, _ := newTestWindow(t, config.Defaults())
	if m.Window.Content() != m.WelcomeView.Content {
		t.Fatal("no model configured, but the welcome page is not shown")
	}
	_ = m.Welcome.UseModel(modelDir(t))
	if m.Window.Content() != m.main {
		t.Error("choosing a model did not open the chat")
	}
}

func TestMainWindowShortcuts(t *testing.T) {
	s := config.Defaults()
	s.CPU.Model = modelDir(t)
	m, _ := newTestWindow(t, s)
	if m.Window.Content() != m.main || m.right.Objects[0] != m.ChatView.Content {
		t.Fatal("the chat is not shown with a model configured")
	}
	press := func(k fyne.KeyName) {
		m.Window.Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault})
	}
	press(fyne.KeyComma)
	if m.right.Objects[0] != m.SettingsView.Content {
		t.Error("Ctrl+, did not open the settings")
	}
	press(fyne.KeyN)
	if m.right.Objects[0] != m.ChatView.Content || get[string](m.Chat.Title) != NewChatTitle {
		t.Error("Ctrl+N did not open a new chat")
	}
	m.Window.Canvas().Unfocus()
	press(fyne.KeyL)
	if m.Window.Canvas().Focused() != m.ChatView.Composer {
		t.Error("Ctrl+L did not focus the composer")
	}
	// The composer passes window shortcuts on instead of eating them.
	m.ChatView.Composer.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyComma, Modifier: fyne.KeyModifierShortcutDefault})
	if m.right.Objects[0] != m.SettingsView.Content {
		t.Error("Ctrl+, typed in the composer did not open the settings")
	}
}

func TestMainWindowSendListsConversation(t *testing.T) {
	s := config.Defaults()
	s.CPU.Model = modelDir(t)
	m, _ := newTestWindow(t, s)
	test.Type(m.ChatView.Composer, "Plan a trip")
	m.ChatView.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	waitIdle(t, m.Chat)
	if got := titles(m.Sidebar); len(got) != 1 || got[0] != "Plan a trip" {
		t.Errorf("sidebar = %v, want the new conversation", got)
	}
}

func TestAboutShowsVersion(t *testing.T) {
	m, _ := newTestWindow(t, config.Defaults())
	m.deps.About = func() string { return "EdgeChat 9.9.9 (build 7)\nONNX Runtime: 1.30.0" }
	m.ShowAbout()
	overlays := m.Window.Canvas().Overlays().List()
	if len(overlays) == 0 {
		t.Fatal("no About dialog")
	}
	found := false
	for _, o := range overlays {
		walk(o, func(obj fyne.CanvasObject) {
			if l, ok := obj.(*widget.Label); ok && strings.Contains(l.Text, "EdgeChat 9.9.9") {
				found = true
			}
		})
	}
	if !found {
		t.Fatal("the About dialog does not show the version")
	}
}

// walk visits obj and every object inside it.
func walk(obj fyne.CanvasObject, f func(fyne.CanvasObject)) {
	f(obj)
	switch o := obj.(type) {
	case *fyne.Container:
		for _, c := range o.Objects {
			walk(c, f)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(o).Objects() {
			walk(c, f)
		}
	}
}

// The start-up dialog says what happened, as each problem reports it, and claims nothing
// else: a recovered save or a replaced setting was not "set aside".
func TestProblemsText(t *testing.T) {
	recovered := `conversation "Trip" was recovered from an interrupted save`
	setting := "settings.yaml: top_p is 7, but top-p must be more than 0 and at most 1; using the default, 0.95, instead"
	title, msg := problemsText([]string{recovered, setting}, []string{"port 8080 is taken"})
	for _, want := range []string{recovered, setting, "port 8080 is taken"} {
		if !strings.Contains(msg, want) {
			t.Errorf("dialog %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "set aside") || title == "Some saved data could not be read" {
		t.Errorf("dialog %q / %q claims files were set aside or unreadable", title, msg)
	}
}
