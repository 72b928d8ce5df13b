package optimize

import (
	"fmt"
	"slices"

	"edgechat/onnx/proto"
)

// Pruning the last layer to the rows the LM head reads.
//
// In a decoder's last layer every row depends on the others only through attention, whose
// keys and values are every row's; after it each row is computed alone: output projection,
// residual add, norm, MLP, residual add, final norm. Only the last rows' logits are wanted
// (one in prefill, k+1 in verification), so that part is wasted on every other row of a
// prompt: in a 28-layer model 1/28 of a prefill's MLP and projection work, in a 4-layer one
// nearly a fifth. llama.cpp drops those rows there too (its output ids). pruneLastLayer moves
// the LM head's row slice up to the last attention's output and to the residual stream
// beside it, when everything between them and the head is such a row-by-row operator.

// rowOps are operators that compute each row from that row and constants alone (elementwise
// ones on a row and broadcast constants, and matrix products with constant weights); a few
// more qualify only with attributes checked in rowWise.
var rowOps = map[string]bool{
	"Add": true, "Sub": true, "Mul": true, "Div": true, "Pow": true,
	"Sqrt": true, "Reciprocal": true, "Neg": true, "Sigmoid": true, "Tanh": true, "Relu": true,
	"Erf": true, "Exp": true, "Cast": true, "Identity": true, "Softplus": true,
	"MatMul": true, "MatMulNBits": true, "QuickGelu": true, "FastGelu": true, "Gelu": true,
	"ReduceMean": true, "ReduceSum": true, "Reshape": true,
	"SimplifiedLayerNormalization": true, "LayerNormalization": true,
	"SkipSimplifiedLayerNormalization": true, "SkipLayerNormalization": true,
}

// attentionOps produce the attention output the slice may start from: [batch, seq, hidden].
var attentionOps = map[string]bool{"GroupQueryAttention": true, "MultiHeadAttention": true, "Attention": true}

// residualOps produce the residual stream beside it (the previous layer's sum, or the
// embedding for a one-layer model).
var residualOps = map[string]bool{"Add": true, "SkipSimplifiedLayerNormalization": true, "SkipLayerNormalization": true, "Gather": true}

// pruneLastLayer feeds the row-by-row part of the last layer only the rows the LM head keeps:
// slice is the Slice node pruneHead put before the head (data, starts, ends, axes). It
// returns the nodes with the new slices, or the nodes unchanged and why not.
func pruneLastLayer(nodes []node, gfs []field, info *proto.ModelInfo, slice int) ([]node, int, string) {
	v := newAttnView(nodes, gfs, info)
	sl := nodes[slice]
	// Candidates: nodes reachable backwards from the slice's data through row operators.
	cand := map[int]bool{}
	queue := []string{sl.inputs[0]}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		i, ok := v.producer[t]
		if !ok || cand[i] || v.constant(t) || !v.rowWise(nodes[i]) {
			continue
		}
		cand[i] = true
		for _, in := range nodes[i].inputs {
			if in != "" && !v.constant(in) {
				queue = append(queue, in)
			}
		}
	}
	// Keep only candidates whose every output is read by candidates (or the head's slice)
	// and by no graph output, until nothing changes.
	for changed := true; changed; {
		changed = false
		for i := range cand {
			for _, o := range nodes[i].outputs {
				if v.outputs[o] || slices.ContainsFunc(v.consumers[o], func(c int) bool { return c != slice && !cand[c] }) {
					delete(cand, i)
					changed = true
					break
				}
			}
		}
	}
	var matmuls int
	boundary := map[string]bool{}
	sawAttention := false
	for i, n := range nodes { // in graph order, so the reason given is always the same
		if !cand[i] {
			continue
		}
		if n.op == "MatMul" || n.op == "MatMulNBits" {
			matmuls++
		}
		for _, in := range n.inputs {
			p, ok := v.producer[in]
			if in == "" || v.constant(in) || (ok && cand[p]) {
				continue
			}
			switch {
			case !ok:
				return nodes, 0, fmt.Sprintf("%s reads graph input %s", n.name, in)
			case attentionOps[nodes[p].op] && nodes[p].outputs[0] == in:
				sawAttention = true
			case residualOps[nodes[p].op] && (n.op == "Add" || residualOps[n.op]):
			default:
				return nodes, 0, fmt.Sprintf("%s reads %s from a %s node, neither attention nor the residual stream", n.name, in, nodes[p].op)
			}
			boundary[in] = true
		}
	}
	if !sawAttention || matmuls == 0 {
		return nodes, 0, "no matrix product after the last attention feeds the LM head alone"
	}
	const p = "edgechat_last_layer"
	var out []node
	for i, n := range nodes {
		if cand[i] {
			n.inputs = slices.Clone(n.inputs)
			for k, in := range n.inputs {
				if boundary[in] {
					if err := rewire(&n, k, p+"/"+in); err != nil {
						return nodes, 0, err.Error()
					}
				}
			}
		}
		out = append(out, n)
		for _, o := range n.outputs {
			if boundary[o] {
				out = append(out, mkNode(encodeNode(p+"/slice/"+o, "Slice", []string{o, sl.inputs[1], sl.inputs[2], sl.inputs[3]}, []string{p + "/" + o})))
			}
		}
	}
	// The rows kept may be computed from graph inputs and initializers only (Neg and Sign of
	// logits_to_keep): those nodes go first, in order, so every new slice follows them.
	var front []node
	moved := map[string]bool{}
	var early func(name string) bool
	early = func(name string) bool {
		j, ok := v.producer[name]
		if !ok || moved[nodes[j].name] {
			return true // a graph input, an initializer, or a node already going first
		}
		if slices.ContainsFunc(nodes[j].inputs, func(in string) bool { return !early(in) }) {
			return false
		}
		moved[nodes[j].name] = true
		front = append(front, nodes[j])
		return true
	}
	for _, in := range sl.inputs[1:] {
		if !early(in) {
			return nodes, 0, "the head's row count is computed from more than graph inputs"
		}
	}
	out = slices.DeleteFunc(out, func(n node) bool { return moved[n.name] })
	out = append(front, out...)
	return out, len(cand), ""
}

// rowWise reports whether node n computes each row from that row alone: an operator of
// rowOps whose reductions and norms run over the last axis, whose matrix products multiply
// by constant weights, and whose reshapes only merge the leading axes ([-1, hidden]).
func (v *attnView) rowWise(n node) bool {
	if !rowOps[n.op] {
		return false
	}
	switch n.op {
	case "MatMul", "MatMulNBits":
		for _, in := range n.inputs[1:] {
			if in != "" && !v.constant(in) {
				return false
			}
		}
	case "ReduceMean", "ReduceSum":
		axes, ok := intsAttr(n.raw, "axes")
		if !ok && len(n.inputs) > 1 {
			axes, ok = v.ints(n.inputs[1])
		}
		return ok && slices.Equal(axes, []int64{-1})
	case "SimplifiedLayerNormalization", "LayerNormalization":
		axis, ok, err := intAttr(n.raw, "axis")
		return err == nil && (!ok || axis == -1)
	case "Reshape":
		shape, ok := v.ints(n.inputs[1])
		return ok && len(shape) == 2 && shape[0] == -1 && shape[1] > 0
	}
	return true
}
