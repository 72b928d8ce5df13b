package synth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/proto"
)

// variants are the model folders the tests write, one per layout and KV dtype.
func variants() map[string]Options {
	v := map[string]Options{}
	for _, l := range Layouts {
		for _, fp16 := range []bool{false, true} {
			o := Tiny()
			o.Layout, o.KVFloat16 = l, fp16
			name := string(l) + "/fp32"
			if fp16 {
				name = string(l) + "/fp16"
			}
			v[name] = o
		}
	}
	return v
}

// wantFiles lists each layout's files besides config.json and generation_config.json.
var wantFiles = map[Layout][]string{
	LayoutHF:        {"onnx/model.onnx"},
	LayoutGenAI:     {"genai_config.json", "model.onnx"},
	LayoutStatic:    {StaticGenFile, StaticPrefillFile},
	LayoutBundle:    {"ctx.onnx", "embeddings.onnx", "genai_config.json", "iter.onnx", "lm_head.onnx"},
	LayoutFoundry:   {"context_ctx.onnx", "embeddings.onnx", "genai_config.json", "inference_model.json", "iterator_ctx.onnx", "lm_head.onnx"},
	LayoutEmbedding: {"1_Pooling/config.json", "config_sentence_transformers.json", "modules.json", "onnx/model.onnx"},
}

// TestCheckModel has ONNX's checker (full_check: strict shape inference) accept every file.
func TestCheckModel(t *testing.T) {
	testenv.Python(t) // fail or skip before writing models when the checker is missing
	var files []string
	for name, o := range variants() {
		dir := modelDir(t, o)
		var got []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				got = append(got, filepath.ToSlash(rel))
			}
			return err
		})
		want := append([]string{"config.json", "generation_config.json"}, wantFiles[o.Layout]...)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s files (-want +got):\n%s", name, diff)
		}
		for _, f := range got {
			if strings.HasSuffix(f, ".onnx") {
				files = append(files, filepath.Join(dir, f))
			}
		}
	}
	testenv.CheckONNX(t, files...)
	t.Logf("checked %d files", len(files))
}

// TestInterface reads each decoder's inputs and outputs back with proto.ReadInfo.
func TestInterface(t *testing.T) {
	o := Tiny()
	o.KVFloat16 = true
	mi, err := proto.ReadInfo(filepath.Join(modelDir(t, o), "onnx", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, elem, dims string
		output           bool
	}{
		{"input_ids", "int64", "[batch_size sequence_length]", false},
		{"attention_mask", "int64", "[batch_size total_sequence_length]", false},
		{"position_ids", "int64", "[batch_size sequence_length]", false},
		{"past_key_values.1.value", "float16", "[batch_size 2 past_sequence_length 16]", false},
		{"logits", "float32", "[batch_size sequence_length 151936]", true},
		{"present.0.key", "float16", "[batch_size 2 total_sequence_length 16]", true},
	} {
		find := mi.Input
		if tc.output {
			find = mi.Output
		}
		io, ok := find(tc.name)
		if !ok {
			t.Errorf("%s missing", tc.name)
			continue
		}
		if got := dimsString(io.Dims); io.ElemType != tc.elem || got != tc.dims {
			t.Errorf("%s: %s %s, want %s %s", tc.name, io.ElemType, got, tc.elem, tc.dims)
		}
	}
	if len(mi.Inputs) != 3+2*o.Layers || len(mi.Outputs) != 1+2*o.Layers {
		t.Errorf("%d inputs and %d outputs", len(mi.Inputs), len(mi.Outputs))
	}
}

func dimsString(ds []proto.Dim) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

// TestConfigs checks config.json and generation_config.json against Qwen3's.
func TestConfigs(t *testing.T) {
	dir := modelDir(t, Tiny())
	var cfg map[string]any
	readJSON(t, filepath.Join(dir, "config.json"), &cfg)
	for _, k := range []string{"architectures", "model_type", "hidden_size", "intermediate_size",
		"num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
		"max_position_embeddings", "rms_norm_eps", "rope_theta", "tie_word_embeddings", "vocab_size",
		"bos_token_id", "eos_token_id", "torch_dtype", "hidden_act", "attention_bias", "use_cache",
		"rope_scaling", "sliding_window", "use_sliding_window", "max_window_layers",
		"attention_dropout", "initializer_range", "transformers_version"} {
		if _, ok := cfg[k]; !ok {
			t.Errorf("config.json lacks %s", k)
		}
	}
	var gen map[string]any
	readJSON(t, filepath.Join(dir, "generation_config.json"), &gen)
	want := map[string]any{"bos_token_id": 151643.0, "eos_token_id": []any{151645.0, 151643.0}, "pad_token_id": 151643.0,
		"do_sample": true, "temperature": 0.6, "top_p": 0.95, "top_k": 20.0, "transformers_version": "4.51.0"}
	if diff := cmp.Diff(want, gen); diff != "" {
		t.Errorf("generation_config.json (-want +got):\n%s", diff)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
