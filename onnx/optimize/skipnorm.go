package optimize

import (
	"edgechat/onnx/proto"
)

// The residual add and the norm after it as one node.
//
// Every layer of a decoder adds its attention's and its MLP's output to the residual stream
// and normalizes the sum for what comes next: Add, then SimplifiedLayerNormalization (one node
// once fuseRMSNorm has run). ONNX Runtime fuses the pair itself into
// SkipSimplifiedLayerNormalization only where the sum feeds nothing else, and in a decoder it
// always does (the next residual add reads it): two nodes per layer stay two. fuseSkipNorm
// writes each pair as one com.microsoft SkipSimplifiedLayerNormalization, whose fourth output
// (input_skip_bias_sum) is the sum, under the Add's output name, for the nodes that read it
// besides: one node less per norm, 56 of a 28-layer decode step's ~600.

// skipNormOp is the fused operator.
const skipNormOp = "SkipSimplifiedLayerNormalization"

// fuseSkipNorm replaces each float32 residual Add whose sum a SimplifiedLayerNormalization
// over the last axis reads by one SkipSimplifiedLayerNormalization at the Add's place, and
// returns the nodes and how many it fused. Only sums of two computed tensors of the stream's
// width qualify (see residualPart): SkipSimplifiedLayerNormalization's skip input must have
// the input's shape, so an Add that broadcasts a bias or a mask is left alone.
func fuseSkipNorm(nodes []node, gfs []field, info *proto.ModelInfo) ([]node, int) {
	v := newAttnView(nodes, gfs, info)
	fused := map[int]node{} // at the Add's place
	drop := map[int]bool{}  // the norms
	for i, n := range nodes {
		if n.op != "SimplifiedLayerNormalization" || n.domain != "" || len(n.inputs) != 2 || len(n.outputs) != 1 {
			continue
		}
		if ax, ok, err := intAttr(n.raw, "axis"); err != nil || ok && ax != -1 {
			continue
		}
		if st, ok, err := intAttr(n.raw, "stash_type"); err != nil || ok && st != 1 {
			continue
		}
		eps, ok := floatAttr(n.raw, "epsilon")
		if !ok {
			eps = 1e-5 // the operator's default
		}
		x, w := n.inputs[0], n.inputs[1]
		ai, ok := v.producer[x]
		if !ok || v.inits[w] != tensorFloat {
			continue
		}
		add := nodes[ai]
		if _, done := fused[ai]; done || add.op != "Add" || add.domain != "" || len(add.inputs) != 2 || len(add.outputs) != 1 {
			continue
		}
		if !v.residualPart(add.inputs[0]) || !v.residualPart(add.inputs[1]) {
			continue
		}
		fused[ai] = mkNode(encodeNode(n.name+"/edgechat_skipnorm", skipNormOp,
			[]string{add.inputs[0], add.inputs[1], w}, []string{n.outputs[0], "", "", x}),
			withFloat("epsilon", eps))
		fused[ai] = withDomain(fused[ai], "com.microsoft")
		drop[i] = true
	}
	if len(fused) == 0 {
		return nodes, 0
	}
	var out []node
	for i, n := range nodes {
		if f, ok := fused[i]; ok {
			out = append(out, f)
			continue
		}
		if !drop[i] {
			out = append(out, n)
		}
	}
	return out, len(fused)
}

// residualPart says whether t is a term of a residual sum: a float tensor of the stream's
// shape computed from the tokens, that is made by a node (not a constant or a graph input)
// of a kind that writes the stream or a layer's output into it: an embedding's Gather, an
// earlier residual sum (Add, or a fused norm's sum), a projection (MatMul, MatMulNBits, Gemm
// with a constant weight), or rows sliced from one of those (lastlayer.go's slices).
func (v *attnView) residualPart(t string) bool {
	i, ok := v.producer[t]
	if !ok || v.constant(t) {
		return false
	}
	n := v.nodes[i]
	switch n.op {
	case "Add", skipNormOp:
		return true
	case "Slice":
		return v.residualPart(n.inputs[0])
	case "Gather":
		return v.inits[n.inputs[0]] == tensorFloat
	case "MatMul", "MatMulNBits", "Gemm":
		return len(n.inputs) > 1 && v.constant(n.inputs[1])
	}
	return false
}
