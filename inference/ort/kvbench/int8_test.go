package main

import (
	"math"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/inference/ort/env"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/proto"

	ort "github.com/yalue/onnxruntime_go"
)

// The semantics of ONNX Runtime's int8 KV cache that onnx/optimize.QuantizeKV relies on, on one
// GroupQueryAttention node (4 query heads, 2 KV heads of 128, no rotary) with one shared buffer
// of 32 rows bound as past and present.
const tH, tKV, tHD, tRows = 4, 2, 128, 32

// semModel is the node with a float32 cache (qt "") or an int8 one of quant type qt and the
// given scales (the same for keys and values).
func semModel(qt string, dims []int64, scales []float32) *proto.Model {
	t := proto.Float
	if qt != "" {
		t = proto.Int8
	}
	g := proto.Graph{Name: "int8kv"}
	g.Inputs = []proto.ValueInfo{
		{Name: "q", Type: proto.Float, Dims: proto.Dims(1, "s", tH*tHD)},
		{Name: "k", Type: proto.Float, Dims: proto.Dims(1, "s", tKV*tHD)},
		{Name: "v", Type: proto.Float, Dims: proto.Dims(1, "s", tKV*tHD)},
		{Name: "past_key", Type: t, Dims: proto.Dims(1, tKV, "t", tHD)},
		{Name: "past_value", Type: t, Dims: proto.Dims(1, tKV, "t", tHD)},
		{Name: "seqlens_k", Type: proto.Int32, Dims: proto.Dims(1)},
		{Name: "total_sequence_length", Type: proto.Int32, Dims: proto.Dims(1)},
	}
	g.Outputs = []proto.ValueInfo{
		{Name: "out", Type: proto.Float, Dims: proto.Dims(1, "s", tH*tHD)},
		{Name: "present_key", Type: t, Dims: proto.Dims(1, tKV, "t", tHD)},
		{Name: "present_value", Type: t, Dims: proto.Dims(1, tKV, "t", tHD)},
	}
	in := []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length"}
	attrs := []proto.Attr{proto.IntAttr("num_heads", tH), proto.IntAttr("kv_num_heads", tKV)}
	if qt != "" {
		g.Initializers = []*proto.Tensor{proto.FloatTensor("k_scale", dims, scales), proto.FloatTensor("v_scale", dims, scales)}
		in = append(in, "", "", "", "", "", "k_scale", "v_scale") // cos, sin, position_ids, attention_bias, head_sink
		attrs = append(attrs, proto.StringAttr("k_quant_type", qt), proto.StringAttr("v_quant_type", qt), proto.IntAttr("kv_cache_bit_width", 8))
	}
	g.Nodes = []proto.Node{{Name: "attention", OpType: "GroupQueryAttention", Domain: "com.microsoft", Inputs: in, Outputs: []string{"out", "present_key", "present_value"}, Attrs: attrs}}
	return &proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
}

// semNode is a session of semModel with its shared cache buffers.
type semNode struct {
	s      *ort.DynamicAdvancedSession
	pk, pv ort.Value
	kb     []byte // the key buffer
	past   int
}

func openSem(t *testing.T, m *proto.Model) (*semNode, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "node.onnx")
	if err := m.WriteFile(p, proto.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := ort.NewDynamicAdvancedSession(p, []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length"}, []string{"out", "present_key", "present_value"}, nil)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { s.Destroy() })
	el, dt := 4, ort.TensorElementDataType(ort.TensorElementDataTypeFloat)
	if m.Graph.Inputs[3].Type == proto.Int8 {
		el, dt = 1, ort.TensorElementDataTypeInt8
	}
	n := &semNode{s: s, kb: make([]byte, tKV*tRows*tHD*el)}
	shape := ort.NewShape(1, tKV, tRows, tHD)
	if n.pk, err = ort.NewCustomDataTensor(shape, n.kb, dt); err != nil {
		t.Fatal(err)
	}
	if n.pv, err = ort.NewCustomDataTensor(shape, make([]byte, len(n.kb)), dt); err != nil {
		t.Fatal(err)
	}
	return n, nil
}

// run appends len(k)/(kv heads × head_dim) rows and returns the attention's output.
func (n *semNode) run(t *testing.T, q, k, v []float32) ([]float32, error) {
	t.Helper()
	S := int64(len(k) / (tKV * tHD))
	qt, _ := ort.NewTensor(ort.NewShape(1, S, tH*tHD), q)
	kt, _ := ort.NewTensor(ort.NewShape(1, S, tKV*tHD), k)
	vt, _ := ort.NewTensor(ort.NewShape(1, S, tKV*tHD), v)
	sl, _ := ort.NewTensor(ort.NewShape(1), []int32{int32(n.past) + int32(S) - 1})
	tot, _ := ort.NewTensor(ort.NewShape(1), []int32{int32(n.past) + int32(S)})
	out, err := ort.NewEmptyTensor[float32](ort.NewShape(1, S, tH*tHD))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, x := range []ort.Value{qt, kt, vt, sl, tot, out} {
			x.Destroy()
		}
	}()
	if err := n.s.Run([]ort.Value{qt, kt, vt, n.pk, n.pv, sl, tot}, []ort.Value{out, n.pk, n.pv}); err != nil {
		return nil, err
	}
	n.past += int(S)
	return append([]float32(nil), out.GetData()...), nil
}

