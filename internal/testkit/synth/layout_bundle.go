package synth

import (
	"fmt"
	"math"
	"path/filepath"

	"edgechat/onnx/proto"
)

// Layout D file names.
const (
	BundleEmbeddingsFile = "embeddings.onnx"
	BundleContextFile    = "ctx.onnx"
	BundleIteratorFile   = "iter.onnx"
	BundleLMHeadFile     = "lm_head.onnx"
)

// Foundry Local / Qualcomm-style decoder-pipeline file names (LayoutFoundry).
const (
	FoundryContextFile  = "context_ctx.onnx"
	FoundryIteratorFile = "iterator_ctx.onnx"
)

// pipelineStyle is what differs between the producers of decoder-pipeline folders: file and
// stage names, the sequence-length tensors' names, and which flags mark the stages.
type pipelineStyle struct {
	files       [4]string // embeddings, ctx, iter, lm_head
	stages      [4]string
	pastSeqLen  string
	totalSeqLen string
	// lmHeadFlag marks the lm_head stage with is_lm_head, as Foundry Local's builds do.
	lmHeadFlag bool
	alignment  string
}

// windowsML is `winml build`'s layout D.
var windowsML = pipelineStyle{
	files:      [4]string{BundleEmbeddingsFile, BundleContextFile, BundleIteratorFile, BundleLMHeadFile},
	stages:     [4]string{"embeddings", "context", "iterator", "lm_head"},
	pastSeqLen: "past_seq_len", totalSeqLen: "total_seq_len", alignment: "left",
}

// foundry is a Foundry Local / Qualcomm AI Hub NPU folder: Qualcomm's stage names (so stages
// must be told apart by their flags), other sequence-length names, is_lm_head, right-aligned
// windows and an inference_model.json.
var foundry = pipelineStyle{
	files:      [4]string{BundleEmbeddingsFile, FoundryContextFile, FoundryIteratorFile, BundleLMHeadFile},
	stages:     [4]string{"embedding", "prompt-processor", "token-generator", "transformer-head"},
	pastSeqLen: "past_sequence_length", totalSeqLen: "total_sequence_length", lmHeadFlag: true, alignment: "right",
}

func (o Options) pipeline() pipelineStyle {
	if o.Layout == LayoutFoundry {
		return foundry
	}
	return windowsML
}

// writeBundle writes layout D: a decoder-pipeline of an embeddings model, a prefill (ctx,
// PrefillLen rows) and a decode (iter, 1 row) transformer that use com.microsoft
// GroupQueryAttention on a shared ContextLength-row KV buffer, and an lm_head model.
// LayoutFoundry writes the same graphs in Foundry Local's style, with its inference_model.json.
func writeBundle(dir string, o Options, w *weights) error {
	st := o.pipeline()
	models := map[string]*proto.Model{
		st.files[0]: buildEmbeddings(o, w),
		st.files[1]: buildGQADecoder(o, w, o.PrefillLen),
		st.files[2]: buildGQADecoder(o, w, 1),
		st.files[3]: buildLMHead(o, w),
	}
	for name, m := range models {
		if err := writeModel(filepath.Join(dir, name), m, o); err != nil {
			return err
		}
	}
	if o.Layout == LayoutFoundry {
		if err := writeJSON(filepath.Join(dir, "inference_model.json"), foundryInferenceModel()); err != nil {
			return err
		}
	}
	return writeJSON(filepath.Join(dir, "genai_config.json"), bundleConfig(o))
}

// foundryInferenceModel is Foundry Local's inference_model.json: the model's name and its prompt
// template with {Content} placeholders (ChatML here, matching the Qwen3 tokenizer copied in).
func foundryInferenceModel() map[string]any {
	return map[string]any{
		"Name": "qwen3-synthetic-qnn-npu",
		"PromptTemplate": map[string]string{
			"system":    "<|im_start|>system\n{Content}<|im_end|>\n",
			"user":      "<|im_start|>user\n{Content}<|im_end|>\n",
			"assistant": "<|im_start|>assistant\n{Content}<|im_end|>\n",
			"prompt":    "<|im_start|>user\n{Content}<|im_end|>\n<|im_start|>assistant\n",
		},
	}
}

func buildEmbeddings(o Options, w *weights) *proto.Model {
	g := newGraph()
	embed := g.weight("model.embed_tokens.weight", w.embed, int64(o.Vocab), int64(o.Hidden))
	g.op("Gather", []string{embed, "input_ids"})
	g.rename("input_hidden_states")
	return g.model("embeddings",
		[]proto.ValueInfo{{Name: "input_ids", Type: proto.Int64, Dims: proto.Dims(1, "sequence_length")}},
		[]proto.ValueInfo{{Name: "input_hidden_states", Type: proto.Float, Dims: proto.Dims(1, "sequence_length", o.Hidden)}}, false)
}

