// Package ortenv finds, loads and initialises the one ONNX Runtime shared library a process
// uses, and reports which library that is.
package env

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/internal/paths"
)

// EnvVar names the environment variable that points at the ONNX Runtime library.
const EnvVar = "EDGECHAT_ORT_LIB"

// Source says where a library path came from.
type Source string

const (
	FromSetting    Source = "setting"
	FromEnv        Source = "environment"
	FromExecutable Source = "next to the executable"
	FromCache      Source = "cache"
)

// ErrNotFound is returned when no ONNX Runtime library can be found anywhere.
var ErrNotFound = errors.New("ONNX Runtime library not found")

// Locate finds the ONNX Runtime library: the setting if not empty, then $EDGECHAT_ORT_LIB, then
// the executable's folder, then the cache filled by tools/setup.sh. A setting or variable that
// names a missing file is an error, not a reason to look elsewhere.
func Locate(setting string) (string, Source, error) {
	check := func(p string, s Source) (string, Source, error) {
		st, err := os.Stat(p)
		if err != nil {
			return "", s, fmt.Errorf("ONNX Runtime library %s (from the %s) does not exist: choose the %s file of ONNX Runtime %s", p, s, paths.ORTLibraryName(), paths.ORTVersion)
		}
		if st.IsDir() {
			p = filepath.Join(p, paths.ORTLibraryName())
			if _, err := os.Stat(p); err != nil {
				return "", s, fmt.Errorf("the folder from the %s has no %s: choose the ONNX Runtime library file itself", s, paths.ORTLibraryName())
			}
		}
		return p, s, nil
	}
	if setting != "" {
		return check(setting, FromSetting)
	}
	if env := os.Getenv(EnvVar); env != "" {
		return check(env, FromEnv)
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), paths.ORTLibraryName())
		if _, err := os.Stat(p); err == nil {
			return p, FromExecutable, nil
		}
	}
	if p := paths.CachedORTLibrary(); fileExists(p) {
		return p, FromCache, nil
	}
	return "", "", fmt.Errorf("%w: put %s next to edgechat, set %s, or choose it in Settings (tools/setup.sh installs ONNX Runtime %s into %s)",
		ErrNotFound, paths.ORTLibraryName(), EnvVar, paths.ORTVersion, filepath.Dir(paths.CachedORTLibrary()))
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Info describes the library the process has loaded.
type Info struct {
	Path    string
	Source  Source
	Version string
}

var (
	mu     sync.Mutex
	loaded *Info
)

// Init loads and initialises ONNX Runtime once per process. Later calls return the loaded
// library's info; asking for a different library after one is loaded is an error that says a
// restart is needed (ONNX Runtime cannot be unloaded).
func Init(setting string) (Info, error) {
	mu.Lock()
	defer mu.Unlock()
	p, src, err := Locate(setting)
	if loaded != nil {
		if err == nil && setting != "" && p != loaded.Path {
			return *loaded, fmt.Errorf("ONNX Runtime is already loaded from %s; restart EdgeChat to use %s", loaded.Path, p)
		}
		return *loaded, nil
	}
	if err != nil {
		return Info{}, err
	}
	ort.SetSharedLibraryPath(p)
	if err := ort.InitializeEnvironment(); err != nil {
		return Info{}, fmt.Errorf("load ONNX Runtime from %s: %w (is it ONNX Runtime %s for this platform?)", p, err, paths.ORTVersion)
	}
	loaded = &Info{Path: p, Source: src, Version: ort.GetVersion()}
	return *loaded, nil
}

// Loaded returns the loaded library's info, if any.
func Loaded() (Info, bool) {
	mu.Lock()
	defer mu.Unlock()
	if loaded == nil {
		return Info{}, false
	}
	return *loaded, true
}
