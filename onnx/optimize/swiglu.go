package optimize

import (
	"fmt"
	"slices"

	"edgechat/onnx/proto"
)

// SwiGLUAttr is the attribute FuseSwiGLU sets (to 1) on a MatMulKernel product that now takes
// a gated MLP's gate | up whole (inference/ort/attnop: A is [..., 2K], and the product's input
// is silu(gate) · up).
const SwiGLUAttr = "swiglu"

// MetaSwiGLU is the metadata key of a copy whose down projections took their activation: how
// many did.
const MetaSwiGLU = "edgechat.swiglu_nodes"

// fuseSwiGLU folds each gated MLP's activation into the down projection, where that projection
// is a MatMulNBits moved to domain (MatMulKernel's, which takes SwiGLUAttr): the product reads
// Mul(SiLU(gate), up) (either order), SiLU being Mul(gate, Sigmoid(gate)) (either order) or
// com.microsoft QuickGelu with alpha 1, gate and up being outputs 0 and 1 of one Split on the
// last axis into two halves of K (the product's K: by the Split's sizes, or by the N of the
// MatMulNBits it splits when it gives none), and nothing else — no other node, no graph
// output — reading the Split's outputs or the intermediates. The product then reads the
// Split's input with SwiGLUAttr 1, and the Split, Sigmoid (or QuickGelu) and two Muls go. It
// returns the nodes left, how many products it fused and, when a product reading a Mul was
// left, why the first was.
func fuseSwiGLU(nodes []node, gfs []field, info *proto.ModelInfo, domain string) (_ []node, fused int, skipped string, err error) {
	v := newAttnView(nodes, gfs, info)
	dead := map[int]bool{}
	for i, n := range nodes {
		if n.op != "MatMulNBits" || n.domain != domain || len(n.inputs) == 0 {
			continue
		}
		if _, ok := v.from(n.inputs[0], "Mul"); !ok {
			continue // not an MLP's down projection
		}
		src, gone, why := v.swiGLU(i)
		if why != "" {
			if skipped == "" {
				skipped = fmt.Sprintf("node %s: %s", n.name, why)
			}
			continue
		}
		if err := rewire(&nodes[i], 0, src); err != nil {
			return nil, 0, "", err
		}
		if nodes[i].raw, err = withIntAttr(nodes[i].raw, SwiGLUAttr, 1); err != nil {
			return nil, 0, "", err
		}
		for _, d := range gone {
			dead[d] = true
		}
		fused++
	}
	out := nodes[:0:0]
	for i, n := range nodes {
		if !dead[i] {
			out = append(out, n)
		}
	}
	return out, fused, skipped, nil
}

// swiGLU matches the gated activation product i reads (see fuseSwiGLU): the Split's input and
// the nodes that go, or why not.
func (v *attnView) swiGLU(i int) (src string, gone []int, why string) {
	mm := v.nodes[i]
	if _, ok, _ := intAttr(mm.raw, SwiGLUAttr); ok {
		return "", nil, "it has " + SwiGLUAttr + " already"
	}
	k, ok, _ := intAttr(mm.raw, "K")
	if !ok {
		return "", nil, "it has no K"
	}
	x := mm.inputs[0]
	gated, _ := v.from(x, "Mul")
	if !v.readOnlyBy(x, i) {
		return "", nil, fmt.Sprintf("its input %s is read elsewhere too", x)
	}
	ins := v.nodes[gated].inputs
	if len(ins) != 2 || v.nodes[gated].domain != "" {
		return "", nil, "its input is not a Mul of two tensors"
	}
	var gate, up string
	var act []int
	for _, side := range [][2]string{{ins[0], ins[1]}, {ins[1], ins[0]}} {
		if g, nodes, ok := v.silu(side[0]); ok {
			gate, up, act = g, side[1], nodes
			break
		}
	}
	if act == nil {
		return "", nil, "neither factor of its input is SiLU (Mul by Sigmoid, or QuickGelu alpha 1) of one tensor"
	}
	s, ok := v.from(gate, "Split")
	if !ok || v.nodes[s].domain != "" {
		return "", nil, fmt.Sprintf("the gate %s is not a Split's output", gate)
	}
	sp := v.nodes[s]
	switch {
	case len(sp.outputs) == 2 && sp.outputs[0] == up && sp.outputs[1] == gate:
		return "", nil, "the Split's halves are swapped: up first, gate second"
	case len(sp.outputs) != 2 || sp.outputs[0] != gate || sp.outputs[1] != up:
		return "", nil, "gate and up are not the two outputs of one Split"
	}
	if ax, ok, _ := intAttr(sp.raw, "axis"); !ok || ax != -1 {
		return "", nil, "the Split is not on axis -1"
	}
	if why := v.halves(s, k); why != "" {
		return "", nil, why
	}
	silu := act[0] // the node writing SiLU(gate): the silu Mul or QuickGelu
	for t, readers := range map[string][]int{v.nodes[silu].outputs[0]: {gated}, up: {gated}, gate: act} {
		if !v.readOnlyBy(t, readers...) {
			return "", nil, fmt.Sprintf("%s is read by other nodes or is a graph output", t)
		}
	}
	if len(act) == 2 && !v.readOnlyBy(v.nodes[act[1]].outputs[0], act[0]) {
		return "", nil, fmt.Sprintf("%s is read by other nodes or is a graph output", v.nodes[act[1]].outputs[0])
	}
	return sp.inputs[0], append([]int{gated, s}, act...), ""
}

