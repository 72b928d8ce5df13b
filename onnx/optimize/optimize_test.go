package optimize_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

func write(t *testing.T, o synth.Options) string {
	t.Helper()
	dir := t.TempDir()
	if err := synth.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	switch {
	case o.Family != "":
		return filepath.Join(dir, synth.FamilyModelFile(o))
	case o.Layout == synth.LayoutGenAI:
		return filepath.Join(dir, "model.onnx")
	}
	return filepath.Join(dir, "onnx", o.Quant.File())
}

func open(t *testing.T, path string) *loop.Loop {
	t.Helper()
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	l, err := loop.Open(path, loop.Options{Threads: 1, MaxTokens: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func maxDiff(a, b []float32) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(float64(a[i]-b[i])))
	}
	return m
}

var prompt = []int{151644, 872, 198, 9707, 11, 1879, 0, 220, 108386, 220, 151645, 198}

func variants() map[string]synth.Options {
	q4 := synth.Tiny()
	q4.Quant = synth.QuantQ4
	genai := synth.Tiny()
	genai.Quant, genai.Layout = synth.QuantGenAIInt4, synth.LayoutGenAI
	ext := synth.Tiny()
	ext.ExternalData = true
	zp := q4
	zp.ZeroPoints = true
	return map[string]synth.Options{"fp32": synth.Tiny(), "q4": q4, "q4 zero points": zp, "genai-int4": genai, "fp32 external data": ext}
}

// TestLastRows: the pruned graph's logits are the original's last rows, in prefill and in
// decoding, with one row fixed or as many as logits_to_keep asks.
func TestLastRows(t *testing.T) {
	for name, o := range variants() {
		t.Run(name, func(t *testing.T) {
			path := write(t, o)
			ref := open(t, path)
			want, err := ref.Step(prompt)
			if err != nil {
				t.Fatal(err)
			}
			v := ref.Vocab()
			for _, c := range []struct{ keep, layer bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
				keep := c.keep
				out, rep, err := optimize.Cached(path, t.TempDir(), optimize.Options{LastRows: true, KeepInput: keep, LastLayerRows: c.layer})
				if err != nil {
					t.Fatal(err)
				}
				if rep.LMHead == "" {
					t.Error("no LM head reported")
				}
				// Only GroupQueryAttention graphs have an attention output the rows can be cut
				// after; an export's attention ends in a Reshape.
				if gqa := o.Layout == synth.LayoutGenAI; c.layer && (rep.LastLayerNodes > 0) != gqa {
					t.Errorf("last layer: %d nodes pruned (skipped: %q), want pruning %v", rep.LastLayerNodes, rep.LastLayerSkipped, gqa)
				} else if c.layer && !gqa && !strings.Contains(rep.LastLayerSkipped, "Reshape") {
					t.Errorf("last layer skipped because %q", rep.LastLayerSkipped)
				}
				testenv.CheckONNX(t, out)
				l := open(t, out)
				rows := 1
				if keep {
					rows, l.Keep = 3, 3
				}
				got, err := l.Step(prompt)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != rows*v {
					t.Fatalf("%+v: %d logits, want %d rows", c, len(got)/v, rows)
				}
				if d := maxDiff(want[len(want)-rows*v:], got); !(d < 1e-4) {
					t.Errorf("%+v: the last rows differ from the full graph's by %g", c, d)
				}
			}
		})
	}
}

// TestAccuracyLevel sets level 4 where it is unset and leaves the rest of the graph alone.
func TestAccuracyLevel(t *testing.T) {
	for name, o := range variants() {
		t.Run(name, func(t *testing.T) {
			path := write(t, o)
			out, rep, err := optimize.Cached(path, t.TempDir(), optimize.Options{AccuracyLevel: 4})
			if err != nil {
				t.Fatal(err)
			}
			before, _ := proto.ReadInfo(path)
			after, err := proto.ReadInfo(out)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for nb, n := range before.NBits {
				if nb.AccuracyLevel < 4 && !nb.ZeroPoints {
					want += n
				}
			}
			if rep.AccuracyLevelSet != want {
				t.Errorf("set the level on %d nodes, want %d", rep.AccuracyLevelSet, want)
			}
			for nb := range after.NBits {
				if wantLevel := int64(4); nb.ZeroPoints {
					if nb.AccuracyLevel != 0 {
						t.Errorf("a MatMulNBits node with zero points got level %d (issue #29853)", nb.AccuracyLevel)
					}
				} else if nb.AccuracyLevel != wantLevel {
					t.Errorf("a MatMulNBits node kept level %d", nb.AccuracyLevel)
				}
			}
			if len(after.Ops) != len(before.Ops) || len(after.Inputs) != len(before.Inputs) {
				t.Errorf("ops %v → %v", before.Ops, after.Ops)
			}
			testenv.CheckONNX(t, out)
			open(t, out) // ONNX Runtime accepts it
		})
	}
}