func buildLMHead(o Options, w *weights) *proto.Model {
	g := newGraph()
	embed := g.weight("lm_head.weight", w.output(), int64(o.Vocab), int64(o.Hidden))
	g.lmHead("output_hidden_states", embed, w, "output_hidden_states", o)
	g.rename("logits")
	return g.model("lm_head",
		[]proto.ValueInfo{{Name: "output_hidden_states", Type: proto.Float, Dims: proto.Dims(1, "sequence_length", o.Hidden)}},
		[]proto.ValueInfo{{Name: "logits", Type: proto.Float, Dims: proto.Dims(1, "sequence_length", o.Vocab)}}, false)
}

// bundleIO declares a ctx/iter model's interface for seq rows.
func bundleIO(o Options, seq int) (in, out []proto.ValueInfo) {
	d := proto.Dims
	kv := d(1, o.KVHeads, o.ContextLength, o.HeadDim)
	in = []proto.ValueInfo{{Name: "input_hidden_states", Type: proto.Float, Dims: d(1, seq, o.Hidden)}}
	out = []proto.ValueInfo{{Name: "output_hidden_states", Type: proto.Float, Dims: d(1, seq, o.Hidden)}}
	for l := range o.Layers {
		for _, kind := range []string{"keys", "values"} {
			in = append(in, proto.ValueInfo{Name: fmt.Sprintf("past_%s_%d", kind, l), Type: kvType(o), Dims: kv})
			out = append(out, proto.ValueInfo{Name: fmt.Sprintf("present_%s_%d", kind, l), Type: kvType(o), Dims: kv})
		}
	}
	in = append(in,
		proto.ValueInfo{Name: o.pipeline().pastSeqLen, Type: proto.Int32, Dims: d(1, 1)},
		proto.ValueInfo{Name: o.pipeline().totalSeqLen, Type: proto.Int32, Dims: d(1)})
	return in, out
}

// buildGQADecoder builds the transformer layers and final norm for seq rows with
// GroupQueryAttention on the bundle's shared ContextLength-row buffer.
func buildGQADecoder(o Options, w *weights, seq int) *proto.Model {
	g := newGraph()
	st := o.pipeline()
	seqlens := g.reshape(st.pastSeqLen, -1) // [1,1] → seqlens_k [batch]
	names := func(prefix string) func(int, string) string {
		return func(l int, kind string) string { return fmt.Sprintf("%s_%ss_%d", prefix, kind, l) }
	}
	x := g.gqaLayers(o, w, "input_hidden_states", seqlens, st.totalSeqLen, o.ContextLength, names("past"), names("present"))
	g.rmsNorm(x, "model.norm.weight", w.norm, o.RMSNormEps)
	g.rename("output_hidden_states")
	in, out := bundleIO(o, seq)
	return g.model(fmt.Sprintf("decoder_seq%d", seq), in, out, true)
}

// gqaLayers adds the transformer layers on hidden states x with GroupQueryAttention. GQA
// applies rotary embedding itself, at positions seqlens_k+1-seq+i, from caches of rows
// positions, so Qwen3's per-head q/k RMSNorm, which comes before rotary, is applied before
// GQA. past and present name layer l's cache tensors of kind "key" or "value".
func (g *graph) gqaLayers(o Options, w *weights, x, seqlens, total string, rows int, past, present func(l int, kind string) string) string {
	t := kvType(o)
	cos, sin := rotaryCaches(o, rows)
	cosName, sinName := "cos_cache", "sin_cache"
	for _, c := range []struct {
		name string
		v    []float32
	}{{cosName, cos}, {sinName, sin}} {
		if t == proto.Float16 {
			g.inits = append(g.inits, proto.Float16Tensor(c.name, []int64{int64(rows), int64(o.HeadDim / 2)}, c.v))
		} else {
			g.weight(c.name, c.v, int64(rows), int64(o.HeadDim/2))
		}
	}
	toT := func(x string) string {
		if t == proto.Float16 {
			return g.cast(x, t)
		}
		return x
	}
	hd := int64(o.HeadDim)
	for l, lw := range w.layers {
		p := fmt.Sprintf("model.layers.%d", l)
		a := p + ".self_attn."
		h := g.rmsNorm(x, p+".input_layernorm.weight", lw.inNorm, o.RMSNormEps)
		q := g.reshape(g.heads(h, a+"q_proj.weight", lw.q, o.Heads, o, lw.qNorm, a+"q_norm.weight"), 0, 0, int64(o.Heads)*hd)
		k := g.reshape(g.heads(h, a+"k_proj.weight", lw.k, o.KVHeads, o, lw.kNorm, a+"k_norm.weight"), 0, 0, int64(o.KVHeads)*hd)
		v := g.linear(h, a+"v_proj.weight", matrix{data: lw.v, k: o.Hidden, n: o.KVHeads * o.HeadDim}, o)
		outs := g.msOp("GroupQueryAttention",
			[]string{toT(q), toT(k), toT(v), past(l, "key"), past(l, "value"), seqlens, total, cosName, sinName},
			[]string{"", present(l, "key"), present(l, "value")},
			proto.IntAttr("num_heads", int64(o.Heads)), proto.IntAttr("kv_num_heads", int64(o.KVHeads)),
			proto.FloatAttr("scale", float32(1/math.Sqrt(float64(hd)))), proto.IntAttr("do_rotary", 1),
			proto.IntAttr("rotary_interleaved", 0), proto.IntAttr("local_window_size", -1),
			proto.FloatAttr("softcap", 0))
		att := outs[0]
		if t == proto.Float16 {
			att = g.cast(att, proto.Float)
		}
		x = g.add(x, g.linear(att, a+"o_proj.weight", matrix{data: lw.o, k: o.Heads * o.HeadDim, n: o.Hidden}, o))
		h = g.rmsNorm(x, p+".post_attention_layernorm.weight", lw.postNorm, o.RMSNormEps)
		x = g.add(x, g.mlp(h, p, o, lw))
	}
	return x
}

