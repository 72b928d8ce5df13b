package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Family is a decoder architecture other than Qwen3's, built with the operators and I/O names
// of its Hugging Face (Optimum) ONNX export: multi-head attention (KV heads = heads),
// LayerNorm with bias, GELU or ReLU MLPs, learned absolute or partial rotary positions.
type Family string

// The families Write builds besides Qwen3 ("").
const (
	// FamilyGPT2: learned positions, fused QKV (c_attn), gelu_new, tied embeddings.
	FamilyGPT2 Family = "gpt2"
	// FamilyGPTNeo: learned positions, no attention scaling, local attention (a window) in
	// every other layer, gelu_new, tied embeddings.
	FamilyGPTNeo Family = "gpt_neo"
	// FamilyGPTNeoX (Pythia): rotary on the first quarter of each head, QKV fused per head,
	// parallel residual, exact GELU, an untied output layer.
	FamilyGPTNeoX Family = "gpt_neox"
	// FamilyPhi (Phi-1/2): rotary on 40% of each head, one LayerNorm feeding attention and
	// MLP in parallel, gelu_new, an untied LM head with bias.
	FamilyPhi Family = "phi"
	// FamilyOPT: learned positions offset by 2 and computed from attention_mask, ReLU MLP,
	// query scaled before the product, tied embeddings.
	FamilyOPT Family = "opt"
)

// Families lists them in the order tests and tools use.
var Families = []Family{FamilyGPT2, FamilyGPTNeo, FamilyGPTNeoX, FamilyPhi, FamilyOPT}

// PastNames chooses the names of a family model's KV cache inputs and outputs.
type PastNames string

const (
	// PastKeyValues: past_key_values.N.key → present.N.key (Optimum's).
	PastKeyValues PastNames = ""
	// PastDotted: past.N.key → present.N.key (older exporters').
	PastDotted PastNames = "past"
)

// arch says how a family computes.
type arch struct {
	learnedPos  bool    // a position embedding table (GPT-2, GPT-Neo, OPT)
	posOffset   int     // OPT's 2
	posFromMask bool    // positions from attention_mask's cumulative sum (OPT)
	rotaryPct   float64 // the fraction of each head rotated (GPT-NeoX, Phi)
	parallel    bool    // x + attn(ln1 x) + mlp(ln2 x) (GPT-NeoX; Phi with one norm)
	sharedNorm  bool    // one LayerNorm feeds both branches (Phi)
	fused       string  // "" separate q/k/v; "blocks" [q|k|v] (GPT-2); "heads" per head (GPT-NeoX)
	qkvBias     bool
	unscaled    bool // no 1/√hd on the scores (GPT-Neo)
	window      int  // local attention window of the odd layers (GPT-Neo)
	act         string
	tied        bool
	headBias    bool // the LM head has a bias (Phi)
	eps         float64
	// defaultPositionIDs: the export has a position_ids input unless the options drop it.
	defaultPositionIDs bool
}

func (f Family) arch() arch {
	switch f {
	case FamilyGPT2:
		return arch{learnedPos: true, fused: "blocks", qkvBias: true, act: "gelu_new", tied: true, eps: 1e-5, defaultPositionIDs: true}
	case FamilyGPTNeo:
		return arch{learnedPos: true, unscaled: true, window: 8, act: "gelu_new", tied: true, eps: 1e-5, defaultPositionIDs: true}
	case FamilyGPTNeoX:
		return arch{rotaryPct: 0.25, parallel: true, fused: "heads", qkvBias: true, act: "gelu", eps: 1e-5, defaultPositionIDs: true}
	case FamilyPhi:
		return arch{rotaryPct: 0.5, parallel: true, sharedNorm: true, qkvBias: true, act: "gelu_new", headBias: true, eps: 1e-5, defaultPositionIDs: true}
	case FamilyOPT:
		return arch{learnedPos: true, posOffset: 2, posFromMask: true, qkvBias: true, act: "relu", tied: true, eps: 1e-5}
	}
	return arch{}
}

// FamilyTiny is a small model of family f: 2 layers, hidden 64, 4 heads of 16, a vocabulary
// of 512, 256 positions.
func FamilyTiny(f Family) Options {
	o := Tiny()
	o.Family = f
	o.Layers, o.Hidden, o.Heads, o.KVHeads, o.HeadDim, o.Intermediate = 2, 64, 4, 4, 16, 256
	o.Vocab, o.MaxPositions, o.RopeTheta = 512, 256, 10000
	return o
}

// rotaryDims is how many of each head's dims are rotated.
func (o Options) rotaryDims() int { return int(float64(o.HeadDim) * o.Family.arch().rotaryPct) }

// hasPositionIDs says whether the family graph takes position_ids.
func (o Options) hasPositionIDs() bool { return o.Family.arch().defaultPositionIDs && !o.NoPositionIDs }