// TestFloatCompute undoes accuracy levels, an exporter's or EdgeChat's, zero points or not:
// the twins the attention check compares in float32.
func TestFloatCompute(t *testing.T) {
	for name, o := range variants() {
		t.Run(name, func(t *testing.T) {
			path := write(t, o)
			cache := t.TempDir()
			int8, _, err := optimize.Cached(path, cache, optimize.Options{AccuracyLevel: 4})
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := optimize.Cached(int8, cache, optimize.Options{FloatCompute: true})
			if err != nil {
				t.Fatal(err)
			}
			after, err := proto.ReadInfo(out)
			if err != nil {
				t.Fatal(err)
			}
			for nb := range after.NBits {
				if nb.AccuracyLevel != 0 {
					t.Errorf("a MatMulNBits node kept level %d", nb.AccuracyLevel)
				}
			}
			testenv.CheckONNX(t, out)
			open(t, out)
		})
	}
	if _, _, err := optimize.Rewrite(nil, optimize.Options{FloatCompute: true, AccuracyLevel: 4}); err == nil {
		t.Error("float compute with an accuracy level was accepted")
	}
}

// TestCachedOnce: the copy is written once, beside links to the weights, and the user's
// folder is left as it was.
func TestCachedOnce(t *testing.T) {
	o := synth.Tiny()
	o.ExternalData = true
	path := write(t, o)
	entries := func() []string {
		es, _ := os.ReadDir(filepath.Dir(path))
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	before := entries()
	cache := t.TempDir()
	first, _, err := optimize.Cached(path, cache, optimize.Options{LastRows: true})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(first)
	second, _, err := optimize.Cached(path, cache, optimize.Options{LastRows: true})
	if err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(second)
	if first != second || !st.ModTime().Equal(st2.ModTime()) {
		t.Errorf("second call wrote again: %s then %s", first, second)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(first), "model.onnx_data")); err != nil {
		t.Errorf("weights not linked beside the copy: %v", err)
	}
	other, _, _ := optimize.Cached(path, cache, optimize.Options{LastRows: true, AccuracyLevel: 4})
	if other == first {
		t.Error("different options share one copy")
	}
	if after := entries(); len(after) != len(before) {
		t.Errorf("the model folder changed: %v → %v", before, after)
	}
}

// Optimum's merged decoder becomes its with-past branch in line, and the rewrites then apply:
// the attention becomes GroupQueryAttention and the LM head computes the rows asked for.
func TestMergedDecoderUnmerged(t *testing.T) {
	for _, f := range []synth.Family{synth.FamilyGPT2, synth.FamilyOPT} {
		o := synth.FamilyTiny(f)
		o.Merged = true
		src, err := os.ReadFile(write(t, o))
		if err != nil {
			t.Fatal(err)
		}
		out, rep, err := optimize.Rewrite(src, optimize.Options{LastRows: true, KeepInput: true, SharedKVAttention: true})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Unmerged || rep.AttentionLayers != o.Layers || rep.LMHead == "" {
			t.Fatalf("%s: unmerged %v (%q), %d attention layers (%q), LM head %q", f, rep.Unmerged, rep.UnmergeSkipped, rep.AttentionLayers, rep.AttentionSkipped, rep.LMHead)
		}
		info, err := proto.Parse(bytes.NewReader(out), int64(len(out)))
		if err != nil {
			t.Fatal(err)
		}
		if info.Ops["If"] != 0 {
			t.Errorf("%s: the copy still has an If: %v", f, info.Ops)
		}
	}
}
