package optimize

import "edgechat/onnx/proto"

// RMSNorm as one node.
//
// Exports write RMSNorm — x / √(mean(x²) + ε) · w — as six nodes: Mul(x, x) or Pow(x, 2),
// ReduceMean over the last axis, Add ε, Sqrt, Div (or Reciprocal and Mul), Mul by the weight.
// A decoder has two per layer, two more with Qwen3's per-head query and key norms, and one at
// the end: a sixth of a 4-layer graph's nodes, each a pass over the activations and a kernel
// launch. ONNX Runtime fuses the Pow form itself; fuseRMSNorm writes every form as its
// SimplifiedLayerNormalization. ONNX Runtime does not fuse that with the residual Add before
// it when the sum feeds the next residual Add too, as in every decoder layer: fuseSkipNorm
// does (skipnorm.go).

// rmsNorm is one matched norm: the nodes it replaces, its input, weight and ε.
type rmsNorm struct {
	nodes     []int
	x, w, out string
	eps       float32
}

// fuseRMSNorm replaces every float32 RMSNorm it recognises by SimplifiedLayerNormalization
// and returns the nodes and how many it fused.
func fuseRMSNorm(nodes []node, gfs []field, info *proto.ModelInfo) ([]node, int) {
	v := newAttnView(nodes, gfs, info)
	var found []rmsNorm
	for i, n := range nodes {
		if r, ok := v.matchRMSNorm(i, n); ok {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		return nodes, 0
	}
	drop := map[int]bool{}
	at := map[int]rmsNorm{} // the weight Mul's place gets the fused node
	for _, r := range found {
		for _, i := range r.nodes {
			drop[i] = true
		}
		at[r.nodes[len(r.nodes)-1]] = r
	}
	var out []node
	for i, n := range nodes {
		if r, ok := at[i]; ok {
			out = append(out, mkNode(encodeNode(n.name+"/edgechat_rmsnorm", "SimplifiedLayerNormalization", []string{r.x, r.w}, []string{r.out}),
				withInt("axis", -1), withFloat("epsilon", r.eps), withInt("stash_type", 1)))
			continue
		}
		if !drop[i] {
			out = append(out, n)
		}
	}
	return out, len(found)
}

// matchRMSNorm matches the norm whose squaring node is i: each intermediate read by the next
// node only, the mean over the last axis, ε and the float32 weight constants.
func (v *attnView) matchRMSNorm(i int, sq node) (rmsNorm, bool) {
	var r rmsNorm
	if sq.domain != "" || len(sq.inputs) != 2 {
		return r, false
	}
	x := sq.inputs[0]
	switch sq.op {
	case "Mul":
		if sq.inputs[1] != x {
			return r, false
		}
	case "Pow":
		if p, ok := v.scalar(sq.inputs[1]); !ok || p != 2 {
			return r, false
		}
	default:
		return r, false
	}
	mi, ok := v.onlyReader(sq.outputs[0], "ReduceMean")
	if !ok || !v.rowWise(v.nodes[mi]) {
		return r, false
	}
	mean := v.nodes[mi]
	if keep, set, _ := intAttr(mean.raw, "keepdims"); set && keep == 0 {
		return r, false
	}
	ai, ok := v.onlyReader(mean.outputs[0], "Add")
	if !ok {
		return r, false
	}
	eps, ok := v.scalar(other(v.nodes[ai], mean.outputs[0]))
	if !ok {
		return r, false
	}
	si, ok := v.onlyReader(v.nodes[ai].outputs[0], "Sqrt")
	if !ok {
		return r, false
	}
	sqrt := v.nodes[si].outputs[0]
	r.nodes = []int{i, mi, ai, si}
	var normed string
	if di, ok := v.onlyReader(sqrt, "Div"); ok {
		if div := v.nodes[di]; div.inputs[0] != x || div.inputs[1] != sqrt {
			return r, false
		}
		r.nodes, normed = append(r.nodes, di), v.nodes[di].outputs[0]
	} else if ri, ok := v.onlyReader(sqrt, "Reciprocal"); ok {
		inv := v.nodes[ri].outputs[0]
		mul, ok := v.onlyReader(inv, "Mul")
		if !ok || other(v.nodes[mul], inv) != x {
			return r, false
		}
		r.nodes, normed = append(r.nodes, ri, mul), v.nodes[mul].outputs[0]
	} else {
		return r, false
	}
	wi, ok := v.onlyReader(normed, "Mul")
	if !ok {
		return r, false
	}
	w := other(v.nodes[wi], normed)
	if v.inits[w] != tensorFloat {
		return r, false
	}
	r.nodes = append(r.nodes, wi)
	r.x, r.w, r.out, r.eps = x, w, v.nodes[wi].outputs[0], float32(eps)
	return r, true
}

// onlyReader is the one node reading t, if it is an op node of the default domain.
func (v *attnView) onlyReader(t, op string) (int, bool) {
	cs := v.consumers[t]
	if len(cs) != 1 || v.outputs[t] || v.nodes[cs[0]].op != op || v.nodes[cs[0]].domain != "" {
		return 0, false
	}
	return cs[0], true
}

// other is the input of a two-input node n that is not t.
func other(n node, t string) string {
	if n.inputs[0] == t {
		return n.inputs[1]
	}
	return n.inputs[0]
}