// rotaryCaches are GQA's cos and sin caches [rows, head_dim/2]: cos(p·inv_freq[i]), with the
// angle computed in float32 as the dynamic graph does.
func rotaryCaches(o Options, rows int) (cos, sin []float32) {
	inv := invFreq(o)
	for p := range rows {
		for _, f := range inv {
			angle := float64(float32(p) * f)
			cos, sin = append(cos, float32(math.Cos(angle))), append(sin, float32(math.Sin(angle)))
		}
	}
	return cos, sin
}

// bundleConfig is layout D's genai_config.json: a decoder-pipeline whose ctx and iter stages
// carry QNN session options (as a real NPU build does) and share their KV buffer.
func bundleConfig(o Options) genaiJSON {
	qnn := map[string]any{
		"intra_op_num_threads": 2,
		"provider_options": []any{map[string]any{"qnn": map[string]string{
			"backend_path": "QnnHtp.dll", "htp_performance_mode": "burst",
			"htp_graph_finalization_optimization_mode": "3", "soc_model": "60",
		}}},
	}
	cpu := map[string]any{"provider_options": []any{}}
	var kvIn, kvOut []string
	for l := range o.Layers {
		kvIn = append(kvIn, fmt.Sprintf("past_keys_%d", l), fmt.Sprintf("past_values_%d", l))
		kvOut = append(kvOut, fmt.Sprintf("present_keys_%d", l), fmt.Sprintf("present_values_%d", l))
	}
	st := o.pipeline()
	decIn := append([]string{"input_hidden_states", st.pastSeqLen, st.totalSeqLen}, kvIn...)
	decOut := append([]string{"output_hidden_states"}, kvOut...)
	cfg := genaiConfig(o)
	cfg.Model.Type = "decoder-pipeline"
	cfg.Model.ContextLength = o.ContextLength
	d := &cfg.Model.Decoder
	d.Filename = ""
	d.Inputs = map[string]string{
		"input_ids": "input_ids", "past_key_names": "past_keys_%d", "past_value_names": "past_values_%d",
		"past_sequence_length": st.pastSeqLen, "total_sequence_length": st.totalSeqLen,
	}
	d.Outputs = map[string]string{"logits": "logits", "present_key_names": "present_keys_%d", "present_value_names": "present_values_%d"}
	d.Pipeline = []map[string]stage{
		{st.stages[0]: {Filename: st.files[0], SessionOptions: cpu, Inputs: []string{"input_ids"}, Outputs: []string{"input_hidden_states"}, RunOnPrompt: true, RunOnTokenGen: true}},
		{st.stages[1]: {Filename: st.files[1], SessionOptions: qnn, Inputs: decIn, Outputs: decOut, RunOnPrompt: true}},
		{st.stages[2]: {Filename: st.files[2], SessionOptions: qnn, Inputs: decIn, Outputs: decOut, RunOnTokenGen: true}},
		{st.stages[3]: {Filename: st.files[3], SessionOptions: cpu, Inputs: []string{"output_hidden_states"}, Outputs: []string{"logits"}, RunOnPrompt: true, RunOnTokenGen: true, IsLMHead: st.lmHeadFlag}},
	}
	d.SlidingWindow = &genaiSlidingWindow{WindowSize: o.PrefillLen, PadValue: 0, Alignment: st.alignment, SlideInputs: true}
	cfg.Search = searchDefaults(o.ContextLength, true)
	return cfg
}
