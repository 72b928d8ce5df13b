package synth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFamilyWeights writes given weights (an untied GPT-2 here) and refuses sets that do
// not fit the model: a missing, misshapen or foreign parameter.
func TestWriteFamilyWeights(t *testing.T) {
	o := FamilyTiny(FamilyGPT2)
	given := func(edit func(w *FamilyWeights)) *FamilyWeights {
		src := newFamilyWeights(o)
		w := NewFamilyWeights()
		for _, n := range src.names {
			if err := w.Add(n, src.t[n], src.dims[n]...); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Add("lm_head.weight", make([]float32, o.Hidden*o.Vocab), int64(o.Hidden), int64(o.Vocab)); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(w)
		}
		return w
	}
	dir := t.TempDir()
	if err := WriteFamilyWeights(dir, o, given(nil), map[string]any{"eos_token_id": 1}); err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c["tie_word_embeddings"] != false || c["eos_token_id"] != 1.0 {
		t.Fatalf("config.json %v (%v): want tie_word_embeddings false, eos_token_id 1", c, err)
	}
	m := buildFamily(o, given(nil))
	var head bool
	for _, x := range m.Graph.Initializers {
		head = head || x.Name == "lm_head.weight"
	}
	if !head {
		t.Error("the graph does not hold lm_head.weight: an untied checkpoint wrote a tied graph")
	}
	for _, tc := range []struct {
		name, want string
		edit       func(w *FamilyWeights)
	}{
		{"missing", "weight transformer.ln_f.bias missing", func(w *FamilyWeights) { delete(w.t, "transformer.ln_f.bias"); delete(w.dims, "transformer.ln_f.bias") }},
		{"shape", "weight transformer.wpe.weight has shape [64 256]", func(w *FamilyWeights) { w.dims["transformer.wpe.weight"] = []int64{64, 256} }},
		{"foreign", "weight rotary.inv_freq is not a parameter of a gpt2 model", func(w *FamilyWeights) { w.t["rotary.inv_freq"], w.dims["rotary.inv_freq"] = []float32{1}, []int64{1} }},
	} {
		err := WriteFamilyWeights(t.TempDir(), o, given(tc.edit), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := NewFamilyWeights().Add("x", []float32{1, 2}, 3); err == nil {
		t.Error("Add took 2 values for shape [3]")
	}
}
