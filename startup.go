package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"edgechat/config"
	"edgechat/history"
	"edgechat/ui"
)

// The start-up problems the window shows instead of exiting (starter in app.go).

// settingsFile is the settings file start-up reads.
func (st *starter) settingsFile() string {
	if st.cfgFile != "" {
		return st.cfgFile
	}
	return config.DefaultFile()
}

// settingsProblem: the settings file cannot be read at all (a damaged one is moved aside by
// config.Open itself, with a warning).
func (st *starter) settingsProblem(err error) ui.StartupProblem {
	file := st.settingsFile()
	retry := func(string) error {
		s, err := config.Open(st.cfgFile)
		if err != nil {
			return err
		}
		st.settings = s
		return nil
	}
	p := ui.StartupProblem{
		Title:   "EdgeChat cannot read its settings",
		Message: fmt.Sprintf("%v.\n\nSettings file: %s", err, file),
		Actions: []ui.StartupAction{{Label: "Try again", Do: retry}},
	}
	if file != "" {
		p.Actions = append(p.Actions,
			ui.StartupAction{Label: "Start with default settings", Do: func(string) error {
				moved := fmt.Sprintf("%s.unreadable-%s", file, time.Now().Format("20060102-150405"))
				if err := os.Rename(file, moved); err != nil {
					return fmt.Errorf("could not move %s aside: %v — rename or delete it yourself, then Try again", file, err)
				}
				return retry("")
			}},
			ui.StartupAction{Label: "Open the settings folder", Keep: true, Do: st.openFolder(filepath.Dir(file))})
	}
	return p
}

// dataProblem: the conversations folder cannot be opened or created.
func (st *starter) dataProblem(dir string, err error) ui.StartupProblem {
	source := fmt.Sprintf("It is the data folder set in Settings (data_dir in %s).", st.settings.Path())
	if st.dataDir != "" {
		source = "It was given with --data-dir."
	}
	use := func(folder string) error {
		if err := config.CheckDataDir(folder); err != nil {
			return err
		}
		if _, err := history.Open(folder); err != nil {
			return fmt.Errorf("cannot use %s: %v — choose another folder", folder, err)
		}
		if st.dataDir != "" {
			st.dataDir = folder // for this run, as --data-dir was
			return nil
		}
		s := st.settings.Settings()
		s.DataDir = folder
		if folder == config.DefaultDataDir() {
			s.DataDir = ""
		}
		if err := st.settings.Save(s); err != nil {
			return fmt.Errorf("could not save the new data folder in the settings: %v", err)
		}
		return nil
	}
	p := ui.StartupProblem{
		Title: "EdgeChat cannot use its data folder",
		Message: fmt.Sprintf("EdgeChat keeps your conversations in %s, but cannot use it:\n%v\n\n%s "+
			"Choose another folder (it is saved as the new data folder), or use the default one.", dir, err, source),
		Actions: []ui.StartupAction{{Label: "Choose another folder…", Folder: true, Do: use}},
	}
	if def := config.DefaultDataDir(); def != "" && filepath.Clean(def) != filepath.Clean(dir) {
		p.Actions = append(p.Actions, ui.StartupAction{Label: "Use the default folder", Do: func(string) error { return use(def) }})
	}
	p.Actions = append(p.Actions, ui.StartupAction{Label: "Open the settings folder", Keep: true, Do: st.openFolder(filepath.Dir(st.settings.Path()))})
	return p
}

// openFolder shows dir in the system's file manager.
func (st *starter) openFolder(dir string) func(string) error {
	return func(string) error {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		path := filepath.ToSlash(abs)
		if path[0] != '/' {
			path = "/" + path // C:/Users/… → /C:/Users/…
		}
		u := &url.URL{Scheme: "file", Path: path}
		if err := st.app.OpenURL(u); err != nil {
			return fmt.Errorf("could not open %s: %v", abs, err)
		}
		return nil
	}
}
