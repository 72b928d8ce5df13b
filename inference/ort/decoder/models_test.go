package decoder

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"edgechat/inference/ort/env"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
)

// Synthetic models are written once per test binary, into a folder removed by TestMain.
var (
	modelRoot  string
	modelMu    sync.Mutex
	modelPaths = map[string]string{}
)

func TestMain(m *testing.M) { os.Exit(testenv.RunInTempDir(m, "edgechat-models-", &modelRoot)) }

// initORT loads ONNX Runtime for the test (fails under CI when it is missing).
func initORT(t testing.TB) {
	t.Helper()
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
}

// synthModel returns the folder of a synthetic model with the given options, writing it on
// first use. name identifies the variant.
func synthModel(t testing.TB, name string, edit func(o *synth.Options)) string {
	t.Helper()
	initORT(t)
	return cachedModel(t, name, synth.Tiny(), testenv.TokenizerDir(t, "qwen3"), edit)
}

// cachedModel writes the model of options base with tokenizer tok and edit made under
// modelRoot/name on first use, and returns its folder.
func cachedModel(t testing.TB, name string, base synth.Options, tok string, edit func(o *synth.Options)) string {
	t.Helper()
	modelMu.Lock()
	defer modelMu.Unlock()
	if p, ok := modelPaths[name]; ok {
		return p
	}
	o := base
	o.TokenizerDir = tok
	if edit != nil {
		edit(&o)
	}
	p := filepath.Join(modelRoot, name)
	if err := synth.Write(p, o); err != nil {
		t.Fatal(err)
	}
	modelPaths[name] = p
	return p
}

func tinyModel(t testing.TB) string { return synthModel(t, "tiny", nil) }

func tinyFP16(t testing.TB) string {
	return synthModel(t, "tiny-fp16", func(o *synth.Options) { o.KVFloat16 = true })
}

func tinyGenAI(t testing.TB) string {
	return synthModel(t, "tiny-genai", func(o *synth.Options) { o.Layout = synth.LayoutGenAI })
}
