package optimize

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// The norm a layer's products read, inside the product.
//
// After fuseSkipNorm a layer has two norms (residual add and RMS norm, SkipSimplifiedLayerNormalization),
// each read by one int4 product only (the packed QKV, the packed gate|up); the first layer's
// norm is a plain SimplifiedLayerNormalization of the embeddings, the last norm feeds the LM
// head. On EdgeChat's kernel a product can take its norm (attribute PreNormAttr 1): it reads the
// norm's input (and skip), writes the sum as its second output and norms each row in the pass
// that quantizes it, rounding as ONNX Runtime's node does (inference/ort/attnop/prenorm.c). One
// node less per norm: 57 of a 28-layer decode step's 214, whose dispatch cost more than the
// norms' arithmetic (the skip norms were 1.9% of a step's time, 6.1% of a prefill's).

// PreNormAttr is the attribute fusePreNorm sets (to 1) on a MatMulKernel product that takes its
// input's RMS norm: its input 6 is the norm's weight, input 7 (optional) the residual skip, its
// output 1 (optional) their sum, attribute "epsilon" the norm's.
const PreNormAttr = "prenorm"

// MetaPreNorm is the metadata key of a copy whose products took their norms: how many did.
const MetaPreNorm = "edgechat.prenorm_nodes"

// preNorm indices of the product's extra inputs and output.
const (
	preNormGamma = 6
	preNormSkip  = 7
)

// fusePreNorm folds each norm whose normed output only one product in domain (MatMulKernel's)
// reads, as its input A, into that product: a com.microsoft SkipSimplifiedLayerNormalization of
// two inputs and a weight (no beta, no bias; outputs 1 and 2, mean and inverse deviation, not
// used) or a SimplifiedLayerNormalization over the last axis (stash_type 1), the weight a
// float32 initializer of the product's K values, the product without swiglu or a norm already.
// The product moves to the norm's place (its weights are initializers, its other inputs come
// before the norm's: the sum is written where the graph wrote it). It returns the nodes, how
// many products took their norm and, when a norm read by a product in domain was left, why
// the first was.
func fusePreNorm(nodes []node, gfs []field, info *proto.ModelInfo, domain string) (_ []node, fused int, skipped string, err error) {
	v := newAttnView(nodes, gfs, info)
	dims := initializerDims(gfs)
	moved := map[int]node{} // the fused product, at the norm's place
	drop := map[int]bool{}  // the products
	for i, n := range nodes {
		isSkip := n.op == skipNormOp && n.domain == "com.microsoft"
		if !isSkip && (n.op != "SimplifiedLayerNormalization" || n.domain != "") || len(n.outputs) == 0 || n.outputs[0] == "" {
			continue
		}
		readers := v.consumers[n.outputs[0]]
		if len(readers) != 1 || nodes[readers[0]].op != "MatMulNBits" || nodes[readers[0]].domain != domain {
			continue
		}
		p := readers[0]
		why := v.preNormRefusal(i, p, dims)
		if why == "" {
			var f node
			if f, err = preNormProduct(n, nodes[p], isSkip); err != nil {
				return nil, 0, "", err
			}
			moved[i], drop[p] = f, true
			fused++
			continue
		}
		if skipped == "" {
			skipped = fmt.Sprintf("node %s: %s", n.name, why)
		}
	}
	out := nodes[:0:0]
	for i, n := range nodes {
		if f, ok := moved[i]; ok {
			out = append(out, f)
		} else if !drop[i] {
			out = append(out, n)
		}
	}
	return out, fused, skipped, nil
}

// preNormRefusal says why the product p cannot take the norm i that it alone reads ("" when
// it can).
func (v *attnView) preNormRefusal(i, p int, dims map[string][]int64) string {
	n, mm := v.nodes[i], v.nodes[p]
	if v.outputs[n.outputs[0]] {
		return "its output is a graph output"
	}
	if len(mm.inputs) == 0 || mm.inputs[0] != n.outputs[0] || slices.Index(mm.inputs[1:], n.outputs[0]) >= 0 {
		return "its product reads it other than as A"
	}
	if len(mm.inputs) > preNormGamma || len(mm.outputs) != 1 {
		return "its product has more than MatMulNBits' inputs or one output"
	}
	for _, a := range []string{SwiGLUAttr, PreNormAttr} {
		if x, ok, _ := intAttr(mm.raw, a); ok && x != 0 {
			return "its product has " + a + " already"
		}
	}
	k, ok, _ := intAttr(mm.raw, "K")
	if !ok {
		return "its product has no K"
	}
	if n.op == skipNormOp {
		if len(n.inputs) != 3 || len(n.outputs) > 4 || len(n.outputs) > 1 && n.outputs[1] != "" || len(n.outputs) > 2 && n.outputs[2] != "" {
			return "it has beta or bias, or its mean or inverse deviation is read"
		}
		if !v.residualPart(n.inputs[0]) || !v.residualPart(n.inputs[1]) {
			return "its input and skip are not both the stream's (a skip may broadcast)"
		}
	} else {
		if len(n.inputs) != 2 || len(n.outputs) != 1 {
			return "it has more than input, weight and output"
		}
		if ax, ok, err := intAttr(n.raw, "axis"); err != nil || ok && ax != -1 {
			return "it is not over the last axis"
		}
		if st, ok, err := intAttr(n.raw, "stash_type"); err != nil || ok && st != 1 {
			return "its stash_type is not 1"
		}
	}
	gamma := n.inputs[len(n.inputs)-1]
	if v.inits[gamma] != tensorFloat || !slices.Equal(dims[gamma], []int64{k}) {
		return fmt.Sprintf("its weight %s is not a float32 initializer of K = %d values", gamma, k)
	}
	return ""
}

