package version

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDefaultsMatchFyneAppToml keeps the compiled-in defaults equal to FyneApp.toml, which
// `fyne package` stamps into the Windows resources and the Linux desktop file.
func TestDefaultsMatchFyneAppToml(t *testing.T) {
	data, err := os.ReadFile("../../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"Version": defaultVersion, "Build": defaultBuild} {
		m := regexp.MustCompile(`(?m)^\s*` + key + `\s*=\s*"?([^"\s]+)"?`).FindSubmatch(data)
		if m == nil {
			t.Fatalf("FyneApp.toml has no %s", key)
		}
		if got := string(m[1]); got != want {
			t.Errorf("FyneApp.toml %s = %q, internal/version default = %q: make them agree", key, got, want)
		}
	}
}

func TestGetUsesLinkerValuesFirst(t *testing.T) {
	defer func(v, b, c string) { version, build, commit = v, b, c }(version, build, commit)

	version, build, commit = "", "", ""
	got := Get()
	if got.Version != defaultVersion || got.Build != defaultBuild || got.Commit == "" {
		t.Errorf("defaults: %+v", got)
	}

	version, build, commit = "1.2.3", "42", "abc123"
	got = Get()
	if got.Version != "1.2.3" || got.Build != "42" || got.Commit != "abc123" {
		t.Errorf("linker values: %+v", got)
	}
	text := got.String()
	for _, want := range []string{"EdgeChat 1.2.3 (build 42)\n", "Commit: abc123\n", "Go: go"} {
		if !strings.Contains(text, want) {
			t.Errorf("String() = %q, want it to contain %q", text, want)
		}
	}
}

func TestStringSaysWhyRuntimeIsMissing(t *testing.T) {
	if got := Runtime(); got != "ONNX Runtime: not loaded" {
		t.Fatalf("Runtime() before any load = %q", got)
	}
	t.Setenv("EDGECHAT_ORT_LIB", "/nonexistent/libonnxruntime.so.1")
	text := String()
	if !strings.Contains(text, "ONNX Runtime: not found (") || !strings.Contains(text, "/nonexistent/") {
		t.Errorf("String() = %q, want an ONNX Runtime not-found line naming the path", text)
	}
}
