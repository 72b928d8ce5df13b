package synth

import (
	"fmt"
	"math"

	"edgechat/onnx/proto"
)

// decoderSpec says which of the Hugging Face-style decoders to build: layout A/B's dynamic one
// (past and present of any length) or layout C's static one (a right-aligned cache buffer of M
// rows, S new rows per run).
type decoderSpec struct {
	static     bool
	seq, cache int // S and M of a static decoder
	kvType     proto.DataType
	idsType    proto.DataType
	past       func(layer int, kind string) string // kind is "key" or "value"
	present    func(layer int, kind string) string
}

func hfSpec(o Options) decoderSpec {
	return decoderSpec{
		kvType: kvType(o), idsType: proto.Int64,
		past:    func(l int, kind string) string { return fmt.Sprintf("past_key_values.%d.%s", l, kind) },
		present: func(l int, kind string) string { return fmt.Sprintf("present.%d.%s", l, kind) },
	}
}

func staticSpec(o Options, seq int) decoderSpec {
	return decoderSpec{
		static: true, seq: seq, cache: o.MaxCache, kvType: kvType(o), idsType: proto.Int32,
		past:    func(l int, kind string) string { return fmt.Sprintf("past_%d_%s", l, kind) },
		present: func(l int, kind string) string { return fmt.Sprintf("present_%d_%s", l, kind) },
	}
}

func kvType(o Options) proto.DataType {
	if o.KVFloat16 {
		return proto.Float16
	}
	return proto.Float
}

// io declares the decoder's inputs and outputs.
func (s decoderSpec) io(o Options) (in, out []proto.ValueInfo) {
	d := proto.Dims
	batch, seq, total, past, present := any("batch_size"), any("sequence_length"), any("total_sequence_length"), any("past_sequence_length"), any("total_sequence_length")
	if s.static {
		batch, seq, total, past, present = 1, s.seq, s.cache, s.cache, s.seq
	}
	in = []proto.ValueInfo{
		{Name: "input_ids", Type: s.idsType, Dims: d(batch, seq)},
		{Name: "attention_mask", Type: proto.Int64, Dims: d(batch, total)},
		{Name: "position_ids", Type: proto.Int64, Dims: d(batch, seq)},
	}
	out = []proto.ValueInfo{{Name: "logits", Type: proto.Float, Dims: d(batch, seq, o.Vocab)}}
	for l := range o.Layers {
		for _, kind := range []string{"key", "value"} {
			in = append(in, proto.ValueInfo{Name: s.past(l, kind), Type: s.kvType, Dims: d(batch, o.KVHeads, past, o.HeadDim)})
			out = append(out, proto.ValueInfo{Name: s.present(l, kind), Type: s.kvType, Dims: d(batch, o.KVHeads, present, o.HeadDim)})
		}
	}
	return in, out
}

// buildDecoder builds Qwen3's forward pass with a KV cache.
func buildDecoder(o Options, w *weights, s decoderSpec) *proto.Model {
	g := newGraph()
	x, embed := g.hiddenStates(o, w, s)
	g.lmHead(x, embed, w, "input_ids", o)
	g.rename("logits")
	in, out := s.io(o)
	m := g.model("main_graph", in, out, o.Quant == QuantQ4 || o.Quant == QuantQ4F16)
	if o.Quant == QuantQ4F16 {
		toFloat16(m)
	}
	nameNodes(m, o.NodeNames)
	return m
}

// hiddenStates is Qwen3's transformer up to and including the final norm: it returns the
// hidden states [B,S,H] (the norm's output, the last node added) and the embedding table.
func (g *graph) hiddenStates(o Options, w *weights, s decoderSpec) (x, embed string) {
	embed = g.weight("model.embed_tokens.weight", w.embed, int64(o.Vocab), int64(o.Hidden))
	x = g.op("Gather", []string{embed, "input_ids"})
	cos, sin := g.rotaryTables(o)
	mask := g.attentionMask(o)
	for l, lw := range w.layers {
		p := fmt.Sprintf("model.layers.%d", l)
		h := g.rmsNorm(x, p+".input_layernorm.weight", lw.inNorm, o.RMSNormEps)
		x = g.add(x, g.attention(h, l, lw, o, s, cos, sin, mask))
		h = g.rmsNorm(x, p+".post_attention_layernorm.weight", lw.postNorm, o.RMSNormEps)
		x = g.add(x, g.mlp(h, p, o, lw))
	}
	return g.rmsNorm(x, "model.norm.weight", w.norm, o.RMSNormEps), embed
}

// rotaryTables computes cos and sin [B,1,S,hd] at position_ids, as Hugging Face's
// Qwen3RotaryEmbedding does (angles duplicated over both halves).
func (g *graph) rotaryTables(o Options) (cos, sin string) {
	pos := g.unsqueeze(g.cast("position_ids", proto.Float), 2)
	freqs := g.mul(pos, g.weight("model.rotary_emb.inv_freq", invFreq(o), int64(o.HeadDim/2)))
	emb := g.op("Concat", []string{freqs, freqs}, proto.IntAttr("axis", -1))
	return g.unsqueeze(g.op("Cos", []string{emb}), 1), g.unsqueeze(g.op("Sin", []string{emb}), 1)
}

