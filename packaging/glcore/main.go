// Command glcore writes a copy of the Fyne module that makes a windows/arm64 build draw with
// desktop OpenGL (Fyne's go-gl v2.1 painter and a GLFW core context) instead of OpenGL ES;
// packaging/build.sh points the Arm64 build at it with a go.mod replace in its staged copy.
//
// Fyne v2.7 picks its painter by CPU: every arm64 build, Windows included, asks for an OpenGL
// ES 2 context. On Windows that goes through WGL_EXT_create_context_es2_profile, which Wine lacks
// and which Windows-on-Arm drivers often lack too (fyne#6483): the program opens no window.
// Those machines do offer desktop OpenGL (the GPU vendor's driver, Microsoft's OpenGL-on-D3D12
// compatibility pack, Wine's opengl32), which is what Fyne uses on every x64 PC.
//
// The copy differs from the module in six files, and in them only in the //go:build line:
// windows/arm64 without the gles tag takes the desktop path, every other platform keeps Fyne's
// own choice. When the files no longer hold the expected lines (a Fyne upgrade), or Fyne splits
// more files by CPU, glcore fails and says which. (A `go build -overlay` of just the six files
// would be lighter, but the go command refuses to overlay files in the module cache.)
//
//	glcore [-fyne DIR] -o OUTDIR
//
// replaces OUTDIR with the copy and prints its path; -fyne defaults to the module's Fyne
// (`go list -m -f {{.Dir}} fyne.io/fyne/v2`).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A rewrite is one Fyne file's build constraint as Fyne has it and as the overlay has it.
type rewrite struct {
	file     string // slash-separated, inside the module
	old, new string // the whole //go:build line
}

// rewrites: in the desktop ("core") files `!arm64` becomes `!(arm64 && !windows)`; in the ES
// files `arm64` becomes `(arm64 && !windows)`. The gles tag still selects ES everywhere.
var rewrites = []rewrite{
	{
		"internal/painter/gl/gl_core.go",
		"//go:build (!gles && !arm && !arm64 && !android && !ios && !mobile && !test_web_driver && !wasm) || (darwin && !mobile && !ios && !wasm && !test_web_driver)",
		"//go:build (!gles && !arm && !(arm64 && !windows) && !android && !ios && !mobile && !test_web_driver && !wasm) || (darwin && !mobile && !ios && !wasm && !test_web_driver)",
	},
	{
		"internal/painter/gl/shaders.go",
		"//go:build (!gles && !arm && !arm64 && !android && !ios && !mobile && !test_web_driver && !wasm) || (darwin && !mobile && !ios && !wasm && !test_web_driver)",
		"//go:build (!gles && !arm && !(arm64 && !windows) && !android && !ios && !mobile && !test_web_driver && !wasm) || (darwin && !mobile && !ios && !wasm && !test_web_driver)",
	},
	{
		"internal/painter/gl/gl_es.go",
		"//go:build (gles || arm || arm64) && !android && !ios && !mobile && !darwin && !wasm && !test_web_driver",
		"//go:build (gles || arm || (arm64 && !windows)) && !android && !ios && !mobile && !darwin && !wasm && !test_web_driver",
	},
	{
		"internal/painter/gl/shaders_es.go",
		"//go:build ((gles || arm || arm64) && !android && !ios && !mobile && !darwin && !wasm && !test_web_driver) || ((android || ios || mobile) && (!wasm || !test_web_driver)) || wasm || test_web_driver",
		"//go:build ((gles || arm || (arm64 && !windows)) && !android && !ios && !mobile && !darwin && !wasm && !test_web_driver) || ((android || ios || mobile) && (!wasm || !test_web_driver)) || wasm || test_web_driver",
	},
	{
		"internal/driver/glfw/glfw_core.go",
		"//go:build ((!gles && !arm && !arm64) || darwin) && !wasm && !test_web_driver",
		"//go:build ((!gles && !arm && !(arm64 && !windows)) || darwin) && !wasm && !test_web_driver",
	},
	{
		"internal/driver/glfw/glfw_es.go",
		"//go:build (gles || arm || arm64) && !darwin && !wasm && !test_web_driver",
		"//go:build (gles || arm || (arm64 && !windows)) && !darwin && !wasm && !test_web_driver",
	},
}

