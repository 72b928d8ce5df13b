package optimize

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// Qwen3 normalizes each head of its queries and keys (q_norm, k_norm) before rotary. In the
// copies, between a layer's packed QKV product and its attention that is seven nodes: a Split
// (q, k, v), and for q and for k a Reshape to heads, a SimplifiedLayerNormalization over the head
// size and a Reshape back. With AttentionKernel.QKNorm, foldQKNorm gives an attention node
// moved to the kernels the product's output as packed QKV (key and value absent) and the two
// norms' weights as inputs 14 and 15 with their epsilon (attribute qk_norm_epsilon), and drops
// the seven nodes: the kernels (inference/ort/attnop) apply the norms as ONNX Runtime does.

// Inputs and attribute of a kernel node that applies the q/k norms itself.
const (
	qNormInput    = 14
	kNormInput    = 15
	qkNormEpsAttr = "qk_norm_epsilon"
)

// qkChain is one of q and k's Reshape, SimplifiedLayerNormalization, Reshape (node indexes),
// from output part of a Split.
type qkChain struct {
	split, part, reshape, norm, back int
	weight                           string
	eps                              float32
}

// qkGraph is what foldQKNorm reads of the graph: each tensor's producer and readers, the small
// constants, the initializers' dimensions and the graph outputs.
type qkGraph struct {
	nodes    []node
	producer map[string]int
	readers  map[string]int
	consts   map[string][]float64
	dims     map[string][]int64
	outputs  map[string]bool
}

// only says whether t is read by exactly one node input and is no graph output.
func (g *qkGraph) only(t string) bool { return g.readers[t] == 1 && !g.outputs[t] }

// chain follows attention input t back through Reshape, SimplifiedLayerNormalization over the
// last axis (head size d) and Reshape to a Split's output, or says why it does not.
func (g *qkGraph) chain(t string, d, width int64) (qkChain, string) {
	var c qkChain
	step := func(t, op string) (int, string) {
		i, ok := g.producer[t]
		if !ok || g.nodes[i].op != op || g.nodes[i].domain != "" {
			return 0, fmt.Sprintf("%s is not made by a %s", t, op)
		}
		if !g.only(t) {
			return 0, fmt.Sprintf("%s has another reader", t)
		}
		return i, ""
	}
	var why string
	if c.back, why = step(t, "Reshape"); why != "" {
		return c, why
	}
	back := g.nodes[c.back]
	if s := g.consts[back.inputs[1]]; len(s) == 0 || int64(s[len(s)-1]) != width {
		return c, fmt.Sprintf("%s is not reshaped back to rows of %d", t, width)
	}
	if c.norm, why = step(back.inputs[0], "SimplifiedLayerNormalization"); why != "" {
		return c, why
	}
	norm := g.nodes[c.norm]
	if axis, ok, _ := intAttr(norm.raw, "axis"); ok && axis != -1 {
		return c, fmt.Sprintf("%s normalizes axis %d, not the last", norm.name, axis)
	}
	if st, ok, _ := intAttr(norm.raw, "stash_type"); ok && st != 1 {
		return c, fmt.Sprintf("%s has stash_type %d", norm.name, st)
	}
	if len(norm.inputs) != 2 || len(norm.outputs) == 0 || slices.ContainsFunc(norm.outputs[1:], func(o string) bool { return o != "" }) {
		return c, fmt.Sprintf("%s has other inputs or outputs than x, scale and y", norm.name)
	}
	c.weight = norm.inputs[1]
	if w := g.dims[c.weight]; len(w) != 1 || w[0] != d {
		return c, fmt.Sprintf("%s's weight %s is not an initializer of the head size %d", norm.name, c.weight, d)
	}
	c.eps = 1e-5 // the operator's default
	if e, ok := floatAttr(norm.raw, "epsilon"); ok {
		c.eps = e
	}
	if c.reshape, why = step(norm.inputs[0], "Reshape"); why != "" {
		return c, why
	}
	reshape := g.nodes[c.reshape]
	if s := g.consts[reshape.inputs[1]]; len(s) == 0 || int64(s[len(s)-1]) != d {
		return c, fmt.Sprintf("%s does not reshape to heads of %d", reshape.name, d)
	}
	split, ok := g.producer[reshape.inputs[0]]
	if !ok || g.nodes[split].op != "Split" || g.nodes[split].domain != "" || !g.only(reshape.inputs[0]) {
		return c, fmt.Sprintf("%s is not one part of a Split read by it alone", reshape.inputs[0])
	}
	c.split, c.part = split, slices.Index(g.nodes[split].outputs, reshape.inputs[0])
	return c, ""
}

