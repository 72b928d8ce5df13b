package localefix

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestReplacement(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "en_US.UTF-8"},
		{map[string]string{"LANG": "C"}, "en_US.UTF-8"},
		{map[string]string{"LANG": "C.UTF-8"}, "en_US.UTF-8"},
		{map[string]string{"LANG": "POSIX"}, "en_US.UTF-8"},
		{map[string]string{"LANG": "de_DE.UTF-8"}, ""},
		{map[string]string{"LANG": "C", "LC_ALL": "fr_FR.UTF-8"}, ""},
		{map[string]string{"LANG": "C", "LC_MESSAGES": "fr_FR.UTF-8"}, ""},
	} {
		got, ok := replacement(func(k string) string { return tc.env[k] })
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%v: got %q, %v; want %q", tc.env, got, ok, tc.want)
		}
	}
}

// TestCLocale starts this test binary again with LANG=C: by the time tests run, init has
// replaced it.
func TestCLocale(t *testing.T) {
	if os.Getenv("LOCALEFIX_CHILD") == "1" {
		if l := os.Getenv("LANG"); l != "en_US.UTF-8" {
			t.Fatalf("LANG=%q after init, want en_US.UTF-8", l)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLocale$", "-test.count=1")
	cmd.Env = append(withoutLocale(os.Environ()), "LANG=C", "LOCALEFIX_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("with LANG=C: %v\n%s", err, out)
	}
}

func withoutLocale(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "LANG=") && !strings.HasPrefix(kv, "LC_") {
			out = append(out, kv)
		}
	}
	return out
}

// TestInitOrder checks what the package relies on: it imports only the standard library, and
// its import path sorts before Fyne's, so Go initialises it before any Fyne package.
func TestInitOrder(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	self := strings.TrimSpace(string(out))
	if strings.Contains(self, "\n") {
		t.Fatalf("localefix imports non-standard packages:\n%s", out)
	}
	if !(self < "fyne.io/") {
		t.Fatalf("%s does not sort before fyne.io/: Fyne would read the locale first", self)
	}
}