// otherCPUSplits are Fyne's other files whose build constraint names arm64 or gles; none of
// them is built for Windows. Any file beyond these and the rewrites fails the run: it may be a
// new part of the GL choice that the overlay would leave on the ES side.
var otherCPUSplits = map[string]bool{
	"internal/driver/mobile/app/callfn/callfn.go":         true,
	"internal/driver/mobile/mobileinit/mobileinit_ios.go": true,
}

func main() {
	fyneDir := flag.String("fyne", "", "the Fyne module's folder (default: go list -m fyne.io/fyne/v2)")
	out := flag.String("o", "", "the folder to write the copy into (replaced)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: glcore [-fyne DIR] -o OUTDIR")
		os.Exit(2)
	}
	path, err := run(*fyneDir, *out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "glcore: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

func run(fyneDir, out string) (string, error) {
	if fyneDir == "" {
		b, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "fyne.io/fyne/v2").Output()
		if err != nil {
			return "", fmt.Errorf("go list -m fyne.io/fyne/v2 (run glcore in EdgeChat's module): %w", err)
		}
		fyneDir = strings.TrimSpace(string(b))
	}
	if err := checkSplits(fyneDir); err != nil {
		return "", err
	}
	return writeCopy(fyneDir, out)
}

// writeCopy replaces out with a copy of the module in fyneDir, the rewrites applied, and
// returns out's absolute path.
func writeCopy(fyneDir, out string) (string, error) {
	out, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	changed := map[string][]byte{}
	for _, r := range rewrites {
		src := filepath.Join(fyneDir, filepath.FromSlash(r.file))
		data, err := os.ReadFile(src)
		if err != nil {
			return "", fmt.Errorf("%w (glcore's rewrites are written for Fyne v2.7.4's files)", err)
		}
		if changed[r.file], err = r.apply(data); err != nil {
			return "", fmt.Errorf("%s: %w", src, err)
		}
	}
	if err := os.RemoveAll(out); err != nil {
		return "", err
	}
	err = filepath.WalkDir(fyneDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fyneDir, path)
		dst := filepath.Join(out, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755) // the module cache's folders are read-only
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, ok := changed[filepath.ToSlash(rel)]
		if !ok {
			if data, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("copying Fyne from %s: %w", fyneDir, err)
	}
	return out, nil
}

// apply returns data with r's build line rewritten; data must start with r.old.
func (r rewrite) apply(data []byte) ([]byte, error) {
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if got := string(bytes.TrimRight(first, "\r")); got != r.old {
		return nil, fmt.Errorf("this Fyne changed the file's build constraint: it is\n\t%s\nwhere glcore expects\n\t%s\n"+
			"check that Fyne still draws with OpenGL ES on arm64 and update packaging/glcore", got, r.old)
	}
	return append([]byte(r.new+"\n"), rest...), nil
}

// checkSplits fails when a Go file of Fyne that is neither rewritten nor known to be
// mobile-only has a build constraint naming arm64 or gles.
func checkSplits(fyneDir string) error {
	known := map[string]bool{}
	for _, r := range rewrites {
		known[r.file] = true
	}
	var unknown []string
	err := filepath.WalkDir(fyneDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		rel, _ := filepath.Rel(fyneDir, path)
		rel = filepath.ToSlash(rel)
		if known[rel] || otherCPUSplits[rel] {
			return nil
		}
		line, err := buildLine(path)
		if err != nil {
			return err
		}
		if namesCPUSplit(line) {
			unknown = append(unknown, rel+": "+line)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading Fyne in %s: %w", fyneDir, err)
	}
	if len(unknown) > 0 {
		return errors.New("this Fyne chooses by arm64 or gles in files glcore does not know; check whether they belong to the GL choice and update packaging/glcore:\n\t" +
			strings.Join(unknown, "\n\t"))
	}
	return nil
}

// buildLine returns the file's //go:build line, or "" when it has none before its package
// clause.
func buildLine(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "//go:build") {
			return line, nil
		}
		if strings.HasPrefix(line, "package ") {
			break
		}
	}
	return "", nil
}

// namesCPUSplit tells whether a build line mentions the arm64 or gles tag.
func namesCPUSplit(line string) bool {
	for _, f := range strings.FieldsFunc(line, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if f == "arm64" || f == "gles" {
			return true
		}
	}
	return false
}
