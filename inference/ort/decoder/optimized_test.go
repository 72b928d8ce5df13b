package decoder

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"edgechat/inference"
	"edgechat/internal/testkit/synth"
)

// TestOptimizedCopyGivesTheSameReply: a float32 model run through its optimized copy (LM head
// on the last row; no MatMulNBits to change) replies exactly as the file as published, for
// prompts longer than one prefill chunk, and the copy lands in the cache, not the model folder.
func TestOptimizedCopyGivesTheSameReply(t *testing.T) {
	model := tinyModel(t)
	cache := t.TempDir()
	plain := newTestEngine(t, model, nil)
	opt := newTestEngine(t, model, func(rc *inference.RouteConfig) { // the 32-bit cache: exact
		rc.LoadOptions.GraphCache, rc.LoadOptions.KVCache = cache, inference.KV32
	})
	long := "Summarise the following. "
	for range 12 {
		long += "The quick brown fox jumps over the lazy dog near the riverbank. "
	}
	for _, prompt := range []string{"Hi", "Tell me about the sea.", long} {
		evA, _ := collect(t, plain, context.Background(), greedy(prompt, 24))
		evB, _ := collect(t, opt, context.Background(), greedy(prompt, 24))
		a, _ := replyText(evA)
		b, _ := replyText(evB)
		if a != b || a == "" {
			t.Errorf("prompt %.20q: as published %q, optimized copy %q", prompt, a, b)
		}
	}
	copies, _ := filepath.Glob(filepath.Join(cache, "optimized", "*", "model.onnx"))
	if len(copies) != 1 {
		t.Errorf("optimized copies in the cache: %v", copies)
	}
	entries, _ := os.ReadDir(filepath.Join(model, "onnx"))
	if len(entries) != 1 {
		t.Errorf("the model's onnx folder now holds %d files", len(entries))
	}
}

// TestOptimizedQ4Generates runs a q4 model (accuracy level raised to 4) through the engine.
func TestOptimizedQ4Generates(t *testing.T) {
	model := synthModel(t, "tiny-q4", func(o *synth.Options) { o.Quant = synth.QuantQ4 })
	e := newTestEngine(t, model, func(rc *inference.RouteConfig) { rc.LoadOptions.GraphCache = t.TempDir() })
	ev, sum := collect(t, e, context.Background(), greedy("Tell me about the sea.", 16))
	if a, _ := replyText(ev); a == "" || sum.GeneratedTokens != 16 {
		t.Errorf("reply %q, %d tokens", a, sum.GeneratedTokens)
	}
}

// TestOptimizedCopyOfExternalData: the optimized copy of a graph whose weights are in a data
// file (hard-linked beside the copy in the cache) gives the replies of the file as published.
func TestOptimizedCopyOfExternalData(t *testing.T) {
	dir := tinyExternal(t, synth.LayoutHF)
	plain := newTestEngine(t, dir, nil)
	_, want := collect(t, plain, context.Background(), greedy("Tell me about the sea.", 40))
	e := newTestEngine(t, dir, func(rc *inference.RouteConfig) { rc.LoadOptions.GraphCache = t.TempDir() })
	_, got := collect(t, e, context.Background(), greedy("Tell me about the sea.", 40))
	if !slices.Equal(got.IDs, want.IDs) {
		t.Fatalf("optimized copy %v, as published %v", got.IDs, want.IDs)
	}
}
