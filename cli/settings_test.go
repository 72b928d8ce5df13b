package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// billionLaughs is a YAML file of nine levels of aliases to nine aliases each: 9⁹ strings if
// expanded, a few hundred bytes on disk.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString(`l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 9; i++ {
		a := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.Repeat(a+",", 8)+a)
	}
	return b.String()
}

// The command line says what the window says about the settings: a damaged file moved aside
// (a billion laughs), a value put back to its default, an environment variable ignored — each
// printed on stderr as a warning, and the command still runs.
func TestSettingsWarningsPrinted(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		env        [2]string
		want       []string
	}{
		{"billion laughs", billionLaughs(), [2]string{}, []string{"warning: settings file ", "could not be read", "it was moved to ", ".corrupt-", "default settings are in use"}},
		{"value out of range", "top_p: 7\n", [2]string{}, []string{"warning: ", "top_p is 7", "using the default"}},
		{"environment variable", "", [2]string{"EDGECHAT_TEMPERATURE", "hot"}, []string{"warning: ", "EDGECHAT_TEMPERATURE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			if tc.env[0] != "" {
				t.Setenv(tc.env[0], tc.env[1])
			}
			cfg := filepath.Join(home, "settings.yaml")
			if err := os.WriteFile(cfg, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if code := Run([]string{"models", "--json", "--config", cfg, "--models-dir", filepath.Join(home, "models")}, nil, &out, &errb); code != 0 {
				t.Fatalf("models: exit %d: %s", code, errb.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr %q lacks %q", errb.String(), w)
				}
			}
			if tc.name == "billion laughs" {
				moved, _ := filepath.Glob(cfg + ".corrupt-*")
				if len(moved) != 1 || !strings.Contains(errb.String(), moved[0]) {
					t.Errorf("moved aside as %q; stderr %q", moved, errb.String())
				}
			}
			if strings.TrimSpace(out.String()) != "[]" {
				t.Errorf("stdout %q, want the empty list of models as JSON", out.String())
			}
		})
	}
}
