package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
)

func TestParse(t *testing.T) {
	tiny := synth.Tiny()
	tiny.TokenizerDir = "/tok"
	with := func(f func(*synth.Options)) synth.Options {
		o := tiny
		f(&o)
		return o
	}
	shape := synth.Qwen3Shape()
	shape.TokenizerDir = "/tok"
	for _, tc := range []struct {
		name    string
		args    []string
		want    synth.Options
		wantErr string
	}{
		{"defaults", nil, tiny, ""},
		{"shape flags", []string{"--layers", "3", "--hidden", "32", "--heads", "2", "--kv-heads", "1", "--head-dim", "8", "--intermediate", "64", "--vocab", "1000", "--max-pos", "512", "--seed", "7"},
			with(func(o *synth.Options) {
				o.Layers, o.Hidden, o.Heads, o.KVHeads, o.HeadDim, o.Intermediate, o.Vocab, o.MaxPositions, o.Seed = 3, 32, 2, 1, 8, 64, 1000, 512, 7
			}), ""},
		{"fp16 kv", []string{"--kv-dtype", "fp16"}, with(func(o *synth.Options) { o.KVFloat16 = true }), ""},
		{"preset", []string{"--preset", "qwen3-0.6b-shape"}, shape, ""},
		{"real depth", []string{"--preset", "qwen3-0.6b"}, func() synth.Options { o := shape; o.Layers = 28; return o }(), ""},
		{"preset layers override", []string{"--preset", "qwen3-0.6b-shape", "--layers", "2"}, func() synth.Options { o := shape; o.Layers = 2; return o }(), ""},
		{"preset inline", []string{"--preset", "qwen3-0.6b-shape", "--external-data=false"}, func() synth.Options { o := shape; o.ExternalData = false; return o }(), ""},
		{"external data", []string{"--external-data"}, with(func(o *synth.Options) { o.ExternalData = true }), ""},
		{"static", []string{"--static", "--max-cache", "128", "--prefill-len", "32"},
			with(func(o *synth.Options) { o.Layout, o.MaxCache, o.PrefillLen = synth.LayoutStatic, 128, 32 }), ""},
		{"genai", []string{"--layout", "genai"}, with(func(o *synth.Options) { o.Layout = synth.LayoutGenAI }), ""},
		{"bundle defaults to fp16", []string{"--layout", "bundle"}, with(func(o *synth.Options) { o.Layout, o.KVFloat16 = synth.LayoutBundle, true }), ""},
		{"bundle fp32", []string{"--layout", "bundle", "--kv-dtype", "fp32"}, with(func(o *synth.Options) { o.Layout = synth.LayoutBundle }), ""},
		{"q4", []string{"--quant", "q4", "--zero-points"}, with(func(o *synth.Options) { o.Quant, o.ZeroPoints = synth.QuantQ4, true }), ""},
		{"q4f16 defaults to fp16", []string{"--quant", "q4f16"}, with(func(o *synth.Options) { o.Quant, o.KVFloat16 = synth.QuantQ4F16, true }), ""},
		{"genai-int4 picks layout genai", []string{"--quant", "genai-int4"}, with(func(o *synth.Options) { o.Quant, o.Layout = synth.QuantGenAIInt4, synth.LayoutGenAI }), ""},
		{"int8 not in genai", []string{"--quant", "int8", "--layout", "genai"}, synth.Options{}, "quantization int8 is published in layout hf"},
		{"bad quant", []string{"--quant", "q3"}, synth.Options{}, `unknown quantization "q3"`},
		{"bad kv", []string{"--kv-dtype", "int8"}, synth.Options{}, `unknown --kv-dtype "int8"`},
		{"bad layout", []string{"--layout", "gguf"}, synth.Options{}, `unknown layout "gguf"`},
		{"bad heads", []string{"--heads", "3"}, synth.Options{}, "heads (3) must be a multiple of kv-heads (2)"},
		{"copying", []string{"--preset", "qwen3-0.6b-shape", "--quant", "q4", "--copying"}, func() synth.Options {
			o := shape
			o.Quant, o.Copying = synth.QuantQ4, true
			return o
		}(), ""},
		{"copying needs room", []string{"--copying"}, synth.Options{}, "a copying model needs hidden ≥ 4 × head_dim + 1"},
		{"family", []string{"--family", "gpt2", "--merged", "--no-position-ids", "--past-names", "past"}, func() synth.Options {
			o := synth.FamilyTiny(synth.FamilyGPT2)
			o.TokenizerDir, o.Merged, o.NoPositionIDs, o.PastNames = "/tok", true, true, synth.PastDotted
			return o
		}(), ""},
		{"family shape flags", []string{"--family", "opt", "--vocab", "50257", "--max-pos", "2048"}, func() synth.Options {
			o := synth.FamilyTiny(synth.FamilyOPT)
			o.TokenizerDir, o.Vocab, o.MaxPositions = "/tok", 50257, 2048
			return o
		}(), ""},
		{"bad family", []string{"--family", "bloom"}, synth.Options{}, `unknown family "bloom"`},
		{"family kv heads", []string{"--family", "phi", "--kv-heads", "2"}, synth.Options{}, "multi-head attention"},
		{"merged needs a family", []string{"--merged"}, synth.Options{}, "apply to the other families"},
		{"bad preset", []string{"--preset", "big"}, synth.Options{}, `unknown --preset "big"`},
		{"no out", []string{"--out", ""}, synth.Options{}, "--out is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--out", "/m", "--tokenizer", "/tok"}, tc.args...)
			dir, got, err := parse(args, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || dir != "/m" {
				t.Fatalf("parse = %q, %v", dir, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunCheckModel runs the command for every layout and KV dtype (small vocabulary to keep
// it quick) and has ONNX's checker with full_check accept every file written.
func TestRunCheckModel(t *testing.T) {
	testenv.Python(t) // fail or skip before writing models when the checker is missing
	tok := testenv.TokenizerDir(t, "qwen3")
	root := t.TempDir()
	var files []string
	for _, layout := range []string{"hf", "genai", "static", "bundle"} {
		for _, kv := range []string{"fp32", "fp16"} {
			dir := filepath.Join(root, layout+"-"+kv)
			var out bytes.Buffer
			if err := run([]string{"--out", dir, "--layout", layout, "--kv-dtype", kv, "--vocab", "2048", "--tokenizer", tok}, &out, io.Discard); err != nil {
				t.Fatalf("%s %s: %v", layout, kv, err)
			}
			if !strings.Contains(out.String(), "wrote "+layout+" model") {
				t.Errorf("output %q", out.String())
			}
			for _, f := range []string{"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
			m, _ := filepath.Glob(filepath.Join(dir, "*.onnx"))
			m2, _ := filepath.Glob(filepath.Join(dir, "onnx", "*.onnx"))
			files = append(append(files, m...), m2...)
		}
	}
	// Weights in a data file beside the graph, under the name each layout's exporter uses.
	for layout, data := range map[string]string{"hf": "onnx/model.onnx_data", "genai": "model.onnx.data"} {
		dir := filepath.Join(root, layout+"-external")
		if err := run([]string{"--out", dir, "--layout", layout, "--external-data", "--vocab", "2048", "--tokenizer", tok}, io.Discard, io.Discard); err != nil {
			t.Fatalf("%s --external-data: %v", layout, err)
		}
		st, err := os.Stat(filepath.Join(dir, data))
		if err != nil || st.Size() < 256<<10 {
			t.Fatalf("%s --external-data: data file %s: %v", layout, data, err)
		}
		graph := filepath.Join(dir, strings.TrimSuffix(strings.TrimSuffix(data, "_data"), ".data"))
		if gs, err := os.Stat(graph); err != nil || gs.Size() > 64<<10 {
			t.Errorf("%s --external-data: graph %s should hold no weights: %v", layout, graph, err)
		}
		files = append(files, graph)
	}
	testenv.CheckONNX(t, files...)
	if len(files) != 2*(1+1+2+4)+2 {
		t.Errorf("checked %d files: %v", len(files), files)
	}
}