// silu reads t as SiLU(gate): Mul(gate, Sigmoid(gate)) in either order (nodes: the Mul, the
// Sigmoid) or com.microsoft QuickGelu with alpha 1 (nodes: it).
func (v *attnView) silu(t string) (gate string, nodes []int, ok bool) {
	p, ok := v.producer[t]
	if !ok {
		return "", nil, false
	}
	n := v.nodes[p]
	switch {
	case n.op == "QuickGelu" && n.domain == "com.microsoft" && len(n.inputs) == 1:
		if a, ok := floatAttr(n.raw, "alpha"); ok && a == 1 { // absent: 1.702, GELU's approximation
			return n.inputs[0], []int{p}, true
		}
	case n.op == "Mul" && n.domain == "" && len(n.inputs) == 2:
		for _, side := range [][2]string{{n.inputs[0], n.inputs[1]}, {n.inputs[1], n.inputs[0]}} {
			if s, ok := v.from(side[1], "Sigmoid"); ok && v.nodes[s].domain == "" && len(v.nodes[s].inputs) == 1 && v.nodes[s].inputs[0] == side[0] {
				return side[0], []int{p, s}, true
			}
		}
	}
	return "", nil, false
}

// halves says why Split s is not two halves of k each on its input ("" when it is): its sizes
// (input 1, or attribute split before opset 13) must be [k, k]; with none it must split a
// MatMulNBits' output of N 2k (the Mul of its two outputs then makes them equal, and the down
// projection's K makes them k).
func (v *attnView) halves(s int, k int64) string {
	sp := v.nodes[s]
	sizes, have := []int64(nil), false
	if len(sp.inputs) > 1 && sp.inputs[1] != "" {
		if sizes, have = v.ints(sp.inputs[1]); !have {
			return "the Split's sizes are not a constant"
		}
	} else if a, ok := intsAttr(sp.raw, "split"); ok {
		sizes, have = a, true
	}
	if have {
		if !slices.Equal(sizes, []int64{k, k}) {
			return fmt.Sprintf("the Split's sizes are %v, not two halves of K %d", sizes, k)
		}
		return ""
	}
	if p, ok := v.producer[sp.inputs[0]]; ok && v.nodes[p].op == "MatMulNBits" { // com.microsoft's or a kernel's
		if n, ok, _ := intAttr(v.nodes[p].raw, "N"); ok && n == 2*k {
			return ""
		}
	}
	return fmt.Sprintf("the Split gives no sizes and its input is not a product of N %d", 2*k)
}

// readOnlyBy reports whether t is no graph output and the nodes reading it are exactly readers.
func (v *attnView) readOnlyBy(t string, readers ...int) bool {
	if v.outputs[t] {
		return false
	}
	got := slices.Sorted(slices.Values(v.consumers[t]))
	want := slices.Compact(slices.Sorted(slices.Values(readers)))
	return slices.Equal(got, want)
}

// smallInitFields are the graph fields of the whole, small initializers among inits (packed.go's:
// one piece of bytes each, or a header and weights): the packed Splits' sizes, for the view.
func smallInitFields(inits [][][]byte) []field {
	var out []field
	for _, t := range inits {
		if len(t) != 1 || len(t[0]) > 1<<10 {
			continue
		}
		if fs, err := fields(t[0]); err == nil {
			out = append(out, fs...)
		}
	}
	return out
}
