package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/internal/testkit/testenv"
)

// TestBenchCompare runs EdgeChat and the bare ONNX Runtime loop on the same graph; llama.cpp
// is listed as missing when the folder has no GGUF twin (EDGECHAT_CACHE points at an empty
// cache, so the installed peer is not found either).
func TestBenchCompare(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	cache := t.TempDir()
	t.Setenv("EDGECHAT_CACHE", cache)
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
		if len(p.RoundTTFT) != 2 || len(p.RoundDecode) != 2 || slices.Min(p.RoundTTFT) != p.TTFTMillis || slices.Max(p.RoundDecode) != p.DecodeTPS {
			t.Errorf("%s: rounds %v ms, %v tokens/s; best %v ms, %v tokens/s", p.Engine, p.RoundTTFT, p.RoundDecode, p.TTFTMillis, p.DecodeTPS)
		}
	}
	// The graph that ran, which the bare loop runs too: the optimized copy in the cache, not
	// the folder's file.
	if filepath.Base(r.ModelFile) != "model.onnx" || !strings.HasPrefix(r.ModelFile, cache) {
		t.Errorf("model file %s, want the optimized copy under %s", r.ModelFile, cache)
	}
	if r.Compare[2].Engine != "llama.cpp" || r.Compare[2].Missing == "" {
		t.Errorf("llama.cpp without a GGUF: %+v", r.Compare[2])
	}
}

// TestPairedRatios: the round-by-round line sets each round's EdgeChat figures against the
// peer's of the same round, where the bests alone would pair a quiet round of one engine with
// a busy round of the other.
func TestPairedRatios(t *testing.T) {
	var edge, llama, missing peerResult
	edge.Engine, llama.Engine, missing.Engine, missing.Missing = "EdgeChat", "llama.cpp", "other", "not installed"
	for _, r := range []struct{ edgeMS, edgeTPS, llamaMS, llamaTPS float64 }{
		{100, 200, 125, 100}, // a quiet round: 0.80×, 2.00×
		{150, 150, 150, 100}, // a busy one for both: 1.00×, 1.50×
		{120, 180, 100, 120}, // 1.20×, 1.50×
	} {
		edge.add(r.edgeMS, r.edgeTPS)
		llama.add(r.llamaMS, r.llamaTPS)
	}
	ttft, decode := pairedRatios(edge, llama)
	if !slices.Equal(ttft, []float64{0.8, 1, 1.2}) || !slices.Equal(decode, []float64{1.5, 1.5, 2}) {
		t.Errorf("ratios %v and %v", ttft, decode)
	}
	var out strings.Builder
	if err := printCompare(&out, []peerResult{edge, llama, missing}, &BenchResult{PromptIDs: make([]int, 428), DecodeTokens: 64, Threads: 2}, 3); err != nil {
		t.Fatal(err)
	}
	want := "Round by round against llama.cpp (3 rounds): first token 1.00× (0.80–1.20×), decode 1.50× (1.50–2.00×)\n"
	if !strings.HasSuffix(out.String(), want) || strings.Contains(out.String(), "against other") {
		t.Errorf("printed:\n%s\nwant it to end in %q", out.String(), want)
	}
	// The bests pair EdgeChat's quiet round with llama.cpp's best: 1.00×.
	if !strings.Contains(out.String(), "1.00×") {
		t.Errorf("printed:\n%s", out.String())
	}
	// With the bandwidth measured: each engine's decode as a share of the ceiling.
	out.Reset()
	r := &BenchResult{PromptIDs: make([]int, 428), DecodeTokens: 64, Threads: 2, BandwidthBytesPerS: 50e9, DecodeReadBytes: 250e6, DecodeLimitTPS: 200}
	if err := printCompare(&out, []peerResult{edge, llama, missing}, r, 3); err != nil {
		t.Fatal(err)
	}
	want = "Memory bandwidth 50.0 GB/s read with 2 threads; a decode step reads 250 MB of weights, so at most 200 tokens/s: EdgeChat at 100%, llama.cpp at 60%\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("printed:\n%s\nwant it to end in %q", out.String(), want)
	}
}
