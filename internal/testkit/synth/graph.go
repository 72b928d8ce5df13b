package synth

import (
	"fmt"
	"math"

	"edgechat/onnx/proto"
)

// graph accumulates nodes and initializers; each helper returns the name of its output.
type graph struct {
	nodes  []proto.Node
	inits  []*proto.Tensor
	consts map[string]string
	n      int
	// prefix starts the names of the nodes and values added (a merged decoder's branches:
	// names are unique across a model and its subgraphs); constants and weights keep theirs.
	prefix string
}

func newGraph() *graph { return &graph{consts: map[string]string{}} }

type attr = proto.Attr

// opN adds a node with n outputs.
func (g *graph) opN(op string, n int, in []string, attrs ...attr) []string {
	g.n++
	name := fmt.Sprintf("/%s%s_%d", g.prefix, op, g.n)
	outs := make([]string, n)
	for i := range outs {
		outs[i] = fmt.Sprintf("%s/output_%d", name, i)
	}
	g.nodes = append(g.nodes, proto.Node{Name: name, OpType: op, Inputs: in, Outputs: outs, Attrs: attrs})
	return outs
}

func (g *graph) op(op string, in []string, attrs ...attr) string {
	return g.opN(op, 1, in, attrs...)[0]
}

// msOp adds a com.microsoft node with n outputs named outs (generated where empty).
func (g *graph) msOp(op string, in, outs []string, attrs ...attr) []string {
	res := g.opN(op, len(outs), in, attrs...)
	for i, o := range outs {
		if o != "" {
			res[i] = o
		}
	}
	nd := &g.nodes[len(g.nodes)-1]
	nd.Domain, nd.Outputs = "com.microsoft", res
	return res
}

// rename makes the last node write its output under name (a graph output).
func (g *graph) rename(name string) string {
	name = g.prefix + name
	g.nodes[len(g.nodes)-1].Outputs[0] = name
	return name
}

func (g *graph) add(a, b string) string    { return g.op("Add", []string{a, b}) }
func (g *graph) mul(a, b string) string    { return g.op("Mul", []string{a, b}) }
func (g *graph) matmul(a, b string) string { return g.op("MatMul", []string{a, b}) }

func (g *graph) reshape(x string, shape ...int64) string {
	return g.op("Reshape", []string{x, g.i64s(shape...)})
}

func (g *graph) transpose(x string, perm ...int64) string {
	return g.op("Transpose", []string{x}, proto.IntsAttr("perm", perm...))
}

func (g *graph) unsqueeze(x string, axes ...int64) string {
	return g.op("Unsqueeze", []string{x, g.i64s(axes...)})
}

func (g *graph) cast(x string, to proto.DataType) string {
	return g.op("Cast", []string{x}, proto.IntAttr("to", int64(to)))
}

// i64s is a constant 1-D int64 tensor, shared between uses.
func (g *graph) i64s(v ...int64) string {
	key := fmt.Sprint("i64", v)
	if name, ok := g.consts[key]; ok {
		return name
	}
	name := fmt.Sprintf("%sconst_i64_%d", g.prefix, len(g.consts))
	g.consts[key] = name
	g.inits = append(g.inits, proto.Int64Tensor(name, []int64{int64(len(v))}, v))
	return name
}

// scalar is a constant float32 scalar; scalarI64 an int64 one.
func (g *graph) scalar(v float32) string {
	key := fmt.Sprint("f32", math.Float32bits(v))
	if name, ok := g.consts[key]; ok {
		return name
	}
	name := fmt.Sprintf("%sconst_f32_%d", g.prefix, len(g.consts))
	g.consts[key] = name
	g.inits = append(g.inits, proto.FloatTensor(name, nil, []float32{v}))
	return name
}

func (g *graph) scalarI64(v int64) string {
	key := fmt.Sprint("i64s", v)
	if name, ok := g.consts[key]; ok {
		return name
	}
	name := fmt.Sprintf("%sconst_i64s_%d", g.prefix, len(g.consts))
	g.consts[key] = name
	g.inits = append(g.inits, proto.Int64Tensor(name, nil, []int64{v}))
	return name
}

