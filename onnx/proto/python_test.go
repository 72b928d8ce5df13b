package proto

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/testenv"
)

// TestReadPythonModel reads a model written by the onnx Python package (the reference
// serializer, with external data, value_info, doc strings and an EPContext node).
func TestReadPythonModel(t *testing.T) {
	py := testenv.Python(t)
	dir := t.TempDir()
	script := `import sys, numpy as np, onnx, onnx.numpy_helper
from onnx import helper as h, TensorProto as T
w = onnx.numpy_helper.from_array(np.ones((64, 64), np.float32), "w")
b = onnx.numpy_helper.from_array(np.zeros((64,), np.float16), "b")
g = h.make_graph(
    [h.make_node("MatMul", ["x", "w"], ["y"], name="mm"),
     h.make_node("EPContext", ["y"], ["z"], name="ctx", domain="com.microsoft",
                 embed_mode=0, ep_cache_context="model_ctx_ab12.bin", source="QNN", main_context=1)],
    "g", [h.make_tensor_value_info("x", T.FLOAT, ["batch", 64]), h.make_tensor_value_info("w", T.FLOAT, [64, 64])],
    [h.make_tensor_value_info("z", T.FLOAT16, ["batch", None])], [w, b], doc_string="doc")
g.value_info.append(h.make_tensor_value_info("y", T.FLOAT, ["batch", 64]))
m = h.make_model(g, producer_name="onnx-py", opset_imports=[h.make_opsetid("", 17), h.make_opsetid("com.microsoft", 1)])
m.ir_version = 8
h.set_model_props(m, {"author": "edgechat"})
onnx.save(m, sys.argv[1], save_as_external_data=True, location="m.onnx.data", size_threshold=1024)`
	path := filepath.Join(dir, "m.onnx")
	if out, err := exec.Command(py, "-c", script, path).CombinedOutput(); err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	got, err := ReadInfo(path)
	if err != nil {
		t.Fatal(err)
	}
	want := &ModelInfo{
		IRVersion: 8, Producer: "onnx-py",
		Opsets:           []Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}},
		Inputs:           []IO{{Name: "x", ElemType: "float32", Dims: []Dim{{Param: "batch"}, {Value: 64}}}},
		Outputs:          []IO{{Name: "z", ElemType: "float16", Dims: []Dim{{Param: "batch"}, {}}}},
		Initializers:     2,
		InitializerBytes: 128,
		WeightBytes:      64*64*4 + 128, // the external length onnx writes, and the inline bias
		ExternalFiles:    []string{"m.onnx.data"},
		Ops:              map[string]int{"MatMul": 1, "com.microsoft:EPContext": 1},
		EPContexts:       []EPContext{{Node: "ctx", CacheContext: "model_ctx_ab12.bin", Source: "QNN", MainContext: 1}},
		Metadata:         map[string]string{"author": "edgechat"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadInfo (-want +got):\n%s", diff)
	}
}
