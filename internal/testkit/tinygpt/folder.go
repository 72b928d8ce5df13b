package tinygpt

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"edgechat/internal/testkit/synth"
)

// ChatTemplate is the model's training format: <sos> question <sep>, then the answer and
// <eos>. It was trained on single questions and holds 22 positions, so only the last
// message (the user's question) goes in.
const ChatTemplate = `{{ '<sos> ' + messages[-1]['content'] + ' <sep>' }}`

// Write converts the checkpoint into a Hugging Face ONNX folder at dir.
func Write(dir string, c *Checkpoint) error {
	w, err := c.weights()
	if err != nil {
		return err
	}
	o := synth.FamilyTiny(synth.FamilyGPT2)
	o.Layers, o.Hidden, o.Heads, o.KVHeads, o.HeadDim = c.Layers, c.Hidden, c.Heads, c.Heads, c.Hidden/c.Heads
	o.Intermediate, o.Vocab, o.MaxPositions, o.TokenizerDir = 4*c.Hidden, c.Vocab, c.Positions, ""
	config := map[string]any{
		"bos_token_id": c.Special["SOS"], "eos_token_id": c.Special["EOS"], "pad_token_id": c.Special["PAD"],
		"_name_or_path": "conect2ai/TinyGPT-SLM",
	}
	if err := synth.WriteFamilyWeights(dir, o, w, config); err != nil {
		return fmt.Errorf("writing the graph: %w", err)
	}
	// The original runtime ends an answer at <eos> or <pad>.
	gen := map[string]any{"bos_token_id": c.Special["SOS"], "eos_token_id": []int{c.Special["EOS"], c.Special["PAD"]},
		"pad_token_id": c.Special["PAD"], "do_sample": false}
	if err := writeJSON(filepath.Join(dir, "generation_config.json"), gen); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "tokenizer.json"), c.tokenizerJSON()); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "tokenizer_config.json"), map[string]any{
		"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": c.Positions,
		"bos_token": c.Tokens[c.Special["SOS"]], "eos_token": c.Tokens[c.Special["EOS"]],
		"pad_token": c.Tokens[c.Special["PAD"]], "unk_token": c.Tokens[c.Special["UNK"]],
		"sep_token": c.Tokens[c.Special["SEP"]], "clean_up_tokenization_spaces": false,
		"chat_template": ChatTemplate,
	})
}