func (o Options) validateFamily() []error {
	if o.Family == "" {
		if o.NoPositionIDs || o.PastNames != PastKeyValues || o.Merged {
			return []error{fmt.Errorf("no-position-ids, past names and merged decoders apply to the other families (%v)", Families)}
		}
		return nil
	}
	var errs []error
	if !slices.Contains(Families, o.Family) {
		errs = append(errs, fmt.Errorf("unknown family %q: choose one of %v", o.Family, Families))
	}
	if o.Layout != LayoutHF {
		errs = append(errs, fmt.Errorf("family %s comes in the Hugging Face layout only", o.Family))
	}
	if o.Quant != QuantNone || o.KVFloat16 || o.Copying || o.Q4Twin {
		errs = append(errs, fmt.Errorf("family %s has float32 weights and KV cache only", o.Family))
	}
	if o.KVHeads != o.Heads {
		errs = append(errs, fmt.Errorf("family %s has multi-head attention: kv-heads (%d) must equal heads (%d)", o.Family, o.KVHeads, o.Heads))
	}
	if o.Hidden != o.Heads*o.HeadDim {
		errs = append(errs, fmt.Errorf("family %s needs hidden (%d) = heads × head-dim (%d)", o.Family, o.Hidden, o.Heads*o.HeadDim))
	}
	if o.Family.arch().rotaryPct > 0 && (o.rotaryDims() == 0 || o.rotaryDims()%2 != 0) {
		errs = append(errs, fmt.Errorf("family %s rotates %d dims of each head: head-dim %d is too small", o.Family, o.rotaryDims(), o.HeadDim))
	}
	return errs
}

// FamilyWeights are a family model's parameters by their Hugging Face names (matrices stored
// [in, out]); names lists them in the order they were drawn.
type FamilyWeights struct {
	t     map[string][]float32
	dims  map[string][]int64
	names []string
}

func (w *FamilyWeights) add(name string, data []float32, dims ...int64) {
	w.t[name], w.dims[name] = data, dims
	w.names = append(w.names, name)
}

// newFamilyWeights draws a family model's parameters from o.Seed.
// weightDraw draws random parameters by their Hugging Face names into FamilyWeights.
type weightDraw struct {
	r      *rand.Rand
	w      *FamilyWeights
	hidden int
}

func newWeightDraw(r *rand.Rand, hidden int) *weightDraw {
	return &weightDraw{r: r, w: &FamilyWeights{t: map[string][]float32{}, dims: map[string][]int64{}}, hidden: hidden}
}

// normal draws n values around 0 with standard deviation std.
func (d *weightDraw) normal(n int, std float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(d.r.NormFloat64() * std)
	}
	return out
}

// norm draws a LayerNorm's weight (around 1) and bias over the hidden size.
func (d *weightDraw) norm(name string) {
	h := int64(d.hidden)
	g := d.normal(d.hidden, 0.1)
	for i := range g {
		g[i]++
	}
	d.w.add(name+".weight", g, h)
	d.w.add(name+".bias", d.normal(d.hidden, 0.1), h)
}

func newFamilyWeights(o Options) *FamilyWeights {
	a := o.Family.arch()
	d := newWeightDraw(weightRand(o), o.Hidden)
	normal, norm, w := d.normal, d.norm, d.w
	h, ff := int64(o.Hidden), int64(o.Intermediate)
	lin := func(name string, in, out int64, bias bool) {
		w.add(name+".weight", normal(int(in*out), layerGain/math.Sqrt(float64(in))), in, out)
		if bias {
			w.add(name+".bias", normal(int(out), 0.1), out)
		}
	}
	n := familyNames(o.Family)
	w.add(n.embed, normal(o.Vocab*o.Hidden, 1), int64(o.Vocab), h)
	if a.learnedPos {
		w.add(n.pos, normal((o.MaxPositions+a.posOffset)*o.Hidden, 0.5), int64(o.MaxPositions+a.posOffset), h)
	}
	for l := range o.Layers {
		p := fmt.Sprintf(n.layer, l)
		norm(p + n.ln1)
		if !a.sharedNorm {
			norm(p + n.ln2)
		}
		switch a.fused {
		case "blocks", "heads":
			lin(p+n.qkv, h, 3*h, a.qkvBias)
		default:
			for _, x := range []string{n.q, n.k, n.v} {
				lin(p+x, h, h, a.qkvBias)
			}
		}
		lin(p+n.o, h, h, true)
		lin(p+n.fc1, h, ff, true)
		lin(p+n.fc2, ff, h, true)
	}
	norm(n.final)
	if !a.tied {
		lin(n.head, h, int64(o.Vocab), a.headBias)
	}
	return w
}

// hfNames are a family's parameter names; layer holds a %d for the layer index.
type hfNames struct {
	embed, pos, layer, ln1, ln2, qkv, q, k, v, o, fc1, fc2, final, head string
}

