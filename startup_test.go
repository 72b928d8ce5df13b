package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"edgechat/config"
)

// startIn runs start-up with the settings file holding yaml, in a home of its own.
func startIn(t *testing.T, yaml string) (*starter, string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	cfg := filepath.Join(home, "settings.yaml")
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	st := &starter{app: test.NewTempApp(t), cfgFile: cfg, stop: func() {}}
	t.Cleanup(func() { st.stop() })
	st.start()
	return st, cfg
}

func button(t *testing.T, st *starter, label string) func() {
	t.Helper()
	if st.problem == nil {
		t.Fatal("no start-up problem shown")
	}
	for _, b := range st.problem.Buttons {
		if b.Text == label {
			return func() { test.Tap(b) }
		}
	}
	t.Fatalf("no %q button", label)
	return nil
}

// Settings that saved /dev/null/data open a window saying so, not one line on stderr; the
// default folder is a way out, and start-up then opens the chat window.
func TestStartupUnusableDataFolder(t *testing.T) {
	st, cfg := startIn(t, "data_dir: /dev/null/data\n")
	if st.main != nil || st.problem == nil {
		t.Fatal("the chat window opened on an unusable data folder")
	}
	text := windowText(st)
	for _, want := range []string{"cannot use its data folder", "/dev/null/data", "data_dir in " + cfg} {
		if !strings.Contains(text, want) {
			t.Errorf("problem window %q does not say %q", text, want)
		}
	}
	button(t, st, "Use the default folder")()
	if st.main == nil {
		t.Fatalf("the chat window did not open after Use the default folder (error: %q)", st.problem.Error.Text)
	}
	s, err := config.Open(cfg)
	if err != nil || s.Settings().DataDir != "" {
		t.Errorf("data_dir after Use the default folder = %q (%v), want it reset", s.Settings().DataDir, err)
	}
}

// A folder that cannot be used is refused with its reason, and the window stays.
func TestStartupChooseFolder(t *testing.T) {
	st, cfg := startIn(t, "data_dir: /dev/null/data\n")
	view := st.problem
	var choose func(string) error
	for _, a := range st.dataProblem("/dev/null/data", os.ErrInvalid).Actions {
		if a.Folder {
			choose = a.Do
		}
	}
	if choose == nil {
		t.Fatal("no Choose another folder action")
	}
	if err := choose("/dev/null"); err == nil {
		t.Error("a file was accepted as the data folder")
	}
	good := filepath.Join(t.TempDir(), "chats")
	if err := choose(good); err != nil {
		t.Fatalf("choosing %s: %v", good, err)
	}
	s, _ := config.Open(cfg)
	if s.Settings().DataDir != good {
		t.Errorf("data_dir = %q, want %q saved", s.Settings().DataDir, good)
	}
	if view.Window == nil {
		t.Error("no window")
	}
}

// An unreadable settings file (a folder here) opens the problem window; Start with default
// settings moves it aside and goes on.
func TestStartupUnreadableSettings(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	cfg := filepath.Join(home, "settings.yaml")
	if err := os.Mkdir(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	st := &starter{app: test.NewTempApp(t), cfgFile: cfg, stop: func() {}}
	t.Cleanup(func() { st.stop() })
	st.start()
	if st.main != nil || st.problem == nil {
		t.Fatal("no problem window for an unreadable settings file")
	}
	if text := windowText(st); !strings.Contains(text, cfg) {
		t.Errorf("problem window %q does not name %s", text, cfg)
	}
	button(t, st, "Start with default settings")()
	if st.main == nil {
		t.Fatalf("the chat window did not open (error: %q)", st.problem.Error.Text)
	}
	if matches, _ := filepath.Glob(cfg + ".unreadable-*"); len(matches) != 1 {
		t.Errorf("the unreadable settings were not kept aside: %v", matches)
	}
}

func windowText(st *starter) string { return st.problem.Title.Text + "\n" + st.problem.Message.Text }
