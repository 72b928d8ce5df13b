package proto

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/testenv"
)

// sample builds a small model that uses every feature of the writer.
func sample(weight []float32) *Model {
	return &Model{
		IRVersion: 8, Producer: "edgechat-test", ProducerVersion: "1",
		Opsets:   []Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}},
		Metadata: map[string]string{"b": "2", "a": "1"},
		Graph: Graph{
			Name: "g",
			Inputs: []ValueInfo{
				{Name: "x", Type: Float, Dims: Dims("batch_size", 4)},
				{Name: "w", Type: Float, Dims: Dims(4, 4)}, // also an initializer: not a real input
			},
			Outputs: []ValueInfo{{Name: "y", Type: Float16, Dims: Dims("batch_size", 4)}},
			Nodes: []Node{
				{Name: "mm", OpType: "MatMul", Inputs: []string{"x", "w"}, Outputs: []string{"xw"}},
				{Name: "c", OpType: "Constant", Outputs: []string{"one"}, Attrs: []Attr{TensorAttr("value", FloatTensor("", []int64{1}, []float32{1}))}},
				{Name: "add", OpType: "Add", Inputs: []string{"xw", "one"}, Outputs: []string{"xw1"}},
				{Name: "cast", OpType: "Cast", Inputs: []string{"xw1"}, Outputs: []string{"y"}, Attrs: []Attr{IntAttr("to", int64(Float16))}},
			},
			Initializers: []*Tensor{
				FloatTensor("w", []int64{4, 4}, weight),
				Int64Tensor("unused_i64", []int64{2}, []int64{-1, 7}),
				Int32Tensor("unused_i32", []int64{1}, []int32{3}),
				Float16Tensor("unused_f16", []int64{2}, []float32{0.5, -2}),
			},
		},
	}
}

