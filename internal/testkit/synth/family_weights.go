package synth

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
)

// NewFamilyWeights is an empty set of family weights, to be filled with Add from a trained
// checkpoint and written with WriteFamilyWeights.
func NewFamilyWeights() *FamilyWeights {
	return &FamilyWeights{t: map[string][]float32{}, dims: map[string][]int64{}}
}

// Add sets the parameter name (its Hugging Face name; matrices stored [in, out], as the
// export's MatMul initializers are) to data of shape dims.
func (w *FamilyWeights) Add(name string, data []float32, dims ...int64) error {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	if n != int64(len(data)) {
		return fmt.Errorf("weight %s: %d values for shape %v", name, len(data), dims)
	}
	if _, dup := w.t[name]; dup {
		return fmt.Errorf("weight %s given twice", name)
	}
	w.add(name, data, dims...)
	return nil
}

// tied says whether the graph reuses the embedding as the output layer: the family ties
// them and the weights carry no separate head (GPT-2 checkpoints saved with
// tie_word_embeddings false carry lm_head.weight).
func (w *FamilyWeights) tied(o Options) bool {
	n := familyNames(o.Family)
	_, head := w.t[n.head+".weight"]
	return n.head == "" || !head && o.Family.arch().tied
}

// WriteFamilyWeights writes a family model folder (the Optimum-shaped graph, config.json,
// generation_config.json) with the given trained weights instead of random ones; config
// keys override those familyConfig writes (special token ids, for one). Every parameter
// the graph reads must be there, with the shape o implies, and nothing else.
func WriteFamilyWeights(dir string, o Options, w *FamilyWeights, config map[string]any) error {
	if o.Family == "" {
		return fmt.Errorf("WriteFamilyWeights needs a family (%v)", Families)
	}
	if err := o.Validate(); err != nil {
		return fmt.Errorf("model options: %w", err)
	}
	want := newFamilyWeights(o) // the names and shapes of the family at this size
	if n := familyNames(o.Family); !w.tied(o) && want.t[n.head+".weight"] == nil {
		want.add(n.head+".weight", nil, int64(o.Hidden), int64(o.Vocab))
	}
	for _, name := range want.names {
		d, ok := w.dims[name]
		if !ok {
			return fmt.Errorf("weight %s missing", name)
		}
		if !slices.Equal(d, want.dims[name]) {
			return fmt.Errorf("weight %s has shape %v, want %v", name, d, want.dims[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(w.t)) {
		if _, ok := want.dims[name]; !ok {
			return fmt.Errorf("weight %s is not a parameter of a %s model", name, o.Family)
		}
	}
	return writeFamilyFolder(dir, o, w, config)
}

// writeFamilyFolder writes the graph of weights w, config.json (with config's keys on top)
// and generation_config.json.
func writeFamilyFolder(dir string, o Options, w *FamilyWeights, config map[string]any) error {
	if err := writeModel(filepath.Join(dir, FamilyModelFile(o)), buildFamily(o, w), o); err != nil {
		return err
	}
	c := familyConfig(o, w.tied(o))
	maps.Copy(c, config)
	if err := writeJSON(filepath.Join(dir, "config.json"), c); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "generation_config.json"), map[string]any{
		"bos_token_id": c["bos_token_id"], "eos_token_id": c["eos_token_id"], "transformers_version": "4.46.0"})
}
