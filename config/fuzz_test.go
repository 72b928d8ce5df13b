package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen puts arbitrary bytes in the settings file: Open must always give usable settings,
// and a file it cannot parse must survive byte for byte beside it.
func FuzzOpen(f *testing.F) {
	for _, seed := range []string{
		"", "temperature: 0.7\n", "cpu:\n  model: /m\n  ep_options:\n    a: b\n", "cpu: x\n",
		"temperature: [0.6\n", "PK\x03\x04", "- a\n", "npu:\n  ep_options: [1, 2]\n", "top_k: 1e99\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		file := filepath.Join(t.TempDir(), "settings.yaml")
		os.WriteFile(file, content, 0o600)
		s, err := Open(file)
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Settings().Validate()
		if moved, _ := filepath.Glob(file + ".corrupt-*"); len(moved) == 1 {
			if got, _ := os.ReadFile(moved[0]); string(got) != string(content) {
				t.Fatal("moved-aside file differs from the original")
			}
		}
		if err := s.Save(s.Settings()); err != nil {
			t.Fatal(err)
		}
	})
}