func eye() []float32 {
	w := make([]float32, 16)
	for i := range 4 {
		w[5*i] = 1
	}
	return w
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		opt  WriteOptions
		ext  []string
	}{
		{"inline", WriteOptions{}, nil},
		{"external", WriteOptions{ExternalData: "m.onnx.data", ExternalThreshold: 16}, []string{"m.onnx.data"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".onnx")
			if err := sample(eye()).WriteFile(path, tc.opt); err != nil {
				t.Fatal(err)
			}
			mi, err := ReadInfo(path)
			if err != nil {
				t.Fatal(err)
			}
			want := &ModelInfo{
				IRVersion: 8, Producer: "edgechat-test", ProducerVersion: "1",
				Opsets:        []Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}},
				Inputs:        []IO{{Name: "x", ElemType: "float32", Dims: []Dim{{Param: "batch_size"}, {Value: 4}}}},
				Outputs:       []IO{{Name: "y", ElemType: "float16", Dims: []Dim{{Param: "batch_size"}, {Value: 4}}}},
				Initializers:  4,
				ExternalFiles: tc.ext,
				Ops:           map[string]int{"MatMul": 1, "Constant": 1, "Add": 1, "Cast": 1},
				Metadata:      map[string]string{"a": "1", "b": "2"},
			}
			want.InitializerBytes = 64 + 16 + 4 + 4
			want.WeightBytes = want.InitializerBytes // inline or not
			if tc.opt.ExternalData != "" {
				want.InitializerBytes = 4 + 4 // the 16-byte int64 tensor went out too
			}
			if diff := cmp.Diff(want, mi); diff != "" {
				t.Errorf("ReadInfo (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckModel has the ONNX checker and ONNX's own protobuf parser judge the writer's output.
func TestCheckModel(t *testing.T) {
	py := testenv.Python(t)
	path := filepath.Join(t.TempDir(), "m.onnx")
	if err := sample(eye()).WriteFile(path, WriteOptions{ExternalData: "m.onnx.data"}); err != nil {
		t.Fatal(err)
	}
	script := `import sys, onnx, onnx.numpy_helper
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
print(m.graph.node[1].attribute[0].t.float_data or list(onnx.numpy_helper.to_array(m.graph.node[1].attribute[0].t)))
print(onnx.numpy_helper.to_array(m.graph.initializer[0]).sum(), list(onnx.numpy_helper.to_array(m.graph.initializer[1])), list(onnx.numpy_helper.to_array(m.graph.initializer[3])))
print(m.graph.input[0].type.tensor_type.shape.dim[0].dim_param, [(p.key, p.value) for p in m.metadata_props])`
	out, err := exec.Command(py, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("onnx rejects the model: %v\n%s", err, out)
	}
	want := "[1.0]\n4.0 [-1, 7] [0.5, -2.0]\nbatch_size [('a', '1'), ('b', '2')]\n"
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("python view (-want +got):\n%s", diff)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

func TestParseSkipsWeights(t *testing.T) {
	m := sample(eye())
	big := make([]float32, 4<<20) // 16 MiB
	m.Graph.Initializers = append(m.Graph.Initializers, FloatTensor("big", []int64{int64(len(big))}, big))
	m.Graph.Outputs = append(m.Graph.Outputs, ValueInfo{Name: "after_big", Type: Int64, Dims: Dims(1)})
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	cr := &countingReader{r: bytes.NewReader(b)}
	mi, err := Parse(cr, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if cr.n > 1<<20 {
		t.Errorf("Parse read %d bytes of a %d-byte model", cr.n, len(b))
	}
	if _, ok := mi.Output("after_big"); !ok {
		t.Errorf("outputs %v lack after_big", mi.Outputs)
	}
}

func TestEPContext(t *testing.T) {
	m := &Model{IRVersion: 8, Opsets: []Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}}}
	m.Graph.Inputs = []ValueInfo{{Name: "input_ids", Type: Int32, Dims: Dims(1, 64)}}
	m.Graph.Outputs = []ValueInfo{{Name: "logits", Type: Float, Dims: Dims(1, 64, 151936)}}
	m.Graph.Nodes = []Node{
		{Name: "ctx_0", OpType: "EPContext", Domain: "com.microsoft", Inputs: []string{"input_ids"}, Outputs: []string{"logits"},
			Attrs: []Attr{IntAttr("embed_mode", 0), StringAttr("ep_cache_context", "decoder_prefill_model_ctx_1a2b.bin"), StringAttr("source", "QNN"), IntAttr("main_context", 1)}},
		{Name: "ctx_1", OpType: "EPContext", Domain: "com.microsoft", Attrs: []Attr{IntAttr("embed_mode", 1), StringAttr("ep_cache_context", strings.Repeat("\x00", 10000))}},
	}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	mi, err := Parse(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	want := []EPContext{
		{Node: "ctx_0", CacheContext: "decoder_prefill_model_ctx_1a2b.bin", Source: "QNN", MainContext: 1},
		{Node: "ctx_1", EmbedMode: 1, EmbeddedBytes: 10000},
	}
	if diff := cmp.Diff(want, mi.EPContexts); diff != "" {
		t.Errorf("EPContexts (-want +got):\n%s", diff)
	}
	if got := mi.Ops[OpKey("com.microsoft", "EPContext")]; got != 2 {
		t.Errorf("Ops = %v, want 2 com.microsoft:EPContext", mi.Ops)
	}
}

type notONNXCase struct {
	name string
	data []byte
	want string
}

// notONNX are files ReadInfo must reject; they also seed FuzzParse.
func notONNX() []notONNXCase {
	good, _ := sample(eye()).Marshal()
	return []notONNXCase{
		{"json", []byte(`{"model_type": "qwen3"}`), "not an ONNX model (protobuf parse failed at byte"},
		{"empty", nil, "not an ONNX model (no graph or IR version found)"},
		{"truncated", good[:len(good)-10], "not an ONNX model (protobuf parse failed at byte"},
		{"huge length", []byte{0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f}, "not an ONNX model (protobuf parse failed at byte 0: field 7 claims"},
		{"bad wire type", []byte{0x08, 0x08, 0x3b}, "not an ONNX model (protobuf parse failed at byte 2: unsupported wire type 3"},
	}
}

func TestNotONNX(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range notONNX() {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadInfo(path)
			if err == nil || !strings.Contains(err.Error(), path+" is "+tc.want) || !errors.Is(err, ErrNotONNX) {
				t.Errorf("ReadInfo error = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := ReadInfo(dir); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("ReadInfo(folder) = %v", err)
	}
}

func TestFloat16(t *testing.T) {
	for _, tc := range []struct {
		f float32
		h uint16
	}{
		{0, 0x0000}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65520, 0x7c00}, {1e6, 0x7c00},
		{float32(math.Inf(-1)), 0xfc00}, {6.103515625e-05, 0x0400}, {5.960464477539063e-08, 0x0001},
		{2.9802322387695312e-08, 0x0000}, {2.98023259e-08, 0x0001}, {1.0009765625, 0x3c01},
		{1.00048828125, 0x3c00}, {1.00146484375, 0x3c02}, {0.333333343, 0x3555},
	} {
		if got := Float32ToFloat16(tc.f); got != tc.h {
			t.Errorf("Float32ToFloat16(%g) = %#04x, want %#04x", tc.f, got, tc.h)
		}
	}
	if h := Float32ToFloat16(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("NaN → %#04x", h)
	}
	// Every finite half converts to float32 and back to itself.
	for h := range uint32(0x10000) {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue
		}
		if got := Float32ToFloat16(Float16ToFloat32(uint16(h))); got != uint16(h) {
			t.Fatalf("round trip of %#04x gives %#04x", h, got)
		}
	}
	got := FromFloat16Bytes(Float16Bytes([]float32{0.5, -3, 1024}))
	if diff := cmp.Diff([]float32{0.5, -3, 1024}, got); diff != "" {
		t.Errorf("fp16 bytes (-want +got):\n%s", diff)
	}
}

func FuzzParse(f *testing.F) {
	good, _ := sample(eye()).Marshal()
	f.Add(good)
	for _, tc := range notONNX() {
		f.Add(tc.data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		mi, err := Parse(bytes.NewReader(b), int64(len(b)))
		if err == nil && mi == nil {
			t.Fatal("nil info without error")
		}
	})
}

// WeightBytes counts inline and external weights alike; TableBytes the ones Gather reads rows
// of (what a decode step does not read whole).
func TestWeightBytes(t *testing.T) {
	for _, ext := range []bool{false, true} {
		m := sample(eye())
		table := make([]float32, 1000)
		m.Graph.Initializers = append(m.Graph.Initializers, FloatTensor("table", []int64{250, 4}, table))
		m.Graph.Inputs = append(m.Graph.Inputs, ValueInfo{Name: "ids", Type: Int64, Dims: Dims(1)})
		m.Graph.Nodes = append(m.Graph.Nodes, Node{Name: "g", OpType: "Gather", Inputs: []string{"table", "ids"}, Outputs: []string{"rows"}})
		path := filepath.Join(t.TempDir(), "m.onnx")
		opt := WriteOptions{}
		if ext {
			opt = WriteOptions{ExternalData: "m.onnx_data", ExternalThreshold: 16}
		}
		if err := m.WriteFile(path, opt); err != nil {
			t.Fatal(err)
		}
		mi, err := ReadInfo(path)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(16*4 + 2*8 + 4 + 2*2 + 1000*4)
		if mi.WeightBytes != want || mi.TableBytes != 4000 {
			t.Errorf("external %v: weights %d bytes, tables %d; want %d and 4000", ext, mi.WeightBytes, mi.TableBytes, want)
		}
	}
}
