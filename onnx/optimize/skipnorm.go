package optimize

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// The residual Add in the norm.
//
// A decoder layer adds each block's output to the residual stream and normalizes the sum for
// the next block: Add(residual, out) → SimplifiedLayerNormalization, the sum read again by the
// next residual Add. ONNX Runtime 1.30 leaves that pair as two kernels on these graphs (the
// profile of a 28-layer Qwen3-shaped copy shows both). fuseSkipNorm writes each pair as one
// com.microsoft SkipSimplifiedLayerNormalization, which adds, normalizes and hands the sum on
// (its fourth output, input_skip_bias_sum) in one pass: two kernels fewer per layer. The sum
// is the same float32 addition; only the norm's summation order may differ.

// fuseSkipNorm replaces every float32 SimplifiedLayerNormalization over the last axis whose
// input is an Add of two computed tensors (no constant: a bias or broadcast add is not a
// residual) by SkipSimplifiedLayerNormalization, placed where the Add was, and returns the
// nodes and how many it fused.
func fuseSkipNorm(nodes []node, gfs []field, info *proto.ModelInfo) ([]node, int) {
	v := newAttnView(nodes, gfs, info)
	type pair struct {
		add, norm int
		eps       float32
	}
	var found []pair
	for i, n := range nodes {
		if n.op != "SimplifiedLayerNormalization" || n.domain != "" || len(n.inputs) != 2 || len(n.outputs) != 1 {
			continue
		}
		if ax, ok, _ := intAttr(n.raw, "axis"); ok && ax != -1 || v.inits[n.inputs[1]] != tensorFloat {
			continue
		}
		ai, ok := v.from(n.inputs[0], "Add")
		if !ok || len(v.nodes[ai].inputs) != 2 || len(v.nodes[ai].outputs) != 1 {
			continue
		}
		a := v.nodes[ai]
		if v.constant(a.inputs[0]) || v.constant(a.inputs[1]) || v.inputs[a.inputs[0]] && v.inputs[a.inputs[1]] {
			continue
		}
		eps, ok := floatAttr(n.raw, "epsilon")
		if !ok {
			eps = 1e-5 // the operator's default
		}
		found = append(found, pair{ai, i, eps})
	}
	if len(found) == 0 {
		return nodes, 0
	}
	at := map[int]pair{}
	drop := map[int]bool{}
	for _, p := range found {
		at[p.add], drop[p.norm] = p, true
	}
	var out []node
	for i, n := range nodes {
		if drop[i] {
			continue
		}
		p, ok := at[i]
		if !ok {
			out = append(out, n)
			continue
		}
		norm := nodes[p.norm]
		sum := n.outputs[0]
		outs := []string{norm.outputs[0]}
		if len(v.consumers[sum]) > 1 || v.outputs[sum] {
			outs = append(outs, "", "", sum) // input_skip_bias_sum: the residual stream goes on
		}
		raw := encodeNode(norm.name+"/edgechat_skip", "SkipSimplifiedLayerNormalization", []string{n.inputs[0], n.inputs[1], norm.inputs[1]}, outs)
		raw = appendBytes(raw, proto.FieldNodeDomain, []byte("com.microsoft"))
		out = append(out, mkNode(raw, withFloat("epsilon", p.eps)))
	}
	return out, len(found)
}

// floatAttr reads a float attribute of a node.
func floatAttr(raw []byte, name string) (float32, bool) {
	attrs, err := nodeAttrs(raw)
	if err != nil {
		return 0, false
	}
	for _, afs := range attrs {
		if attrNameOf(afs) != name {
			continue
		}
		for _, a := range afs {
			if a.num == proto.FieldAttrF && a.typ == protowire.Fixed32Type {
				return math.Float32frombits(binary.LittleEndian.Uint32(a.raw[len(a.raw)-4:])), true
			}
		}
	}
	return 0, false
}
