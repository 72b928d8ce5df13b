package main

import (
	"go/build/constraint"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fyneModule is the Fyne EdgeChat builds with, from the module cache.
func fyneModule(t *testing.T) string {
	t.Helper()
	b, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "fyne.io/fyne/v2").Output()
	if err != nil {
		t.Fatalf("go list -m fyne.io/fyne/v2: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// platform is a set of satisfied build tags.
type platform map[string]bool

func (p platform) String() string {
	var s []string
	for tag := range p {
		s = append(s, tag)
	}
	return strings.Join(s, ",")
}

// platforms: GOOS × GOARCH × the tags Fyne's GL choice reads. (GOOS=android also satisfies
// linux, ios darwin, as the go command has it.)
func platforms() []platform {
	var ps []platform
	for _, goos := range [][]string{{"windows"}, {"linux"}, {"darwin"}, {"freebsd"}, {"android", "linux"}, {"ios", "darwin"}, {"js"}} {
		for _, goarch := range []string{"amd64", "arm64", "arm", "wasm"} {
			for extra := 0; extra < 8; extra++ {
				p := platform{goarch: true}
				for _, o := range goos {
					p[o] = true
				}
				for i, tag := range []string{"gles", "mobile", "test_web_driver"} {
					if extra&(1<<i) != 0 {
						p[tag] = true
					}
				}
				ps = append(ps, p)
			}
		}
	}
	return ps
}

func built(t *testing.T, line string, p platform) bool {
	t.Helper()
	expr, err := constraint.Parse(line)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return expr.Eval(func(tag string) bool { return p[tag] })
}

// The rewritten lines change Fyne's choice only on windows/arm64 without the gles tag, only
// from ES to desktop, and the Windows program takes the desktop files and leaves the ES ones.
func TestRewritesChangeOnlyWindowsArm64(t *testing.T) {
	for _, r := range rewrites {
		desktop := !strings.Contains(r.file, "_es.go")
		for _, p := range platforms() {
			was, is := built(t, r.old, p), built(t, r.new, p)
			target := p["windows"] && p["arm64"] && !p["gles"]
			plain := target && !p["mobile"] && !p["test_web_driver"] // the Windows program
			switch {
			case plain && is != desktop:
				t.Errorf("%s on %s: built %v, want %v", r.file, p, is, desktop)
			case target && is != was && is != desktop: // e.g. the mobile driver's build
				t.Errorf("%s on %s: built %v, Fyne has %v: the change is not from ES to desktop", r.file, p, is, was)
			case !target && is != was:
				t.Errorf("%s on %s: built %v, Fyne has %v", r.file, p, is, was)
			}
		}
	}
}

// On windows/arm64 each package builds exactly one of its desktop and ES variants.
func TestOneVariantPerPackage(t *testing.T) {
	p := platform{"windows": true, "arm64": true}
	for _, pair := range [][2]string{
		{"internal/painter/gl/gl_core.go", "internal/painter/gl/gl_es.go"},
		{"internal/painter/gl/shaders.go", "internal/painter/gl/shaders_es.go"},
		{"internal/driver/glfw/glfw_core.go", "internal/driver/glfw/glfw_es.go"},
	} {
		var n int
		for _, r := range rewrites {
			if (r.file == pair[0] || r.file == pair[1]) && built(t, r.new, p) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s / %s: %d built on windows/arm64, want 1", pair[0], pair[1], n)
		}
	}
}

// The copy of the real Fyne differs in the six build lines only, and the go command, building
// for windows/arm64, takes the desktop painter and the GLFW core context from it.
func TestWriteCopy(t *testing.T) {
	fyneDir := fyneModule(t)
	out := filepath.Join(t.TempDir(), "fyne")
	if err := os.MkdirAll(filepath.Join(out, "stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := run(fyneDir, out)
	if err != nil {
		t.Fatal(err)
	}
	if got != out {
		t.Errorf("printed %s, want %s", got, out)
	}
	if _, err := os.Stat(filepath.Join(out, "stale")); err == nil {
		t.Error("the old copy's files are still there")
	}
	for _, r := range rewrites {
		before, _ := os.ReadFile(filepath.Join(fyneDir, r.file))
		after, err := os.ReadFile(filepath.Join(out, r.file))
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Replace(string(before), r.old, r.new, 1); string(after) != want {
			t.Errorf("%s: the copy differs from Fyne's beyond the build line", r.file)
		}
	}
	for _, f := range []string{"go.mod", "LICENSE", "internal/painter/gl/shaders/simple.frag"} {
		a, _ := os.ReadFile(filepath.Join(fyneDir, f))
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s not copied as it is (%v)", f, err)
		}
	}

	// go list in a module that replaces Fyne with the copy.
	mod := t.TempDir()
	gomod := "module probe\n\ngo 1.24\n\nrequire fyne.io/fyne/v2 v2.7.4\n\nreplace fyne.io/fyne/v2 => " + out + "\n"
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", "{{.GoFiles}}",
		"fyne.io/fyne/v2/internal/painter/gl", "fyne.io/fyne/v2/internal/driver/glfw")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=arm64", "CGO_ENABLED=1", "GOFLAGS=-mod=mod", "GOWORK=off")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, b)
	}
	files := string(b)
	for _, f := range []string{"gl_core.go", "shaders.go", "glfw_core.go"} {
		if !strings.Contains(files, " "+f) && !strings.Contains(files, "["+f) {
			t.Errorf("go list for windows/arm64 builds %s without %s", files, f)
		}
	}
	for _, f := range []string{"gl_es.go", "shaders_es.go", "glfw_es.go"} {
		if strings.Contains(files, f) {
			t.Errorf("go list for windows/arm64 builds %s with %s", files, f)
		}
	}
}

// A Fyne whose build lines are not the expected ones fails with the file and both lines.
func TestChangedFyneFails(t *testing.T) {
	fyneDir := t.TempDir()
	for _, r := range rewrites {
		line := r.old
		if strings.HasSuffix(r.file, "glfw_es.go") {
			line = "//go:build (gles || arm || arm64 || riscv64) && !darwin && !wasm && !test_web_driver"
		}
		p := filepath.Join(fyneDir, r.file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(line+"\n\npackage x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := run(fyneDir, filepath.Join(t.TempDir(), "out"))
	if err == nil || !strings.Contains(err.Error(), "glfw_es.go") || !strings.Contains(err.Error(), "riscv64") {
		t.Fatalf("err %v, want one naming glfw_es.go and its new line", err)
	}
}

// A Fyne with another file chosen by arm64 or gles fails, naming it.
func TestUnknownSplitFails(t *testing.T) {
	fyneDir := t.TempDir()
	for _, r := range rewrites {
		p := filepath.Join(fyneDir, r.file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(r.old+"\n\npackage x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []struct{ name, body string }{
		{"internal/painter/gl/texture_es.go", "// Copyright\n\n//go:build gles && !darwin\n\npackage gl\n"},
		{"internal/painter/gl/notes.go", "package gl\n\n//go:build arm64 (not a constraint after the package clause)\n"},
		{"internal/painter/gl/farm64.go", "//go:build farm64\n\npackage gl\n"},
	} {
		if err := os.WriteFile(filepath.Join(fyneDir, f.name), []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := run(fyneDir, filepath.Join(t.TempDir(), "out"))
	if err == nil || !strings.Contains(err.Error(), "texture_es.go") {
		t.Fatalf("err %v, want one naming texture_es.go", err)
	}
	for _, not := range []string{"notes.go", "farm64.go"} {
		if strings.Contains(err.Error(), not) {
			t.Errorf("err names %s, which no arm64 or gles constraint selects: %v", not, err)
		}
	}
}
