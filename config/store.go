package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/viper"

	"edgechat/internal/atomicfile"
)

// Store holds the settings file, the environment overrides in effect and the resulting
// Settings. It is safe for concurrent use.
type Store struct {
	path string

	mu       sync.Mutex
	file     map[string]any // flat keys → values exactly as read (unknown keys included)
	env      map[string]any // flat keys → valid EDGECHAT_* overrides
	settings Settings
	opened   []string // warnings from Open that stay true (file moved aside, bad env values)
	loaded   []string // warnings about the file's current contents
}

// fileHeader starts every file Save writes.
const fileHeader = "# EdgeChat settings. Edit with the app closed, or use Settings in the app.\n" +
	"# EDGECHAT_* environment variables override these values (EDGECHAT_CPU_MODEL for cpu.model).\n"

// Open reads the settings file (file "" means DefaultFile()) and applies EDGECHAT_* overrides.
//
// A missing file gives the defaults. A file that cannot be parsed is renamed to
// FILE.corrupt-<timestamp> (its bytes are kept) and the defaults are used; Warnings says so.
// Values of the wrong type or unknown keys are skipped with a warning. Open fails only when the
// file cannot be read at all or a damaged file cannot be moved out of the way.
func Open(file string) (*Store, error) {
	if file == "" {
		file = DefaultFile()
		if file == "" {
			return nil, errors.New("no user config folder on this system (HOME or APPDATA is not set): start EdgeChat with --config FILE")
		}
	}
	s := &Store{path: file}
	env, warnings := envOverrides()
	s.env = env
	s.opened = warnings

	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return nil, fmt.Errorf("read settings %s: %w — check that the file is readable, or start with --config pointing at another file", file, err)
	}
	nested, perr := parseYAML(data)
	if perr != nil {
		moved, merr := moveAside(file)
		if merr != nil {
			return nil, fmt.Errorf("settings file %s is damaged (%v) and could not be moved aside: %w — rename or delete it yourself", file, perr, merr)
		}
		s.opened = append(s.opened, fmt.Sprintf("settings file %s could not be read (%v); it was moved to %s and default settings are in use", file, perr, moved))
		nested = nil
	}
	s.file = migrate(flattenFile(nested))
	s.rebuildLocked()
	return s, nil
}

// parseYAML parses a settings file with viper; an empty file is an empty map.
func parseYAML(data []byte) (map[string]any, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, errors.New(strings.TrimSpace(strings.TrimPrefix(err.Error(), "While parsing config: ")))
	}
	return v.AllSettings(), nil
}

// moveAside renames file to file.corrupt-<timestamp>, never replacing an existing file.
func moveAside(file string) (string, error) {
	base := file + ".corrupt-" + time.Now().Format("20060102-150405")
	dst := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dst = fmt.Sprintf("%s-%d", base, i)
	}
	if err := os.Rename(file, dst); err != nil {
		return "", err
	}
	return dst, nil
}

// rebuildLocked layers defaults < file < environment and decodes the result. A value out of
// its range (top_p: 7) is checked as the settings pane checks it and replaced by its default,
// with a warning, rather than used until the pane is opened.
func (s *Store) rebuildLocked() {
	good, warnings := sanitize(s.path, s.file)
	env := maps.Clone(s.env)
	st, errs := s.decode(good, env)
	var bad []FieldError
	for _, fe := range st.Validate() {
		if fallsBack[fe.Field] {
			bad = append(bad, fe)
			source := s.path
			if _, ok := env[fe.Field]; ok {
				source = EnvName(fe.Field)
			}
			warnings = append(warnings, fmt.Sprintf("%s: %s is %v, but %s; using the default, %v, instead", source, fe.Field, flatten(st)[fe.Field], fe.Message, flatten(Defaults())[fe.Field]))
			delete(good, fe.Field)
			delete(env, fe.Field)
		}
	}
	if len(bad) > 0 {
		st, errs = s.decode(good, env)
	}
	s.loaded = append(warnings, errs...)
	s.settings = st
}

