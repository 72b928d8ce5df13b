package config

import (
	"os"
	"path/filepath"
	"runtime"
)

// The models folder's default is the OS's per-user data location, not the config folder:
// models are gigabytes, and a config folder may roam (Windows' %APPDATA%) or be backed up.

// dataHome returns the per-user data location of goos, from the environment (getenv) and the
// home folder: %LOCALAPPDATA% on Windows (which does not roam), ~/Library/Application Support
// on macOS, $XDG_DATA_HOME elsewhere (when absolute, as the XDG spec asks) or ~/.local/share.
// It returns "" when neither the variable nor the home folder says where.
func dataHome(goos string, getenv func(string) string, home string) string {
	under := func(parts ...string) string {
		if home == "" {
			return ""
		}
		return filepath.Join(append([]string{home}, parts...)...)
	}
	switch goos {
	case "windows":
		if d := getenv("LOCALAPPDATA"); d != "" {
			return d
		}
		return under("AppData", "Local")
	case "darwin", "ios":
		return under("Library", "Application Support")
	default:
		if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
			return d
		}
		return under(".local", "share")
	}
}

// modelsDirIn is EdgeChat's models folder under the data location dataHome returns.
func modelsDirIn(goos string, getenv func(string) string, home string) string {
	if d := dataHome(goos, getenv, home); d != "" {
		return filepath.Join(d, "EdgeChat", "models")
	}
	return ""
}

// DefaultModelsDir is where downloads go when Settings.ModelsDir is empty: EdgeChat's
// "models" in the OS's per-user data location — %LOCALAPPDATA%\EdgeChat\models on Windows,
// ~/Library/Application Support/EdgeChat/models on macOS, $XDG_DATA_HOME/EdgeChat/models
// (~/.local/share/EdgeChat/models) elsewhere — or "" when the system has no home folder.
func DefaultModelsDir() string {
	home, _ := os.UserHomeDir()
	return modelsDirIn(runtime.GOOS, os.Getenv, home)
}

// EarlierModelsDir is where earlier versions of EdgeChat put downloads by default: the
// config folder's "models". Models there are still found and used where they are (they are
// not moved); "" when the system has no config folder.
func EarlierModelsDir() string {
	if d := appDir(); d != "" {
		return filepath.Join(d, "models")
	}
	return ""
}

// ModelsFolder returns s.ModelsDir, or DefaultModelsDir() when it is empty: where downloads go.
func (s Settings) ModelsFolder() string {
	if s.ModelsDir != "" {
		return s.ModelsDir
	}
	return DefaultModelsDir()
}

// ModelsFolders returns the folders that hold EdgeChat's downloads: ModelsFolder first, then
// the earlier default folder when it is another one.
func (s Settings) ModelsFolders() []string {
	var out []string
	for _, d := range []string{s.ModelsFolder(), EarlierModelsDir()} {
		if d != "" && !containsDir(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func containsDir(list []string, d string) bool {
	for _, x := range list {
		if filepath.Clean(x) == filepath.Clean(d) {
			return true
		}
	}
	return false
}