// weight adds a float32 initializer.
func (g *graph) weight(name string, data []float32, dims ...int64) string {
	g.inits = append(g.inits, proto.FloatTensor(name, dims, data))
	return name
}

// rmsNorm is Qwen3RMSNorm over the last axis: x / sqrt(mean(x²) + eps) · w.
func (g *graph) rmsNorm(x, name string, w []float32, eps float64) string {
	mean := g.op("ReduceMean", []string{g.mul(x, x)}, proto.IntsAttr("axes", -1), proto.IntAttr("keepdims", 1))
	rms := g.op("Sqrt", []string{g.add(mean, g.scalar(float32(eps)))})
	return g.mul(g.op("Div", []string{x, rms}), g.weight(name, w, int64(len(w))))
}

// mlp is Qwen3's SwiGLU block: down(silu(gate(x)) · up(x)).
func (g *graph) mlp(x, prefix string, o Options, lw layerWeights) string {
	h, n := o.Hidden, o.Intermediate
	gate := g.linear(x, prefix+".mlp.gate_proj.weight", matrix{data: lw.gate, k: h, n: n}, o)
	up := g.linear(x, prefix+".mlp.up_proj.weight", matrix{data: lw.up, k: h, n: n}, o)
	silu := g.mul(gate, g.op("Sigmoid", []string{gate}))
	return g.linear(g.mul(silu, up), prefix+".mlp.down_proj.weight", matrix{data: lw.down, k: n, n: h}, o)
}

// heads projects x [B,S,H] to heads [B,S,n,hd] and applies the per-head RMSNorm (nil norm
// skips it, as for values).
func (g *graph) heads(x, name string, w []float32, n int, o Options, norm []float32, normName string) string {
	hd := int64(o.HeadDim)
	y := g.linear(x, name, matrix{data: w, k: o.Hidden, n: n * o.HeadDim}, o)
	y = g.reshape(y, 0, 0, int64(n), hd)
	if norm != nil {
		y = g.rmsNorm(y, normName, norm, o.RMSNormEps)
	}
	return y
}

// lmHead is the output projection, tied to the embedding unless w has its own head:
// logits = h · embedᵀ for h [B,S,H], with the batch and sequence dims of like [B,S,…] (Gemm
// with transB avoids storing a transposed copy). A quantized model quantizes it like the other
// projections; the float32 twin of a q4 model and a copying model have their own head.
func (g *graph) lmHead(h, embed string, w *weights, like string, o Options) string {
	flat := g.reshape(h, -1, int64(o.Hidden))
	var logits string
	switch {
	case o.Quant != QuantNone:
		logits = g.linear(flat, "lm_head", matrix{data: w.output(), k: o.Hidden, n: o.Vocab, nk: true}, o)
	case w.head != nil:
		logits = g.linear(flat, "lm_head.weight", matrix{data: w.head, k: o.Hidden, n: o.Vocab, nk: true}, o)
	default:
		logits = g.op("Gemm", []string{flat, embed}, proto.IntAttr("transB", 1))
	}
	bs := g.op("Shape", []string{like}, proto.IntAttr("start", 0), proto.IntAttr("end", 2))
	shape := g.op("Concat", []string{bs, g.i64s(int64(o.Vocab))}, proto.IntAttr("axis", 0))
	return g.op("Reshape", []string{logits, shape})
}

// model wraps the graph as an opset-17 model (IR version 8, which onnx 1.12 accepts).
func (g *graph) model(name string, in, out []proto.ValueInfo, msDomain bool) *proto.Model {
	opsets := []proto.Opset{{Version: 17}}
	if msDomain {
		opsets = append(opsets, proto.Opset{Domain: "com.microsoft", Version: 1})
	}
	return &proto.Model{
		IRVersion: 8, Producer: "edgechat-mkmodel", ProducerVersion: "1", Opsets: opsets,
		Graph: proto.Graph{Name: name, Nodes: g.nodes, Inputs: in, Outputs: out, Initializers: g.inits},
	}
}