func familyNames(f Family) hfNames {
	switch f {
	case FamilyGPT2:
		return hfNames{embed: "transformer.wte.weight", pos: "transformer.wpe.weight", layer: "transformer.h.%d.",
			ln1: "ln_1", ln2: "ln_2", qkv: "attn.c_attn", o: "attn.c_proj", fc1: "mlp.c_fc", fc2: "mlp.c_proj", final: "transformer.ln_f",
			head: "lm_head"} // lm_head only in untied checkpoints (tie_word_embeddings false)
	case FamilyGPTNeo:
		return hfNames{embed: "transformer.wte.weight", pos: "transformer.wpe.weight", layer: "transformer.h.%d.",
			ln1: "ln_1", ln2: "ln_2", q: "attn.attention.q_proj", k: "attn.attention.k_proj", v: "attn.attention.v_proj",
			o: "attn.attention.out_proj", fc1: "mlp.c_fc", fc2: "mlp.c_proj", final: "transformer.ln_f"}
	case FamilyGPTNeoX:
		return hfNames{embed: "gpt_neox.embed_in.weight", layer: "gpt_neox.layers.%d.",
			ln1: "input_layernorm", ln2: "post_attention_layernorm", qkv: "attention.query_key_value", o: "attention.dense",
			fc1: "mlp.dense_h_to_4h", fc2: "mlp.dense_4h_to_h", final: "gpt_neox.final_layer_norm", head: "embed_out"}
	case FamilyPhi:
		return hfNames{embed: "model.embed_tokens.weight", layer: "model.layers.%d.",
			ln1: "input_layernorm", q: "self_attn.q_proj", k: "self_attn.k_proj", v: "self_attn.v_proj", o: "self_attn.dense",
			fc1: "mlp.fc1", fc2: "mlp.fc2", final: "model.final_layernorm", head: "lm_head"}
	case FamilyOPT:
		return hfNames{embed: "model.decoder.embed_tokens.weight", pos: "model.decoder.embed_positions.weight", layer: "model.decoder.layers.%d.",
			ln1: "self_attn_layer_norm", ln2: "final_layer_norm", q: "self_attn.q_proj", k: "self_attn.k_proj", v: "self_attn.v_proj",
			o: "self_attn.out_proj", fc1: "fc1", fc2: "fc2", final: "model.decoder.final_layer_norm"}
	}
	return hfNames{}
}

// familyConfig is config.json as the family's transformers class writes it (the keys each
// one uses: GPT-2's n_embd, GPT-Neo's attention_types, GPT-NeoX's rotary_pct, …). The last
// id is <|endoftext|>, as in GPT-2's vocabulary of 50,257.
func familyConfig(o Options, tied bool) map[string]any {
	a := o.Family.arch()
	c := map[string]any{
		"model_type": string(o.Family), "vocab_size": o.Vocab, "torch_dtype": "float32",
		"bos_token_id": o.Vocab - 1, "eos_token_id": o.Vocab - 1, "tie_word_embeddings": tied, "use_cache": true,
		"transformers_version": "4.46.0",
	}
	set := func(kv ...any) {
		for i := 0; i < len(kv); i += 2 {
			c[kv[i].(string)] = kv[i+1]
		}
	}
	switch o.Family {
	case FamilyGPT2:
		set("architectures", []string{"GPT2LMHeadModel"}, "n_embd", o.Hidden, "n_head", o.Heads, "n_layer", o.Layers,
			"n_positions", o.MaxPositions, "n_ctx", o.MaxPositions, "n_inner", o.Intermediate,
			"activation_function", a.act, "layer_norm_epsilon", a.eps)
	case FamilyGPTNeo:
		set("architectures", []string{"GPTNeoForCausalLM"}, "hidden_size", o.Hidden, "num_heads", o.Heads, "num_layers", o.Layers,
			"max_position_embeddings", o.MaxPositions, "intermediate_size", o.Intermediate, "window_size", a.window,
			"attention_types", []any{[]any{[]string{"global", "local"}, (o.Layers + 1) / 2}},
			"activation_function", a.act, "layer_norm_epsilon", a.eps)
	case FamilyGPTNeoX:
		set("architectures", []string{"GPTNeoXForCausalLM"}, "hidden_size", o.Hidden, "num_attention_heads", o.Heads,
			"num_hidden_layers", o.Layers, "max_position_embeddings", o.MaxPositions, "intermediate_size", o.Intermediate,
			"rotary_pct", a.rotaryPct, "rotary_emb_base", o.RopeTheta, "use_parallel_residual", true,
			"hidden_act", a.act, "layer_norm_eps", a.eps)
	case FamilyPhi:
		set("architectures", []string{"PhiForCausalLM"}, "hidden_size", o.Hidden, "num_attention_heads", o.Heads,
			"num_key_value_heads", o.Heads, "num_hidden_layers", o.Layers, "max_position_embeddings", o.MaxPositions,
			"intermediate_size", o.Intermediate, "partial_rotary_factor", a.rotaryPct, "rope_theta", o.RopeTheta,
			"hidden_act", a.act, "layer_norm_eps", a.eps)
	case FamilyOPT:
		set("architectures", []string{"OPTForCausalLM"}, "hidden_size", o.Hidden, "num_attention_heads", o.Heads,
			"num_hidden_layers", o.Layers, "max_position_embeddings", o.MaxPositions, "ffn_dim", o.Intermediate,
			"word_embed_proj_dim", o.Hidden, "do_layer_norm_before", true, "activation_function", a.act,
			"enable_bias", true, "layer_norm_elementwise_affine", true)
	}
	return c
}
