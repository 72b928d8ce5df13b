package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestModelsDirDefaults(t *testing.T) {
	home := filepath.Join("/", "home", "ann")
	tests := []struct {
		name, goos, home string
		env              map[string]string
		want             string
	}{
		{"windows", "windows", `C:\Users\ann`, map[string]string{"LOCALAPPDATA": `C:\Users\ann\AppData\Local`, "APPDATA": `C:\Users\ann\AppData\Roaming`},
			filepath.Join(`C:\Users\ann\AppData\Local`, "EdgeChat", "models")},
		{"windows without LOCALAPPDATA", "windows", home, nil, filepath.Join(home, "AppData", "Local", "EdgeChat", "models")},
		{"linux", "linux", home, nil, filepath.Join(home, ".local", "share", "EdgeChat", "models")},
		{"linux with XDG_DATA_HOME", "linux", home, map[string]string{"XDG_DATA_HOME": "/data/ann", "XDG_CONFIG_HOME": "/cfg"}, filepath.Join("/data/ann", "EdgeChat", "models")},
		{"linux with a relative XDG_DATA_HOME", "linux", home, map[string]string{"XDG_DATA_HOME": "data"}, filepath.Join(home, ".local", "share", "EdgeChat", "models")},
		{"freebsd", "freebsd", home, nil, filepath.Join(home, ".local", "share", "EdgeChat", "models")},
		{"macos", "darwin", home, map[string]string{"XDG_DATA_HOME": "/data/ann"}, filepath.Join(home, "Library", "Application Support", "EdgeChat", "models")},
		{"no home", "linux", "", nil, ""},
		{"no home, XDG_DATA_HOME set", "linux", "", map[string]string{"XDG_DATA_HOME": "/data/ann"}, filepath.Join("/data/ann", "EdgeChat", "models")},
		{"macos without home", "darwin", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := modelsDirIn(tt.goos, func(k string) string { return tt.env[k] }, tt.home)
			if got != tt.want {
				t.Errorf("modelsDirIn(%s) = %q, want %q", tt.goos, got, tt.want)
			}
		})
	}
}

// The default is no longer in the config folder; the earlier default is still searched.
func TestModelsFolders(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	s := Defaults()
	def, earlier := DefaultModelsDir(), EarlierModelsDir()
	if strings.HasPrefix(def, filepath.Join(home, "cfg")) {
		t.Errorf("DefaultModelsDir() = %q is in the config folder", def)
	}
	if diff := cmp.Diff([]string{def, earlier}, s.ModelsFolders()); diff != "" {
		t.Errorf("ModelsFolders (-want +got):\n%s", diff)
	}
	s.ModelsDir = filepath.Join(home, "big", "models")
	if diff := cmp.Diff([]string{s.ModelsDir, earlier}, s.ModelsFolders()); diff != "" {
		t.Errorf("ModelsFolders with a models folder set (-want +got):\n%s", diff)
	}
	s.ModelsDir = earlier + string(os.PathSeparator) // the earlier folder chosen again: listed once
	if got := s.ModelsFolders(); len(got) != 1 {
		t.Errorf("ModelsFolders with the earlier folder set = %q, want it once", got)
	}
}

func TestCheckModelsDir(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	writeFile(t, file, "x")
	tests := []struct {
		name, dir, want string // want: part of the error, "" for none
	}{
		{"existing folder", root, ""},
		{"to be created", filepath.Join(root, "new", "models"), ""},
		{"a file", file, "is a file — choose a folder for downloaded models"},
		{"under /dev/null", "/dev/null/models", "/dev/null is a file, not a folder"},
		{"empty", "", "the models folder is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckModelsDir(tt.dir)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("CheckModelsDir(%q) = %v, want an error containing %q", tt.dir, err, tt.want)
			}
		})
	}
	s := Defaults()
	s.ModelsDir = "/dev/null/models"
	if errs := s.Validate(); len(errs) != 1 || errs[0].Field != "models_dir" || !strings.Contains(errs[0].Message, "choose another folder") {
		t.Errorf("Validate with models_dir /dev/null/models = %v, want one models_dir error", errs)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(root, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := CheckModelsDir(filepath.Join(ro, "models")); err == nil || !strings.Contains(err.Error(), "cannot write in") {
			t.Errorf("CheckModelsDir under a read-only folder = %v, want cannot write", err)
		}
	}
}
