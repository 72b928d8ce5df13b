// Package testenv gives tests the installed ONNX Runtime library and tokenizer files.
// When they are missing a test is skipped on a developer machine, and fails under CI=true:
// CI never passes by skipping.
package testenv

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"edgechat/internal/paths"
)

// missing fails the test in CI and skips it elsewhere.
func missing(t testing.TB, what string) {
	t.Helper()
	msg := what + " is not installed; run tools/setup.sh (make setup)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// ORTLibrary returns the path of the ONNX Runtime shared library ($EDGECHAT_ORT_LIB or the cache).
func ORTLibrary(t testing.TB) string {
	t.Helper()
	p := os.Getenv("EDGECHAT_ORT_LIB")
	if p == "" {
		p = paths.CachedORTLibrary()
	}
	if _, err := os.Stat(p); err != nil {
		missing(t, "ONNX Runtime ("+p+")")
	}
	return p
}

// TokenizerDir returns the folder with tokenizer.json and tokenizer_config.json of the named
// tokenizer ("qwen3", "llama3", "deepseek_v3", "llama2", "gemma3").
func TokenizerDir(t testing.TB, name string) string {
	t.Helper()
	d := paths.TokenizerDir(name)
	if _, err := os.Stat(filepath.Join(d, "tokenizer.json")); err != nil {
		missing(t, "tokenizer "+name+" ("+d+")")
	}
	return d
}

// SharedModel returns the folder of a model in the shared models folder (shared/models beside
// the repository or above it), such as "stories260K", the real trained model of the tests.
func SharedModel(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "models", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			missing(t, "shared model "+name+" (shared/models/"+name+" beside the repository)")
			return ""
		}
		dir = parent
	}
}

// Python returns Debian's python3 with the onnx module (not a pyenv one without it).
func Python(t testing.TB) string {
	t.Helper()
	const p = "/usr/bin/python3"
	if _, err := os.Stat("/usr/lib/python3/dist-packages/onnx"); err != nil {
		missing(t, "python3-onnx")
	}
	return p
}

// checkScript runs ONNX's checker with full_check (strict shape inference) on each file and
// prints one line per file it refuses. ONNX Runtime registers a few of its own operators in
// the ONNX domain (SimplifiedLayerNormalization), which ONNX's checker does not know: they
// are checked as the custom operators they are.
const checkScript = `import sys, onnx
ort_ops = {"SimplifiedLayerNormalization"}
for p in sys.argv[1:]:
    try:
        m = onnx.load(p)
        custom = [n for n in m.graph.node if n.domain in ("", "ai.onnx") and n.op_type in ort_ops]
        for n in custom:
            n.domain = "com.microsoft"
        if custom and not any(o.domain == "com.microsoft" for o in m.opset_import):
            m.opset_import.append(onnx.helper.make_opsetid("com.microsoft", 1))
        onnx.checker.check_model(m, full_check=True)
    except Exception as e:
        print(p, type(e).__name__, str(e)[:2000])`

// CheckONNX has Debian's python3-onnx checker (full_check) accept every file, an independent
// check of the models the project writes.
func CheckONNX(t testing.TB, files ...string) {
	t.Helper()
	out, err := exec.Command(Python(t), append([]string{"-c", checkScript}, files...)...).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("onnx.checker: %v\n%s", err, out)
	}
}

// RunInTempDir is the TestMain of a package whose tests write their models once per test
// binary: it sets *dir to a fresh temporary folder (named after prefix), runs the tests and
// removes the folder, returning the exit code for os.Exit.
func RunInTempDir(m *testing.M, prefix string, dir *string) int {
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	*dir = d
	defer os.RemoveAll(d)
	return m.Run()
}

// APIClients returns node and the node_modules folder holding the official OpenAI and
// Anthropic clients and ajv, pinned in tools/npmclients and installed by tools/setup.sh.
func APIClients(t testing.TB) (node, modules string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node (Node.js)")
	}
	modules = filepath.Join(paths.CacheDir(), "npmclients", "node_modules")
	for _, pkg := range []string{"openai", "@anthropic-ai/sdk", "ajv"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			missing(t, "the npm package "+pkg+" ("+modules+")")
		}
	}
	return node, modules
}

// MCPServers returns node and the folder of the reference MCP servers' packages
// (@modelcontextprotocol/server-everything and server-filesystem), pinned in tools/mcpservers
// and installed by tools/setup.sh.
func MCPServers(t testing.TB) (node, scope string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node (Node.js)")
	}
	scope = filepath.Join(paths.CacheDir(), "mcpservers", "node_modules", "@modelcontextprotocol")
	for _, pkg := range []string{"server-everything", "server-filesystem"} {
		if _, err := os.Stat(filepath.Join(scope, pkg, "dist", "index.js")); err != nil {
			missing(t, "the npm package @modelcontextprotocol/"+pkg+" ("+scope+")")
		}
	}
	return node, scope
}

// Gunzip returns the decompressed bytes of the gzipped file (test data kept compressed).
func Gunzip(t testing.TB, file string) []byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Tesseract returns the tesseract program: $EDGECHAT_TESSERACT, else the one tools/setup.sh
// unpacked into the cache.
func Tesseract(t testing.TB) string {
	t.Helper()
	p := os.Getenv("EDGECHAT_TESSERACT")
	if p == "" {
		p = filepath.Join(paths.CacheDir(), "tesseract", "bin", "tesseract")
	}
	if _, err := os.Stat(p); err != nil {
		missing(t, "tesseract ("+p+")")
	}
	return p
}
