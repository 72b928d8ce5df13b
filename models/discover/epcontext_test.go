package discover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/filecopy"
	"edgechat/onnx/proto"
)

// compiled writes a layout-C folder whose two decoders are EPContext graphs naming bin.
func compiled(t *testing.T, dir, bin string) {
	t.Helper()
	for _, name := range []string{"decoder_prefill_model.onnx", "decoder_gen_model.onnx"} {
		m := &proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}}}
		m.Graph.Inputs = []proto.ValueInfo{{Name: "input_ids", Type: proto.Int32, Dims: proto.Dims(1, 64)}}
		m.Graph.Outputs = []proto.ValueInfo{{Name: "logits", Type: proto.Float, Dims: proto.Dims(1, 64, 512)}}
		m.Graph.Nodes = []proto.Node{{Name: "ctx", OpType: "EPContext", Domain: "com.microsoft", Inputs: []string{"input_ids"}, Outputs: []string{"logits"},
			Attrs: []proto.Attr{proto.IntAttr("embed_mode", 0), proto.StringAttr("ep_cache_context", bin), proto.StringAttr("source", "QNN")}}}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteFile(filepath.Join(dir, name), proto.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"config.json", "tokenizer.json", "tokenizer_config.json"} {
		if err := filecopy.LinkOrCopy(filepath.Join(base["C"], f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCompiledNPUBuild(t *testing.T) {
	root := t.TempDir()
	good := filepath.Join(root, "good")
	compiled(t, good, "ctx_1a2b.bin")
	write(t, filepath.Join(good, "ctx_1a2b.bin"), strings.Repeat("x", 1000))
	missing := filepath.Join(root, "missing")
	compiled(t, missing, "ctx_ffff.bin")

	res := Scan(Roots{User: []string{root}})
	if len(res.Models) != 1 {
		t.Fatalf("models %+v, want the good one", res.Models)
	}
	m := res.Models[0]
	if m.Path != good || m.Device != "npu" || m.Quantization != "compiled" || m.Layout != "C" || m.SizeBytes < 1000 {
		t.Errorf("compiled build = %+v, want layout C, npu, compiled, with the context binary's size", m)
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "ctx_ffff.bin, which is missing") {
		t.Errorf("skipped %+v, want the folder without its context binary", res.Skipped)
	}
}

func TestQuantizationLabel(t *testing.T) {
	for _, tc := range []struct {
		ops  []string
		fp16 bool
		want string
	}{
		{[]string{"MatMulNBits", "GroupQueryAttention"}, false, "int4"},
		{[]string{"GatherBlockQuantized", "MatMul"}, true, "int4"},
		{[]string{"DynamicQuantizeLinear", "MatMulInteger"}, false, "int8"},
		{[]string{"QuantizeLinear", "DequantizeLinear"}, false, "qdq"},
		{[]string{"EPContext"}, false, "compiled"},
		{[]string{"MatMul"}, true, "fp16"},
		{[]string{"MatMul"}, false, "fp32"},
	} {
		ops := map[string]bool{}
		for _, o := range tc.ops {
			ops[o] = true
		}
		if got := quantization(ops, tc.fp16); got != tc.want {
			t.Errorf("quantization(%v, fp16 %v) = %s, want %s", tc.ops, tc.fp16, got, tc.want)
		}
	}
}
