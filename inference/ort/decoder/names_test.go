package decoder

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/inference/ort/attnop"
	"edgechat/internal/testkit/synth"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// openFolder opens model dir's decoder as a route does, with the optimized copy in cache, on
// the 32-bit KV cache: its callers compare greedy tokens and logits with the graph as
// published and with numpy's, which the 8-bit cache only comes near.
func openFolder(t *testing.T, dir, cache string) inference.Decoder {
	t.Helper()
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open(f, inference.LoadOptions{EP: cpu1, GraphCache: cache, MaxContext: 512, KVCache: inference.KV32})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// A graph whose nodes have no names, or share names, loads through its optimized copy (norms
// fused, attention rewritten, no fallback) and gives the greedy tokens of its named twin.
func TestUnnamedNodes(t *testing.T) {
	prompt := vocabIDs(40, 5, 151936)
	for _, q := range []synth.Quant{synth.QuantNone, synth.QuantQ4} {
		named := synthModel(t, "names-unique-"+q.File(), func(o *synth.Options) { o.Quant = q })
		want := greedyDecode(t, openFolder(t, named, t.TempDir()), prompt, 30)
		requireVaried(t, want)
		for _, names := range []synth.NodeNames{synth.NamesNone, synth.NamesRepeated} {
			t.Run(q.File()+"/"+map[synth.NodeNames]string{synth.NamesNone: "unnamed", synth.NamesRepeated: "repeated names"}[names], func(t *testing.T) {
				dir := synthModel(t, "names-"+string(rune('0'+names))+"-"+q.File(), func(o *synth.Options) { o.Quant, o.NodeNames = q, names })
				cache := t.TempDir()
				got := greedyDecode(t, openFolder(t, dir, cache), prompt, 30)
				if !slices.Equal(got, want) {
					t.Fatalf("greedy tokens %v, want the named twin's %v", got, want)
				}
				f, _ := models.Open(dir, "")
				if why, ok := optimize.Fallback(f.Model, cache); ok {
					t.Fatalf("the optimized copy fell back to the published graph: %s", why)
				}
				copies, _ := filepath.Glob(filepath.Join(cache, "optimized", "*", filepath.Base(f.Model)))
				if len(copies) != 1 {
					t.Fatalf("optimized copies %v, want one", copies)
				}
				info, err := proto.ReadInfo(copies[0])
				if err != nil {
					t.Fatal(err)
				}
				// The norms rewritten: as nodes, or inside the kernel's products (MetaPreNorm).
				norms := info.Ops["SimplifiedLayerNormalization"] > 0 || info.Metadata[optimize.MetaPreNorm] != ""
				if !norms || attnop.AttentionNodes(info) == 0 { // ONNX Runtime's or EdgeChat's kernels
					t.Fatalf("the copy runs without its rewrites: %v", info.Ops)
				}
			})
		}
	}
}

// An optimized copy that ONNX Runtime refuses gives way to the graph as published: the route
// loads, decodes as the published graph does, and the refusal is recorded, so the next load
// goes straight to the published graph.
func TestRefusedCopyFallsBack(t *testing.T) {
	t.Setenv(AttnKernelVar, "off") // the copies below are those on GroupQueryAttention
	dir := tinyModel(t)
	prompt := vocabIDs(20, 3, 151936)
	want := greedyDecode(t, openFolder(t, dir, ""), prompt, 20)
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		copy func(t *testing.T, cache string) string // writes a copy ONNX Runtime refuses; returns its path
	}{
		{"attention copy", func(t *testing.T, cache string) string {
			p, err := optimize.CachedPath(f.Model, cache, gqaOptions(512, cpu1))
			if err != nil {
				t.Fatal(err)
			}
			writeRefused(t, p)
			if err := os.WriteFile(verdictPath(p, cpu1), []byte("ok\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"copy without the attention rewrite", func(t *testing.T, cache string) string {
			gqa, _ := optimize.CachedPath(f.Model, cache, gqaOptions(512, cpu1))
			if err := os.MkdirAll(filepath.Dir(gqa), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(verdictPath(gqa, cpu1), []byte("mismatch: forced by the test\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p, _ := optimize.CachedPath(f.Model, cache, graphOptions)
			writeRefused(t, p)
			return p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			tc.copy(t, cache)
			got := greedyDecode(t, openFolder(t, dir, cache), prompt, 20)
			if !slices.Equal(got, want) {
				t.Fatalf("greedy tokens %v, want the published graph's %v", got, want)
			}
			why, ok := optimize.Fallback(f.Model, cache)
			if !ok || !strings.Contains(why, "same node name") {
				t.Fatalf("fallback recorded %v, reason %q: want ONNX Runtime's refusal", ok, why)
			}
			if g := optimizedGraph(f, cache, cpu1, 512, kernels{}, nil); g != f.Model {
				t.Fatalf("after the fallback the route runs %s, want the published graph", g)
			}
		})
	}
}

// writeRefused writes at p a copy of the tiny model's graph that ONNX Runtime refuses, as it
// refused the copies of graphs with unnamed nodes before names were made unique: the same
// graph with nodes sharing names ("two nodes with same node name").
func writeRefused(t *testing.T, p string) {
	t.Helper()
	f, err := models.Open(synthModel(t, "names-repeated-tiny", func(o *synth.Options) { o.NodeNames = synth.NamesRepeated }), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f.Model)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
