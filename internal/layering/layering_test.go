package layering

import (
	"os/exec"
	"strings"
	"testing"
)

const (
	fyne   = "fyne.io/"
	ort    = "github.com/yalue/onnxruntime_go"
	decode = "edgechat/inference/ort/decoder"
)

// rules: a package, and the dependencies (direct or not) it must never have. A rule ending in
// "/" forbids every package under that path.
var rules = []struct {
	pkg    string
	banned []string
	why    string
}{
	{"edgechat/reply", []string{"edgechat/", "github.com/", "golang.org/", "fyne.io/", "google.golang.org/"}, "the contract between engine and consumers imports only the standard library"},
	{"edgechat/models", []string{fyne, ort, decode, "edgechat/inference/ort/env"}, "model folders are read in pure Go"},
	{"edgechat/inference", []string{fyne, ort, decode, "edgechat/inference/ort/env"}, "the engine sees decoders only through its Decoder interface"},
	{"edgechat/ui", []string{ort, decode, "edgechat/inference/ort/env"}, "the window talks to the engine through its own small interface"},
	{"edgechat/server", []string{fyne}, "the HTTP API runs without a display"},
	{"edgechat/inference/ort/decoder", []string{fyne}, "decoders never draw"},
}

func TestImportRules(t *testing.T) {
	for _, r := range rules {
		t.Run(r.pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", r.pkg).CombinedOutput()
			if err != nil {
				t.Fatalf("go list %s: %v\n%s", r.pkg, err, out)
			}
			for _, dep := range strings.Fields(string(out)) {
				if dep == r.pkg {
					continue
				}
				for _, b := range r.banned {
					if dep == b || strings.HasSuffix(b, "/") && strings.HasPrefix(dep, b) {
						t.Errorf("%s depends on %s: %s", r.pkg, dep, r.why)
					}
				}
			}
		})
	}
}

// The engine builds without cgo: no dependency of it has cgo files.
func TestEngineHasNoCgo(t *testing.T) {
	for _, pkg := range []string{"edgechat/inference", "edgechat/models", "edgechat/reply"} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if .CgoFiles}}{{.ImportPath}}{{end}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		if s := strings.TrimSpace(string(out)); s != "" {
			t.Errorf("%s depends on packages with cgo: %s", pkg, strings.ReplaceAll(s, "\n", ", "))
		}
	}
}