// fallsBack lists the settings whose bad values give way to the default at start: plain
// values. Paths stay as written (a model on a drive not plugged in yet); the settings pane
// and the engine report them.
var fallsBack = map[string]bool{
	"npu.ep": true, "cpu.ep": true, "npu.threads": true, "cpu.threads": true, "prefill_limit": true,
	"temperature": true, "top_p": true, "top_k": true, "max_tokens": true, "repetition_penalty": true, "theme": true,
	"kv_cache": true,
}

// decode layers defaults < good (the file's checked values) < env in viper.
func (s *Store) decode(good, env map[string]any) (Settings, []string) {
	var warnings []string
	v := viper.New()
	for k, val := range flatten(Defaults()) {
		if _, inFile := good[k]; schema[k] == kindMap && inFile {
			continue // a map from the file replaces the default map instead of merging with it
		}
		v.SetDefault(k, val)
	}
	if err := v.MergeConfigMap(unflatten(good)); err != nil {
		warnings = append(warnings, fmt.Sprintf("%s: %v; using defaults", s.path, err))
	}
	for k, val := range env {
		v.Set(k, val)
	}
	var st Settings // not Defaults(): decoding into a non-empty map would merge with it
	if err := v.Unmarshal(&st); err != nil {
		// Values were coerced to their exact types above, so this is not expected.
		warnings = append(warnings, fmt.Sprintf("%s: %v; using defaults", s.path, err))
		st = Defaults()
	}
	return st, warnings
}

// Settings returns the file's settings with environment overrides applied.
func (s *Store) Settings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings.clone()
}

// Path returns the settings file this store reads and writes.
func (s *Store) Path() string { return s.path }

// Warnings returns what the user should know about the settings: a damaged file that was moved
// aside (and where), bad values that were skipped, environment variables that were ignored.
func (s *Store) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Concat(s.opened, s.loaded)
}

// Overridden returns the keys (sorted) whose value comes from the environment; EnvName(key)
// is the variable to show, e.g. "set by EDGECHAT_CPU_MODEL".
func (s *Store) Overridden() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.env))
	for k := range s.env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Save writes st to the settings file atomically (temporary file in the same folder, fsync,
// rename). Keys overridden by the environment keep the value the file already had, so an
// EDGECHAT_* variable is never written back. Unknown keys in the file are kept. Save does not
// validate; call Validate first.
func (s *Store) Save(st Settings) error {
	s.mu.Lock()
	defer s.mu.Unlock()

	out := make(map[string]any, len(s.file))
	for k, v := range s.file {
		if _, known := schema[k]; known || !clashes(k) { // keep unknown keys, unless they are in the way
			out[k] = v
		}
	}
	for k, v := range flatten(st) {
		if _, env := s.env[k]; env {
			continue
		}
		out[k] = v
	}
	v := viper.New()
	v.SetConfigType("yaml")
	for k, val := range out {
		v.Set(k, val)
	}
	var buf bytes.Buffer
	buf.WriteString(fileHeader)
	if err := v.WriteConfigTo(&buf); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	if err := writeFileAtomic(s.path, buf.Bytes()); err != nil {
		return fmt.Errorf("save settings to %s: %w — check the folder exists and is writable, or use --config FILE", s.path, err)
	}
	s.file = out
	s.rebuildLocked()
	return nil
}

// writeFileAtomic replaces path with data, creating its folder (the file is 0600: it may
// hold API keys).
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, nil)
}

// FileFromArgs takes --config FILE (or -config, --config=FILE) out of args and returns the file
// ("" when absent) and the remaining arguments.
func FileFromArgs(args []string) (file string, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		if name != "--config" && name != "-config" {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return "", nil, errors.New("--config needs a file name: --config path/to/settings.yaml")
			}
			i++
			val = args[i]
		}
		if val == "" {
			return "", nil, errors.New("--config needs a file name: --config path/to/settings.yaml")
		}
		file = val
	}
	return file, rest, nil
}