// preNormProduct is the product mm reading n's input (and skip) with n's weight and epsilon,
// writing n's sum (output 3 of a skip norm) as its output 1.
func preNormProduct(n, mm node, isSkip bool) (node, error) {
	in := slices.Clone(mm.inputs)
	for len(in) < preNormGamma {
		in = append(in, "")
	}
	in[0] = n.inputs[0]
	in = append(in, n.inputs[len(n.inputs)-1])
	if isSkip {
		in = append(in, n.inputs[1])
	}
	raw, err := withInputs(mm.raw, in)
	if err != nil {
		return node{}, err
	}
	if isSkip && len(n.outputs) == 4 && n.outputs[3] != "" {
		raw = appendBytes(raw, proto.FieldNodeOutput, []byte(n.outputs[3]))
	}
	if raw, err = withIntAttr(raw, PreNormAttr, 1); err != nil {
		return node{}, err
	}
	eps, ok := floatAttr(n.raw, "epsilon")
	if !ok {
		eps = 1e-5 // both operators' default
	}
	f := mkNode(raw, withFloat("epsilon", eps))
	f.name = mm.name
	return f, nil
}

// splitPreNorms returns the graph fields gfs with each product that took its norm
// (PreNormAttr 1) written again as the norm's node and the plain product reading its output:
// the int8 prompt twin (DQTwin) rewrites plain products only, and a prompt's products are
// most of its time (the norms' arithmetic is ~6% of a 28-layer prefill).
func splitPreNorms(gfs []field) ([]field, error) {
	out := gfs[:0:0]
	for _, f := range gfs {
		if f.num != proto.FieldGraphNode || f.typ != protowire.BytesType {
			out = append(out, f)
			continue
		}
		n, err := parseNode(f.val)
		if err != nil {
			return nil, err
		}
		if v, ok, _ := intAttr(n.raw, PreNormAttr); n.op != "MatMulNBits" || !ok || v != 1 || len(n.inputs) <= preNormGamma {
			out = append(out, f)
			continue
		}
		norm, product, err := splitPreNorm(n)
		if err != nil {
			return nil, err
		}
		for _, raw := range [][]byte{norm, product} {
			b := appendBytes(nil, proto.FieldGraphNode, raw)
			out = append(out, field{num: proto.FieldGraphNode, typ: protowire.BytesType, raw: b, val: raw})
		}
	}
	return out, nil
}

// splitPreNorm is fusePreNorm undone for the fused product n: the norm's node (com.microsoft
// SkipSimplifiedLayerNormalization with a skip, else SimplifiedLayerNormalization over the last
// axis) and the product reading its output, without the norm's inputs, output and attributes.
func splitPreNorm(n node) (norm, product []byte, err error) {
	eps, ok := floatAttr(n.raw, "epsilon")
	if !ok {
		eps = 1e-5
	}
	normed := n.name + "/edgechat_prenorm"
	a, gamma := n.inputs[0], n.inputs[preNormGamma]
	if len(n.inputs) > preNormSkip && n.inputs[preNormSkip] != "" {
		sum := ""
		if len(n.outputs) > 1 {
			sum = n.outputs[1]
		}
		norm = withDomain(mkNode(encodeNode(normed, skipNormOp, []string{a, n.inputs[preNormSkip], gamma}, []string{normed, "", "", sum}),
			withFloat("epsilon", eps)), "com.microsoft").raw
	} else {
		norm = mkNode(encodeNode(normed, "SimplifiedLayerNormalization", []string{a, gamma}, []string{normed}),
			withInt("axis", -1), withFloat("epsilon", eps), withInt("stash_type", 1)).raw
	}
	in := slices.Clone(n.inputs[:preNormGamma])
	in[0] = normed
	for len(in) > 3 && in[len(in)-1] == "" {
		in = in[:len(in)-1]
	}
	fs, err := fields(n.raw)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range in {
		product = appendBytes(product, proto.FieldNodeInput, []byte(s))
	}
	product = appendBytes(product, proto.FieldNodeOutput, []byte(n.outputs[0]))
	for _, f := range fs {
		switch f.num {
		case proto.FieldNodeInput, proto.FieldNodeOutput:
			continue
		case proto.FieldNodeAttr:
			if afs, err := fields(f.val); err == nil && len(afs) > 0 && (attrNameOf(afs) == PreNormAttr || attrNameOf(afs) == "epsilon") {
				continue
			}
		}
		product = append(product, f.raw...)
	}
	return norm, product, nil
}
