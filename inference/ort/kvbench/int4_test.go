package main

import (
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"edgechat/inference/ort/env"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/proto"

	ort "github.com/yalue/onnxruntime_go"
)

// int4Model is semModel's node with a 4-bit cache (kv_cache_bit_width 4): uint8 tensors of
// head_dim / 2 bytes a row, per-channel scales scales (kv_heads × head_dim).
func int4Model(scales []float32) *proto.Model {
	m := semModel("PER_CHANNEL", []int64{int64(len(scales))}, scales)
	g := &m.Graph
	for _, vs := range [][]proto.ValueInfo{g.Inputs[3:5], g.Outputs[1:3]} {
		for i := range vs {
			vs[i].Type, vs[i].Dims = proto.Uint8, proto.Dims(1, tKV, "t", tHD/2)
		}
	}
	for i, a := range g.Nodes[0].Attrs {
		if a.Name == "kv_cache_bit_width" {
			g.Nodes[0].Attrs[i] = proto.IntAttr("kv_cache_bit_width", 4)
		}
	}
	return m
}

// TestInt4CacheSemantics: ONNX Runtime 1.30's CPU GroupQueryAttention takes kv_cache_bit_width
// 4 with uint8 past and present of head_dim / 2 bytes a row (one buffer bound as both); element
// 2i is the low nibble of byte i and 2i+1 the high one, each round(x / scale) + 8 saturating at
// 0 and 15; a prompt and decode steps follow the float32 cache's output within what 4 bits
// allow. onnx/optimize.QuantizeKVBits relies on these semantics.
func TestInt4CacheSemantics(t *testing.T) {
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	scales := make([]float32, tKV*tHD)
	for i := range scales {
		scales[i] = 1.0 / 7 // values in [-1, 1] use the levels -7..7
	}
	vec := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = rng.Float32()*2 - 1
		}
		return x
	}
	type step struct{ q, k, v []float32 }
	var steps []step
	for _, S := range []int{5, 1, 1} {
		steps = append(steps, step{vec(S * tH * tHD), vec(S * tKV * tHD), vec(S * tKV * tHD)})
	}
	ref, err := openSem(t, semModel("", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	m := int4Model(scales)
	p := filepath.Join(t.TempDir(), "node.onnx")
	if err := m.WriteFile(p, proto.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := ort.NewDynamicAdvancedSession(p, []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length"}, []string{"out", "present_key", "present_value"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	n := &semNode{s: s, kb: make([]byte, tKV*tRows*tHD/2)}
	shape := ort.NewShape(1, tKV, tRows, tHD/2)
	if n.pk, err = ort.NewCustomDataTensor(shape, n.kb, ort.TensorElementDataTypeUint8); err != nil {
		t.Fatal(err)
	}
	if n.pv, err = ort.NewCustomDataTensor(shape, make([]byte, len(n.kb)), ort.TensorElementDataTypeUint8); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, st := range steps {
		want, err := ref.run(t, st.q, st.k, st.v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := n.run(t, st.q, st.k, st.v)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		for j := range got {
			worst = max(worst, math.Abs(float64(got[j]-want[j])))
		}
	}
	t.Logf("largest output difference from float32's: %.3f", worst)
	if worst > 0.15 {
		t.Errorf("output differs from float32's by %.3f (> 0.15)", worst)
	}
	for h := range tKV { // the first prompt row's keys, as stored
		for d := range tHD {
			x := steps[0].k[h*tHD+d]
			b := n.kb[h*tRows*tHD/2+d/2]
			got := int(b & 15)
			if d%2 == 1 {
				got = int(b >> 4)
			}
			if want := int(math.Round(float64(x*7))) + 8; got != want {
				t.Fatalf("key %g of head %d channel %d stored as nibble %d, want round(x/scale)+8 = %d", x, h, d, got, want)
			}
		}
	}
	// Saturation: at scale 1/7, 3 and -3 are stored as 15 and 0.
	k := make([]float32, tKV*tHD)
	k[0], k[1], k[2], k[3] = 3, -3, 0.3, -1.0/7
	if _, err := n.run(t, make([]float32, tH*tHD), k, k); err != nil {
		t.Fatal(err)
	}
	row := n.past - 1
	if got := n.kb[row*tHD/2 : row*tHD/2+2]; got[0] != 0x0f || got[1] != 0x7a {
		t.Errorf("3, -3, 0.3, -1/7 at scale 1/7 stored as % x, want 0f 7a (15, 0, 10, 7)", got)
	}
}
