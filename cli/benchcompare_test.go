package cli

import (
	"path/filepath"
	"testing"

	"edgechat/internal/testenv"
)

// TestBenchCompare runs EdgeChat and the bare ONNX Runtime loop on the same graph; llama.cpp
// is listed as missing when the folder has no GGUF twin (EDGECHAT_CACHE points at an empty
// cache, so the installed peer is not found either).
func TestBenchCompare(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	t.Setenv("EDGECHAT_CACHE", t.TempDir())
	var r struct {
		ModelFile string `json:"model_file"`
		Compare   []peerResult
	}
	runJSON(t, []string{"bench", "--model", model, "--ort-lib", lib, "--seq-len", "24", "--iterations", "1", "--warmup", "0",
		"--decode-tokens", "6", "--threads", "1", "--compare", "--rounds", "2", "--json"}, &r)
	if len(r.Compare) != 3 {
		t.Fatalf("compare %+v", r.Compare)
	}
	for _, p := range r.Compare[:2] {
		if p.DecodeTPS <= 0 || p.TTFTMillis <= 0 || p.File != r.ModelFile || p.Missing != "" {
			t.Errorf("%s: %+v", p.Engine, p)
		}
	}
	if filepath.Base(r.ModelFile) != "model.onnx" {
		t.Errorf("model file %s", r.ModelFile)
	}
	if r.Compare[2].Engine != "llama.cpp" || r.Compare[2].Missing == "" {
		t.Errorf("llama.cpp without a GGUF: %+v", r.Compare[2])
	}
}
