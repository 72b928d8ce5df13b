package main

import (
	"path/filepath"
	"slices"
	"testing"

	"edgechat/inference/ort/env"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/proto"

	ort "github.com/yalue/onnxruntime_go"
)

// TestWithoutGQAFlash: env.WithoutGQAFlash reaches ONNX Runtime's GroupQueryAttention kernel
// of the session it creates, and only that one: on an int8 cache after 3,000 cached tokens,
// two sessions created the usual way give bit-identical outputs, a session created under it
// gives outputs that differ in their last bits (the plain path sums in another order) but
// agree closely, and a session created after it is the usual one again.
func TestWithoutGQAFlash(t *testing.T) {
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "int8.onnx")
	if err := attentionModel(proto.Int8, "PER_CHANNEL", 8).WriteFile(path, proto.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	open := func(plain bool) *ort.DynamicAdvancedSession {
		var s *ort.DynamicAdvancedSession
		create := func() (err error) {
			s, err = ort.NewDynamicAdvancedSession(path, []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length"}, []string{"out", "present_key", "present_value"}, nil)
			return err
		}
		var err error
		if plain {
			err = env.WithoutGQAFlash(create)
		} else {
			err = create()
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Destroy() })
		return s
	}
	const cached = 3000
	shape := ort.NewShape(1, kvHeads, cached+8, headDim)
	cache := cacheBytes(proto.Int8, kvHeads*(cached+8)*headDim)
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i%29)/29 - 0.5
		}
		return v
	}
	q, _ := ort.NewTensor(ort.NewShape(1, 1, heads*headDim), vec(heads*headDim))
	k, _ := ort.NewTensor(ort.NewShape(1, 1, kvHeads*headDim), vec(kvHeads*headDim))
	v, _ := ort.NewTensor(ort.NewShape(1, 1, kvHeads*headDim), vec(kvHeads*headDim))
	sl, _ := ort.NewTensor(ort.NewShape(1), []int32{cached})
	tot, _ := ort.NewTensor(ort.NewShape(1), []int32{cached + 1})
	run := func(s *ort.DynamicAdvancedSession) []float32 {
		kb, vb := slices.Clone(cache), slices.Clone(cache) // each run on the same cache
		pk, _ := ort.NewCustomDataTensor(shape, kb, ort.TensorElementDataTypeInt8)
		pv, _ := ort.NewCustomDataTensor(shape, vb, ort.TensorElementDataTypeInt8)
		out, _ := ort.NewEmptyTensor[float32](ort.NewShape(1, 1, heads*headDim))
		defer func() { pk.Destroy(); pv.Destroy(); out.Destroy() }()
		if err := s.Run([]ort.Value{q, k, v, pk, pv, sl, tot}, []ort.Value{out, pk, pv}); err != nil {
			t.Fatal(err)
		}
		return slices.Clone(out.GetData())
	}
	flash := run(open(false))
	if again := run(open(false)); !slices.Equal(flash, again) {
		t.Fatal("two usual sessions differ: the comparison below would say nothing")
	}
	plain := run(open(true))
	if slices.Equal(flash, plain) {
		t.Error("the session created under WithoutGQAFlash gives the flash path's bits: the variable did not reach ONNX Runtime")
	}
	worst := float32(0)
	for i := range plain {
		worst = max(worst, abs32(plain[i]-flash[i]))
	}
	if worst > 1e-3 {
		t.Errorf("plain and flash paths differ by %g", worst)
	}
	if after := run(open(false)); !slices.Equal(flash, after) {
		t.Error("a session created after WithoutGQAFlash runs the plain path too")
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
