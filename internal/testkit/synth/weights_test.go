package synth

import (
	"bytes"
	"testing"

	"edgechat/onnx/proto"
)

func initializer(t *testing.T, m *proto.Model, name string) []byte {
	t.Helper()
	for _, it := range m.Graph.Initializers {
		if it.Name == name {
			return it.Raw
		}
	}
	t.Fatalf("model %s has no initializer %s", m.Graph.Name, name)
	return nil
}

// TestSameSeedSameWeights: the seed alone fixes the weights, whatever the layout or KV dtype.
func TestSameSeedSameWeights(t *testing.T) {
	o := Tiny()
	o.Vocab = 512
	o16 := o
	o16.KVFloat16 = true
	models := map[string]*proto.Model{
		"hf fp32":     buildDecoder(o, newWeights(o), hfSpec(o)),
		"static fp16": buildDecoder(o16, newWeights(o16), staticSpec(o16, 1)),
		"bundle ctx":  buildGQADecoder(o16, newWeights(o16), o.PrefillLen),
	}
	for _, name := range []string{"model.layers.1.mlp.down_proj.weight", "model.layers.0.self_attn.k_norm.weight", "model.norm.weight"} {
		want := initializer(t, models["hf fp32"], name)
		for layout, m := range models {
			if !bytes.Equal(want, initializer(t, m, name)) {
				t.Errorf("%s differs in %s", name, layout)
			}
		}
	}
	other := o
	other.Seed = 2
	if bytes.Equal(newWeights(o).embedBytes(), newWeights(other).embedBytes()) {
		t.Error("seeds 1 and 2 give the same embedding")
	}
}

func (w *weights) embedBytes() []byte {
	return proto.FloatTensor("", []int64{int64(len(w.embed))}, w.embed).Raw
}
