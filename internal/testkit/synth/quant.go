package synth

import (
	"fmt"
	"math"
	"slices"

	"edgechat/onnx/proto"
)

// Quant names a published quantization of a model's linear layers.
type Quant string

const (
	// QuantNone keeps every weight in float32.
	QuantNone Quant = ""
	// QuantQ4 is onnx-community's model_q4.onnx: MatMulNBits, 4 bits, block 32, accuracy_level
	// absent (ONNX Runtime's float32 path), the LM head quantized too; zero points when
	// Options.ZeroPoints is set.
	QuantQ4 Quant = "q4"
	// QuantQ4F16 is model_q4f16.onnx: q4 weights with float16 activations, scales and KV cache
	// (onnxconverter's float16 conversion of the q4 graph; the logits stay float32).
	QuantQ4F16 Quant = "q4f16"
	// QuantInt8 is model_quantized.onnx: ONNX Runtime's dynamic quantization, int8 weights
	// (one scale per matrix) behind DynamicQuantizeLinear and MatMulInteger.
	QuantInt8 Quant = "int8"
	// QuantGenAIInt4 is onnxruntime-genai's CPU int4 build (layout B): MatMulNBits with
	// accuracy_level 4, GroupQueryAttention whose past and present may share one buffer, and a
	// quantized LM head.
	QuantGenAIInt4 Quant = "genai-int4"
)

// Quants lists every quantization Write knows.
var Quants = []Quant{QuantQ4, QuantQ4F16, QuantInt8, QuantGenAIInt4}

// File is the decoder's file name in layout A for q: onnx-community's names.
func (q Quant) File() string {
	switch q {
	case QuantQ4:
		return "model_q4.onnx"
	case QuantQ4F16:
		return "model_q4f16.onnx"
	case QuantInt8:
		return "model_quantized.onnx"
	}
	return "model.onnx"
}

// validateQuant reports what stops o's quantization.
func (o Options) validateQuant() []error {
	if o.Quant == QuantNone {
		return nil
	}
	var errs []error
	if !slices.Contains(Quants, o.Quant) {
		errs = append(errs, fmt.Errorf("unknown quantization %q: choose one of %v", o.Quant, Quants))
	}
	want := LayoutHF
	if o.Quant == QuantGenAIInt4 {
		want = LayoutGenAI
	}
	embeddingQuant := o.Layout == LayoutEmbedding && (o.Quant == QuantQ4 || o.Quant == QuantInt8)
	if o.Layout != want && !embeddingQuant {
		errs = append(errs, fmt.Errorf("quantization %s is published in layout %s, not %s", o.Quant, want, o.Layout))
	}
	if o.ZeroPoints && o.Quant != QuantQ4 && o.Quant != QuantQ4F16 {
		errs = append(errs, fmt.Errorf("zero points apply to q4 and q4f16, not %s", o.Quant))
	}
	if o.Quant == QuantQ4F16 && !o.KVFloat16 {
		errs = append(errs, fmt.Errorf("q4f16 files keep a float16 KV cache: set the KV dtype to fp16"))
	}
	if o.Quant != QuantInt8 {
		for _, k := range []struct {
			name string
			v    int
		}{{"hidden", o.Hidden}, {"intermediate", o.Intermediate}, {"heads × head-dim", o.Heads * o.HeadDim}} {
			if k.v%Q4Block != 0 {
				errs = append(errs, fmt.Errorf("%s (%d) must be a multiple of %d for 4-bit blocks", k.name, k.v, Q4Block))
			}
		}
	}
	return errs
}

// linear is x·W for a weight stored as m, quantized as o.Quant asks.
func (g *graph) linear(x, name string, m matrix, o Options) string {
	switch o.Quant {
	case QuantQ4, QuantQ4F16:
		return g.matMulNBits(x, name, m, o.ZeroPoints, 0)
	case QuantGenAIInt4:
		return g.matMulNBits(x, name, m, false, 4)
	case QuantInt8:
		return g.matMulInteger(x, name, m)
	}
	if m.nk {
		return g.op("Gemm", []string{x, g.weight(name, m.data, int64(m.n), int64(m.k))}, proto.IntAttr("transB", 1))
	}
	return g.matmul(x, g.weight(name, m.data, int64(m.k), int64(m.n)))
}

