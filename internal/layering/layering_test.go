package layering

import (
	"os/exec"
	"strings"
	"testing"
)

// Paths end in "/" for every package under them; otherwise they name one package.
const (
	fyne   = "fyne.io/"
	ortLib = "github.com/yalue/onnxruntime_go"
	ortDir = "edgechat/inference/ort/"
)

// wiring are the packages that put the pieces together (the program, its commands, the
// route and embedder builders, the tools): they alone may reach ONNX Runtime's packages.
var wiring = []string{"edgechat", "edgechat/cli", "edgechat/inference/routes", "edgechat/documents/embedmodel",
	"edgechat/internal/version", "edgechat/tools/", ortDir}

// rules say, by path, which packages may depend (directly or not) on a dependency: every
// package of the module not under allowed is checked.
var rules = []struct {
	dep     string
	allowed []string
	direct  bool // only direct imports count (the dependency's wrappers may be used freely)
	why     string
}{
	{ortLib, []string{ortDir}, true, "only the packages under inference/ort call ONNX Runtime; everything else goes through them"},
	{ortDir, wiring, false, "the engine, models, documents, server and window see ONNX Runtime only through interfaces the wiring fills"},
	{fyne, []string{"edgechat", "edgechat/ui/", "edgechat/assets", "edgechat/tools/idlecpu/bare", "edgechat/tools/switchtime"}, false,
		"only the window draws (and the bare Fyne window tools/idlecpu measures against, and the window tools/switchtime times): the engine, models, documents and server run without a display"},
	{"edgechat/ui", []string{"edgechat", "edgechat/tools/switchtime"}, false, "nothing but the program (and tools/switchtime, which times it) opens the window"},
	{"edgechat/inference", []string{"edgechat", "edgechat/cli", "edgechat/inference/", "edgechat/server", "edgechat/tools/",
		"edgechat/documents/embedmodel", "edgechat/internal/testkit/"}, false, "models, documents, tokenizer and onnx are below the engine"},
	{"edgechat/mcp", []string{"edgechat", "edgechat/cli", "edgechat/ui/", "edgechat/tools/switchtime"}, false,
		"only the user's own commands and window start MCP servers: the HTTP server never does on a request's behalf"},
}

// moduleOnly lists, for the packages named, the only dependencies outside the standard library
// they may have.
var moduleOnly = []struct {
	pkg     string
	allowed []string
	why     string
}{
	{"edgechat/reply", nil, "the contract between engine and consumers imports only the standard library"},
	{"edgechat/tokenizer", []string{"golang.org/x/text/"}, "the tokenizer is pure Go (Unicode normalisation from x/text)"},
}

func under(pkg string, paths []string) bool {
	for _, p := range paths {
		if pkg == p || strings.HasSuffix(p, "/") && (strings.HasPrefix(pkg, p) || pkg == strings.TrimSuffix(p, "/")) {
			return true
		}
	}
	return false
}

func goListLines(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.FieldsFunc(string(out), func(r rune) bool { return r == '\n' })
}

// graph is each module package's direct imports and whole dependencies, from one go list.
func graph(t *testing.T) (pkgs []string, imports, deps map[string][]string) {
	imports, deps = map[string][]string{}, map[string][]string{}
	for _, line := range goListLines(t, "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, "edgechat/...") {
		f := strings.Split(line, "|")
		pkgs = append(pkgs, f[0])
		imports[f[0]], deps[f[0]] = strings.Fields(f[1]), strings.Fields(f[2])
	}
	return pkgs, imports, deps
}

func TestImportRules(t *testing.T) {
	pkgs, imports, deps := graph(t)
	for _, r := range rules {
		t.Run(r.dep, func(t *testing.T) {
			for _, pkg := range pkgs {
				if under(pkg, r.allowed) {
					continue
				}
				list := deps[pkg]
				if r.direct {
					list = imports[pkg]
				}
				for _, dep := range list {
					if under(dep, []string{r.dep}) {
						t.Errorf("%s depends on %s: %s", pkg, dep, r.why)
						break
					}
				}
			}
		})
	}
	for _, r := range moduleOnly {
		t.Run(r.pkg, func(t *testing.T) {
			for _, dep := range deps[r.pkg] {
				if isStandard(dep) || under(dep, r.allowed) {
					continue
				}
				t.Errorf("%s depends on %s: %s", r.pkg, dep, r.why)
			}
		})
	}
}

// isStandard tells a standard-library package by its path: no dot in its first element.
func isStandard(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".") && first != "edgechat"
}

// The engine builds without cgo: no dependency of it has cgo files.
func TestEngineHasNoCgo(t *testing.T) {
	for _, pkg := range []string{"edgechat/inference", "edgechat/models", "edgechat/reply", "edgechat/tokenizer", "edgechat/onnx/..."} {
		out := goListLines(t, "-deps", "-f", "{{if .CgoFiles}}{{.ImportPath}}{{end}}", pkg)
		if len(out) > 0 {
			t.Errorf("%s depends on packages with cgo: %s", pkg, strings.Join(out, ", "))
		}
	}
}