// weights maps the C++ arrays to GPT-2's Hugging Face parameters ([in, out] matrices): q, k
// and v side by side in c_attn (with the zero bias a model without QKV bias has), the
// output layer as an untied lm_head.
func (c *Checkpoint) weights() (*synth.FamilyWeights, error) {
	d, v, l := c.Hidden, c.Vocab, c.Layers
	get := func(name string, n int) ([]float32, error) {
		a, ok := c.Arrays[name]
		if !ok {
			return nil, fmt.Errorf("the source has no array %s", name)
		}
		if len(a) != n {
			return nil, fmt.Errorf("array %s holds %d numbers, want %d", name, len(a), n)
		}
		return a, nil
	}
	w := synth.NewFamilyWeights()
	var err error
	add := func(name string, data []float32, dims ...int64) {
		if err == nil {
			err = w.Add(name, data, dims...)
		}
	}
	// from copies array src (whole, or layer i of it when i ≥ 0), transposed from [rows, cols]
	// when rows > 0.
	from := func(src string, i, rows, cols int) []float32 {
		if err != nil {
			return nil
		}
		n := rows * cols
		if rows == 0 {
			n = cols
		}
		count, off := n, 0
		if i >= 0 {
			count, off = n*l, n*i
		}
		a, e := get(src, count)
		if e != nil {
			err = e
			return nil
		}
		a = a[off : off+n]
		if rows == 0 {
			return append([]float32(nil), a...)
		}
		return transpose(a, rows, cols)
	}
	D, V := int64(d), int64(v)
	add("transformer.wte.weight", from("tok_emb_weight", -1, 0, v*d), V, D)
	add("transformer.wpe.weight", from("pos_emb_weight", -1, 0, c.Positions*d), int64(c.Positions), D)
	for i := range l {
		p := fmt.Sprintf("transformer.h.%d.", i)
		add(p+"ln_1.weight", from("trf_norm1_scale", i, 0, d), D)
		add(p+"ln_1.bias", from("trf_norm1_shift", i, 0, d), D)
		q, k, vv := from("trf_att_W_query_weight", i, d, d), from("trf_att_W_key_weight", i, d, d), from("trf_att_W_value_weight", i, d, d)
		if err != nil {
			return nil, err
		}
		qkv := make([]float32, 0, 3*d*d)
		for r := range d { // row r of [in, 3·out] is q's, k's and v's row r side by side
			qkv = append(append(append(qkv, q[r*d:(r+1)*d]...), k[r*d:(r+1)*d]...), vv[r*d:(r+1)*d]...)
		}
		add(p+"attn.c_attn.weight", qkv, D, 3*D)
		add(p+"attn.c_attn.bias", make([]float32, 3*d), 3*D)
		add(p+"attn.c_proj.weight", from("trf_att_out_proj_weight", i, d, d), D, D)
		add(p+"attn.c_proj.bias", from("trf_att_out_proj_bias", i, 0, d), D)
		add(p+"ln_2.weight", from("trf_norm2_scale", i, 0, d), D)
		add(p+"ln_2.bias", from("trf_norm2_shift", i, 0, d), D)
		add(p+"mlp.c_fc.weight", from("trf_ff_lin1_weight", i, 4*d, d), D, 4*D)
		add(p+"mlp.c_fc.bias", from("trf_ff_lin1_bias", i, 0, 4*d), 4*D)
		add(p+"mlp.c_proj.weight", from("trf_ff_lin2_weight", i, d, 4*d), 4*D, D)
		add(p+"mlp.c_proj.bias", from("trf_ff_lin2_bias", i, 0, d), D)
	}
	add("transformer.ln_f.weight", from("final_norm_scale", -1, 0, d), D)
	add("transformer.ln_f.bias", from("final_norm_shift", -1, 0, d), D)
	add("lm_head.weight", from("out_head_weight", -1, v, d), D, V)
	return w, err
}

// transpose turns a row-major [rows, cols] matrix into [cols, rows].
func transpose(a []float32, rows, cols int) []float32 {
	out := make([]float32, len(a))
	for r := range rows {
		for c := range cols {
			out[c*rows+r] = a[r*cols+c]
		}
	}
	return out
}

// tokenizerJSON is a tokenizer.json that splits as the model's Python tokenizer did
// (re.sub(r"[^\w\s]", "", text).lower().split(), unknown words <unk>) and decodes as its
// runtime printed answers, words joined by spaces (no decoder: the reference joins tokens
// with a space). The five special tokens match on the raw text.
func (c *Checkpoint) tokenizerJSON() map[string]any {
	vocab := make(map[string]int, len(c.Tokens))
	for i, t := range c.Tokens {
		vocab[t] = i
	}
	var added []map[string]any
	for _, i := range slices.Sorted(maps.Values(c.Special)) {
		added = append(added, map[string]any{"id": i, "content": c.Tokens[i], "single_word": false, "lstrip": false,
			"rstrip": false, "normalized": false, "special": true})
	}
	return map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": added,
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": `[^\w\s]`}, "content": ""},
			map[string]any{"type": "Lowercase"},
		}},
		"pre_tokenizer":  map[string]any{"type": "WhitespaceSplit"},
		"post_processor": nil,
		"decoder":        nil,
		"model":          map[string]any{"type": "WordLevel", "vocab": vocab, "unk_token": c.Tokens[c.Special["UNK"]]},
	}
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