// rope applies rotary embedding in rotate_half style: x·cos + rotate_half(x)·sin.
func (g *graph) rope(x, cos, sin string) string {
	halves := g.opN("Split", 2, []string{x}, proto.IntAttr("axis", -1))
	rot := g.op("Concat", []string{g.op("Neg", []string{halves[1]}), halves[0]}, proto.IntAttr("axis", -1))
	return g.add(g.mul(x, cos), g.mul(rot, sin))
}

// attentionMask builds the boolean mask [B,1,rep·S,T] of allowed (query, key) pairs: key j is
// visible to query i (buffer row T-S+i) when j ≤ T-S+i (causal) and attention_mask[j] is 1
// (padding). It is tiled rep times along the query axis to match grouped heads.
func (g *graph) attentionMask(o Options) string {
	i64 := func(a, b string) []string { return []string{a, b} }
	dim1 := func(x string) string {
		sh := g.op("Shape", []string{x}, proto.IntAttr("start", 1), proto.IntAttr("end", 2))
		return g.op("Squeeze", i64(sh, g.i64s(0)))
	}
	s, t := dim1("input_ids"), dim1("attention_mask")
	start := g.op("Sub", i64(t, s))
	keys := g.op("Range", []string{g.scalarI64(0), t, g.scalarI64(1)})
	queries := g.unsqueeze(g.op("Range", []string{start, t, g.scalarI64(1)}), 1)
	causal := g.op("LessOrEqual", i64(keys, queries))
	pad := g.unsqueeze(g.cast("attention_mask", proto.Bool), 1, 2)
	allowed := g.op("And", i64(causal, pad))
	return g.op("Tile", i64(allowed, g.i64s(1, 1, int64(o.kvRep()), 1)))
}

// attention is Qwen3's self-attention block for layer l on normed input x [B,S,H].
func (g *graph) attention(x string, l int, lw layerWeights, o Options, s decoderSpec, cos, sin, mask string) string {
	p := fmt.Sprintf("model.layers.%d.self_attn.", l)
	hd := int64(o.HeadDim)
	q := g.transpose(g.heads(x, p+"q_proj.weight", lw.q, o.Heads, o, lw.qNorm, p+"q_norm.weight"), 0, 2, 1, 3)
	k := g.transpose(g.heads(x, p+"k_proj.weight", lw.k, o.KVHeads, o, lw.kNorm, p+"k_norm.weight"), 0, 2, 1, 3)
	v := g.transpose(g.heads(x, p+"v_proj.weight", lw.v, o.KVHeads, o, nil, ""), 0, 2, 1, 3)
	q, k = g.rope(q, cos, sin), g.rope(k, cos, sin)
	keys := g.cache(k, s.past(l, "key"), s.present(l, "key"), s)
	values := g.cache(v, s.past(l, "value"), s.present(l, "value"), s)

	// Grouped-query attention without copying KV heads: fold the rep query heads of each KV
	// head into the query-row axis, [B,nKV,rep·S,hd].
	qs := g.reshape(g.mul(q, g.scalar(float32(1/math.Sqrt(float64(hd))))), 0, int64(o.KVHeads), -1, hd)
	scores := g.matmul(qs, g.transpose(keys, 0, 1, 3, 2))
	scores = g.op("Where", []string{mask, scores, g.scalar(-1e9)})
	probs := g.op("Softmax", []string{scores}, proto.IntAttr("axis", -1))
	att := g.reshape(g.matmul(probs, values), 0, int64(o.Heads), -1, hd)
	att = g.reshape(g.transpose(att, 0, 2, 1, 3), 0, 0, int64(o.Heads)*hd)
	return g.linear(att, p+"o_proj.weight", matrix{data: lw.o, k: o.Heads * o.HeadDim, n: o.Hidden}, o)
}

// cache joins the new rows x [B,nKV,S,hd] to the past and declares the present output. A
// dynamic cache returns past+new as present; a static one drops the oldest S rows of its M-row
// buffer and returns only the new rows. With a float16 cache the new rows are rounded to
// float16 before attention too, so one pass and token-by-token runs see the same values.
func (g *graph) cache(x, past, present string, s decoderSpec) string {
	if s.kvType == proto.Float16 {
		x = g.cast(x, proto.Float16)
	}
	var full string
	axis2 := proto.IntAttr("axis", 2)
	if s.static {
		kept := g.op("Slice", []string{past, g.i64s(int64(s.seq)), g.i64s(int64(s.cache)), g.i64s(2)})
		g.op("Identity", []string{x})
		x = g.rename(present)
		full = g.op("Concat", []string{kept, x}, axis2)
	} else {
		g.op("Concat", []string{past, x}, axis2)
		full = g.rename(present)
	}
	if s.kvType == proto.Float16 {
		full = g.cast(full, proto.Float)
	}
	return full
}

// nameNodes applies n to the graph's nodes.
func nameNodes(m *proto.Model, n NodeNames) {
	for i := range m.Graph.Nodes {
		switch n {
		case NamesNone:
			m.Graph.Nodes[i].Name = ""
		case NamesRepeated:
			m.Graph.Nodes[i].Name = m.Graph.Nodes[i].OpType
		}
	}
}