// matMulInteger is ONNX Runtime's dynamic int8 quantization of x·W: the activations are
// quantized per call (uint8), the weight once (int8, symmetric, one scale).
func (g *graph) matMulInteger(x, name string, m matrix) string {
	var amax float32
	for _, v := range m.data {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	scale := amax / 127
	if scale == 0 {
		scale = 1
	}
	raw := make([]byte, m.k*m.n)
	for k := range m.k {
		for n := range m.n {
			raw[k*m.n+n] = byte(int8(math.Round(float64(m.at(k, n) / scale))))
		}
	}
	wq, ws, wz := name+"_quantized", name+"_scale", name+"_zero_point"
	g.inits = append(g.inits,
		&proto.Tensor{Name: wq, DataType: proto.Int8, Dims: []int64{int64(m.k), int64(m.n)}, Raw: raw},
		proto.FloatTensor(ws, nil, []float32{scale}),
		&proto.Tensor{Name: wz, DataType: proto.Int8, Raw: []byte{0}})
	xq := g.opN("DynamicQuantizeLinear", 3, []string{x})
	y := g.cast(g.op("MatMulInteger", []string{xq[0], wq, xq[2], wz}), proto.Float)
	return g.mul(y, g.mul(xq[1], ws))
}

// toFloat16 turns a float32 graph into the float16 one onnxconverter-common makes with
// keep_io_types for the logits: every float32 weight and constant becomes float16 (clamped to
// its range), every Cast to float32 casts to float16, and the logits are cast back to float32.
func toFloat16(m *proto.Model) {
	g := &m.Graph
	for i, t := range g.Initializers {
		if t.DataType != proto.Float {
			continue
		}
		v, _ := t.Floats()
		for j := range v {
			v[j] = min(65504, max(-65504, v[j]))
		}
		g.Initializers[i] = proto.Float16Tensor(t.Name, t.Dims, v)
	}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		for j, a := range n.Attrs {
			if n.OpType == "Cast" && a.Name == "to" && a.Int == int64(proto.Float) {
				n.Attrs[j].Int = int64(proto.Float16)
			}
		}
		for j, out := range n.Outputs {
			if out == "logits" {
				n.Outputs[j] = "logits_float16"
			}
		}
	}
	g.Nodes = append(g.Nodes, proto.Node{Name: "/logits_cast", OpType: "Cast", Inputs: []string{"logits_float16"},
		Outputs: []string{"logits"}, Attrs: []attr{proto.IntAttr("to", int64(proto.Float))}})
}

// dequantize replaces w's 4-bit-quantized weights by the values they stand for: the float32
// twin of a q4 model, whose logits the q4 graph must reproduce up to summation order.
func (w *weights) dequantize(o Options) {
	for i := range w.layers {
		lw := &w.layers[i]
		h, q, kv, n := o.Hidden, o.Heads*o.HeadDim, o.KVHeads*o.HeadDim, o.Intermediate
		for _, p := range []struct {
			w    *[]float32
			k, n int
		}{{&lw.q, h, q}, {&lw.k, h, kv}, {&lw.v, h, kv}, {&lw.o, q, h}, {&lw.gate, h, n}, {&lw.up, h, n}, {&lw.down, n, h}} {
			*p.w = dequantized(matrix{data: *p.w, k: p.k, n: p.n}, o.ZeroPoints)
		}
	}
	w.head = dequantized(matrix{data: w.output(), k: o.Hidden, n: o.Vocab, nk: true}, o.ZeroPoints)
}

// buildGenAIInt4 builds onnxruntime-genai's int4 decoder: input_ids and attention_mask in,
// GroupQueryAttention with rotary inside (seqlens_k and the total length come from the mask,
// as the builder's mask subgraph makes them), past_key_values.N / present.N, logits out.
func buildGenAIInt4(o Options, w *weights) *proto.Model {
	g := newGraph()
	embed := g.weight("model.embed_tokens.weight", w.embed, int64(o.Vocab), int64(o.Hidden))
	x := g.op("Gather", []string{embed, "input_ids"})
	sum := g.op("ReduceSum", []string{"attention_mask", g.i64s(1)}, proto.IntAttr("keepdims", 0))
	seqlens := g.cast(g.op("Sub", []string{sum, g.scalarI64(1)}), proto.Int32)
	total := g.cast(g.op("Shape", []string{"attention_mask"}, proto.IntAttr("start", 1), proto.IntAttr("end", 2)), proto.Int32)
	s := hfSpec(o)
	x = g.gqaLayers(o, w, x, seqlens, total, o.MaxPositions, s.past, s.present)
	x = g.rmsNorm(x, "model.norm.weight", w.norm, o.RMSNormEps)
	g.lmHead(x, embed, w, "input_ids", o)
	g.rename("logits")
	in, out := s.io(o)
	in = slices.DeleteFunc(in, func(v proto.ValueInfo) bool { return v.Name == "position_ids" })
	return g.model("main_graph", in, out, true)
}