// foldRefusal says why attention node a (moved to k's kernels) cannot take its q/k norms and
// packed QKV, or gives the two chains, the packed tensor and the nodes to drop.
func (g *qkGraph) foldRefusal(a node, k AttentionKernel) (q, kc qkChain, packed string, why string) {
	if len(a.inputs) < 9 || len(a.inputs) > 14 || a.inputs[1] == "" || a.inputs[2] == "" {
		return q, kc, "", "it has no separate query, key and value, or already more inputs"
	}
	d, h, kv := int64(k.HeadSize), int64(k.Heads), int64(k.KVHeads)
	if q, why = g.chain(a.inputs[0], d, h*d); why != "" {
		return q, kc, "", "query: " + why
	}
	if kc, why = g.chain(a.inputs[1], d, kv*d); why != "" {
		return q, kc, "", "key: " + why
	}
	sp := g.nodes[q.split]
	if kc.split != q.split || q.part != 0 || kc.part != 1 || len(sp.outputs) != 3 || sp.outputs[2] != a.inputs[2] {
		return q, kc, "", "query, key and value are not parts 0, 1 and 2 of one Split"
	}
	if !g.only(a.inputs[2]) {
		return q, kc, "", "the value has another reader"
	}
	if q.eps != kc.eps {
		return q, kc, "", fmt.Sprintf("the norms' epsilons differ (%g, %g)", q.eps, kc.eps)
	}
	axis, ok, _ := intAttr(sp.raw, "axis")
	var sizes []float64
	if len(sp.inputs) > 1 {
		sizes = g.consts[sp.inputs[1]]
	} else if s, ok := intsAttr(sp.raw, "split"); ok {
		for _, v := range s {
			sizes = append(sizes, float64(v))
		}
	}
	if !ok || axis != -1 && axis != 2 || !slices.Equal(sizes, []float64{float64(h * d), float64(kv * d), float64(kv * d)}) {
		return q, kc, "", fmt.Sprintf("%s does not split the last axis into %d, %d and %d", sp.name, h*d, kv*d, kv*d)
	}
	packed = sp.inputs[0]
	if p, ok := g.producer[packed]; !ok || g.nodes[p].op != "MatMulNBits" && g.nodes[p].op != "MatMul" {
		return q, kc, "", fmt.Sprintf("the Split's input %s is not a MatMulNBits or MatMul output", packed)
	}
	return q, kc, packed, ""
}

// foldQKNorm folds the q/k norms and the Split before each of nodes' attention nodes in k's
// domains (see the comment at the top of this file); inits are initializers added by the
// rewrites before (not in gfs). It returns the nodes, how many attention nodes took them and,
// when one did not, why the first did not.
func foldQKNorm(nodes []node, gfs []field, inits [][]byte, info *proto.ModelInfo, k AttentionKernel) ([]node, int, string) {
	for _, b := range inits {
		gfs = append(gfs[:len(gfs):len(gfs)], field{num: proto.FieldGraphInitializer, typ: protowire.BytesType, val: b})
	}
	g := &qkGraph{nodes: nodes, producer: map[string]int{}, readers: map[string]int{}, consts: smallConsts(gfs, nodes),
		dims: initializerDims(gfs), outputs: map[string]bool{}}
	for _, o := range info.Outputs {
		g.outputs[o.Name] = true
	}
	for i, n := range nodes {
		for _, o := range n.outputs {
			g.producer[o] = i
		}
		for _, in := range n.inputs {
			g.readers[in]++
		}
	}
	drop := map[int]bool{}
	folded, skipped := 0, ""
	for i, a := range nodes {
		if a.op != "GroupQueryAttention" || a.domain == "" || a.domain != k.Domain && a.domain != k.DomainInt8 {
			continue
		}
		q, kc, packed, why := g.foldRefusal(a, k)
		if why != "" {
			if skipped == "" {
				skipped = fmt.Sprintf("node %s: %s", a.name, why)
			}
			continue
		}
		in := slices.Clone(a.inputs)
		for len(in) < kNormInput+1 {
			in = append(in, "")
		}
		in[0], in[1], in[2] = packed, "", ""
		in[qNormInput], in[kNormInput] = nodes[q.norm].inputs[1], nodes[kc.norm].inputs[1]
		raw, err := withInputs(a.raw, in)
		if err != nil {
			if skipped == "" {
				skipped = fmt.Sprintf("node %s: %v", a.name, err)
			}
			continue
		}
		nodes[i] = mkNode(raw, withFloat(qkNormEpsAttr, q.eps))
		for _, j := range []int{q.split, q.reshape, q.norm, q.back, kc.reshape, kc.norm, kc.back} {
			drop[j] = true
		}
		folded++
	}
	out := nodes[:0:0]
	for i, n := range nodes {
		if !drop[i] {
			out = append(out, n)
		}
	}
	return out, folded, skipped
}

// initializerDims are the dimensions of the graph's initializers, by name.
func initializerDims(gfs []field) map[string][]int64 {
	out := map[string][]int64{}
	for _, f := range gfs {
		if f.num != proto.FieldGraphInitializer || f.typ != protowire.BytesType {
			continue
		}
		tfs, err := fields(f.val)
		if err != nil {
			continue
		}
		var name string
		dims := []int64{}
		for _, t := range tfs {
			switch {
			case t.num == proto.FieldTensorName && t.typ == protowire.BytesType:
				name = string(t.val)
			case t.num == proto.FieldTensorDims && t.typ == protowire.VarintType:
				dims = append(dims, int64(t.v))
			case t.num == proto.FieldTensorDims && t.typ == protowire.BytesType:
				for b := t.val; len(b) > 0; {
					x, n := protowire.ConsumeVarint(b)
					if n < 0 {
						break
					}
					dims, b = append(dims, int64(x)), b[n:]
				}
			}
		}
		out[name] = dims
	}
	return out
}