// TestInt8CacheSemantics: per-channel scales are kv_heads × head_dim values in any shape
// (another count is refused), a cached value is round(x / scale), saturating at -128 and 127,
// one buffer serves as past and present, and a prompt, decode steps and a later multi-row run
// all follow the float32 cache's output closely — with per-channel scales far more closely
// than with one scale per tensor when a channel is an outlier (as Qwen3's keys have).
func TestInt8CacheSemantics(t *testing.T) {
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	amp := make([]float32, tKV*tHD) // channel amplitudes: channel 3 of each head an outlier
	perChannel := make([]float32, len(amp))
	for i := range amp {
		amp[i] = 0.5
		if i%tHD == 3 {
			amp[i] = 20
		}
		perChannel[i] = amp[i] / 127
	}
	uniform := func(n int, a func(i int) float32) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = (rng.Float32()*2 - 1) * a(i)
		}
		return x
	}
	type step struct{ q, k, v []float32 }
	var steps []step
	for _, S := range []int{5, 1, 3, 1} { // prompt, decode, a multi-row run after cached rows, decode
		ch := func(i int) float32 { return amp[i%(tKV*tHD)] }
		steps = append(steps, step{uniform(S*tH*tHD, func(int) float32 { return 1 }), uniform(S*tKV*tHD, ch), uniform(S*tKV*tHD, ch)})
	}
	ref, err := openSem(t, semModel("", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	var want [][]float32
	for _, s := range steps {
		o, err := ref.run(t, s.q, s.k, s.v)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, o)
	}
	for _, tc := range []struct {
		name, qt string
		dims     []int64
		scales   []float32
		tol      float64 // largest output difference from float32's
	}{
		{"per tensor", "PER_TENSOR", []int64{1}, []float32{20.0 / 127}, 0.6},
		{"per channel [n]", "PER_CHANNEL", []int64{tKV * tHD}, perChannel, 0.1},
		{"per channel [kv, hd]", "PER_CHANNEL", []int64{tKV, tHD}, perChannel, 0.1},
		{"per channel [1, kv, 1, hd]", "PER_CHANNEL", []int64{1, tKV, 1, tHD}, perChannel, 0.1},
	} {
		n, err := openSem(t, semModel(tc.qt, tc.dims, tc.scales))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		worst := 0.0
		for i, s := range steps {
			o, err := n.run(t, s.q, s.k, s.v)
			if err != nil {
				t.Fatalf("%s, run %d: %v", tc.name, i, err)
			}
			for j := range o {
				worst = max(worst, math.Abs(float64(o[j]-want[i][j])))
			}
		}
		t.Logf("%s: largest output difference %.3f", tc.name, worst)
		if worst > tc.tol {
			t.Errorf("%s: output differs from float32's by %.3f (> %g)", tc.name, worst, tc.tol)
		}
		for h := range tKV { // the first prompt row's keys, as stored
			for d := range tHD {
				s := tc.scales[0]
				if len(tc.scales) > 1 {
					s = tc.scales[h*tHD+d]
				}
				x := steps[0].k[h*tHD+d]
				if got, want := int8(n.kb[h*tRows*tHD+d]), int8(math.Round(float64(x/s))); got != want {
					t.Fatalf("%s: key %g of head %d channel %d stored as %d, want round(x/scale) = %d", tc.name, x, h, d, got, want)
				}
			}
		}
	}
	// Scales for head_dim channels only (shared by the heads) are refused when the node runs.
	if n, err := openSem(t, semModel("PER_CHANNEL", []int64{tHD}, perChannel[:tHD])); err == nil {
		_, err = n.run(t, steps[0].q, steps[0].k, steps[0].v)
		if err == nil || !strings.Contains(err.Error(), "k_scale") {
			t.Errorf("scales for head_dim channels only: %v", err)
		}
	}
	n, err := openSem(t, semModel("PER_TENSOR", []int64{1}, []float32{1.0 / 127}))
	if err != nil {
		t.Fatal(err)
	}
	k := make([]float32, tKV*tHD)
	k[0], k[1], k[2] = 3, -3, 0.5
	if _, err := n.run(t, make([]float32, tH*tHD), k, k); err != nil {
		t.Fatal(err)
	}
	if got := []int8{int8(n.kb[0]), int8(n.kb[1]), int8(n.kb[2])}; got[0] != 127 || got[1] != -128 || got[2] != 64 {
		t.Errorf("3, -3 and 0.5 at scale 1/127 stored as %v, want 127 -128 64", got)
	}
}
