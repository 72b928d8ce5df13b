package optimize

import (
	"fmt"
	"math"
	"slices"

	"edgechat/onnx/proto"
)

// The graph view and the constant, shape and scale readers the attention matcher uses.

// attnView indexes a graph's nodes for the matcher.
type attnView struct {
	nodes     []node
	producer  map[string]int
	consumers map[string][]int
	consts    map[string][]float64
	inits     map[string]uint64 // initializers' TensorProto data types
	inputs    map[string]bool   // graph inputs
	outputs   map[string]bool   // graph outputs
	opset     int64             // the default domain's version
	gfs       []field           // the graph's fields, for reading larger constants
	// headSize is the layer's head size while matchLayer runs: the last dimension of its
	// queries and keys, which an export may read from their shape to compute the scale.
	headSize int64
}

func newAttnView(nodes []node, gfs []field, info *proto.ModelInfo) *attnView {
	v := &attnView{gfs: gfs, nodes: nodes, producer: map[string]int{}, consumers: map[string][]int{}, consts: smallConsts(gfs, nodes), inits: initTypes(gfs), inputs: map[string]bool{}, outputs: map[string]bool{}}
	for i, n := range nodes {
		for _, o := range n.outputs {
			v.producer[o] = i
		}
		for _, in := range n.inputs {
			if in != "" && !slices.Contains(v.consumers[in], i) {
				v.consumers[in] = append(v.consumers[in], i)
			}
		}
	}
	for _, x := range info.Inputs {
		v.inputs[x.Name] = true
	}
	for _, x := range info.Outputs {
		v.outputs[x.Name] = true
	}
	for _, o := range info.Opsets {
		if o.Domain == "" || o.Domain == "ai.onnx" {
			v.opset = o.Version
		}
	}
	return v
}

// only returns the single node consuming t, which must have op type op; t must feed nothing
// else (not even a graph output) but Shape nodes, which rewriteAttention checks are gone
// after the rewrite.
func (v *attnView) only(t, op string) (int, error) {
	if v.outputs[t] {
		return -1, fmt.Errorf("%s is a graph output", t)
	}
	return v.onlyNode(t, op)
}

// onlyNode is only for a tensor that may also be a graph output (a present tensor).
func (v *attnView) onlyNode(t, op string) (int, error) {
	var cs []int
	for _, c := range v.consumers[t] {
		if v.nodes[c].op != "Shape" { // sizing a computed shape; none may be left after the rewrite
			cs = append(cs, c)
		}
	}
	if len(cs) != 1 {
		return -1, fmt.Errorf("%s feeds %d nodes, not one %s", t, len(cs), op)
	}
	if n := v.nodes[cs[0]]; n.op != op || n.domain != "" {
		return -1, fmt.Errorf("%s feeds a %s node, not a %s", t, n.op, op)
	}
	return cs[0], nil
}

// constant reports whether t is an initializer or a Constant node's output.
func (v *attnView) constant(t string) bool {
	if _, ok := v.inits[t]; ok {
		return true
	}
	_, ok := v.from(t, "Constant")
	return ok
}

// from returns the node producing t if it has op type op.
func (v *attnView) from(t, op string) (int, bool) {
	i, ok := v.producer[t]
	if !ok || v.nodes[i].op != op || v.nodes[i].domain != "" {
		return -1, false
	}
	return i, true
}

// ints returns the constant integer tensor t.
func (v *attnView) ints(t string) ([]int64, bool) {
	c, ok := v.consts[t]
	if !ok {
		return nil, false
	}
	out := make([]int64, len(c))
	for i, x := range c {
		if x != math.Trunc(x) {
			return nil, false
		}
		out[i] = int64(x)
	}
	return out, true
}

// scalar returns the constant t if it holds one value. A scalar left unfolded by an exporter
// is computed here: Sqrt of a constant scale, as the PyTorch exporter writes
// scaled_dot_product_attention's √scale on both factors, or that scale computed from the
// query's shape, 1/√(last dimension), which is the layer's head size (see lastDim).
func (v *attnView) scalar(t string) (float64, bool) { return v.scalarAt(t, 8) }

// scalarAt is scalar through at most depth computing nodes.
func (v *attnView) scalarAt(t string, depth int) (float64, bool) {
	if c, ok := v.consts[t]; ok {
		return c[0], len(c) == 1
	}
	i, ok := v.producer[t]
	if !ok || depth == 0 || v.nodes[i].domain != "" {
		return 0, false
	}
	n := v.nodes[i]
	switch n.op {
	case "Sqrt", "Reciprocal", "Cast", "Identity", "Mul", "Div":
	case "Slice", "Gather":
		return v.lastDim(n)
	default:
		return 0, false
	}
	args := make([]float64, len(n.inputs))
	for j, in := range n.inputs {
		if args[j], ok = v.scalarAt(in, depth-1); !ok {
			return 0, false
		}
	}
	switch {
	case len(args) == 1 && n.op == "Sqrt" && args[0] >= 0:
		return math.Sqrt(args[0]), true
	case len(args) == 1 && n.op == "Reciprocal" && args[0] != 0:
		return 1 / args[0], true
	case len(args) == 1 && (n.op == "Cast" || n.op == "Identity"):
		return args[0], true
	case len(args) == 2 && n.op == "Mul":
		return args[0] * args[1], true
	case len(args) == 2 && n.op == "Div" && args[1] != 0:
		return args[0] / args[1], true
	}
	return 0, false
}

// lastDim reads a Slice [-1:] or Gather [-1] of a Shape (see shapeLast): the last dimension of
// a tensor, taken to be the head size of the layer being matched (the query's or key's, for
// the scale). Were it another tensor's, the rewritten graph would give other logits, which
// the numeric check before use catches.
func (v *attnView) lastDim(n node) (float64, bool) {
	if _, ok := v.shapeLast(n); !ok || v.headSize <= 0 {
		return 0, false
	}
	return float64(v.headSize), true
}

// shapeLast reports whether n, a Gather or Slice, takes the last element of a whole Shape
// (index -1, or 3 of a 4-D tensor's: the head size of [B,H,S,D]), and of which tensor.
func (v *attnView) shapeLast(n node) (string, bool) {
	if n.op != "Gather" && n.op != "Slice" || len(n.inputs) < 2 {
		return "", false
	}
	sh, ok := v.from(n.inputs[0], "Shape")
	if !ok {
		return "", false
	}
	if _, ok, _ := intAttr(v.nodes[sh].raw, "start"); ok {
		return "", false // a partial shape: its last element is not known to be the tensor's
	}
	first, ok := v.ints(n.inputs[1])
	if !ok || len(first) != 1 || first[0] != -1 && first[0] != 3 {
		return "", false
	}
	if n.op == "Slice" {
		if len(n.inputs) < 3 {
			return "", false
		}
		// To the end (INT64_MAX, compared as a float: it does not survive the round trip), or
		// [3:4].
		end, ok := v.consts[n.inputs[2]]
		if !ok || len(end) != 1 || end[0] < 1<<30 && !(first[0] == 3 && end[0] == 4) {
			return "", false
		}
		if len(n.inputs) > 3 {
			if axes, ok := v.ints(n.inputs[3]); !ok || !slices.Equal(axes, []int64{0}) {
				return "", false
			}
		}
		if len(n.inputs) > 4 {
			if steps, ok := v.ints(n.inputs[4]); !ok || !slices.Equal(steps, []int64{1}) {
				return "", false
			}
		}
	}
	return v.nodes[sh].inputs[0], true
}

// perm reports whether node i is a Transpose with permutation p.
func (v *attnView) perm(i int, p ...int64) bool {
	got, ok := intsAttr(v.nodes[i].raw, "perm")
	return ok && v.nodes[i].op == "Transpose" && slices.Equal(got, p)
}

// anyDim in a shape pattern accepts 0 (copy), -1 (infer) or a dimension computed from
// Shape nodes at run time: the batch and sequence dims, which an export either writes as 0 and
// -1 or reads from the input's shape.
const anyDim = math.MinInt64

// reshapeTo reports whether node i is a Reshape to a shape matching want (see shapeMatches).
func (v *attnView) reshapeTo(i int, want ...int64) bool {
	n := v.nodes[i]
	return n.op == "Reshape" && n.domain == "" && len(n.inputs) >= 2 && v.shapeMatches(n.inputs[1], want...)
}

// shapeMatches reports whether the 1-D shape tensor t has the elements of want: equal
// constants, or for anyDim a 0, a -1 or a computed element.
func (v *attnView) shapeMatches(t string, want ...int64) bool {
	got, ok := v.shapeElems(t)
	if !ok {
		return false
	}
	// A run of computed elements of unknown length (a slice of an input's shape, such as
	// hidden_states.shape[:-1]) stands for anyDim elements only.
	if r := slices.IndexFunc(got, func(e shapeElem) bool { return e.run }); r >= 0 {
		tail := len(got) - r - 1
		if len(want) < r+tail || slices.ContainsFunc(got[r+1:], func(e shapeElem) bool { return e.run }) {
			return false
		}
		for _, w := range want[r : len(want)-tail] {
			if w != anyDim {
				return false
			}
		}
		got = slices.Concat(got[:r], make([]shapeElem, len(want)-r-tail), got[r+1:])
	}
	if len(got) != len(want) {
		return false
	}
	for i, w := range want {
		switch g := got[i]; {
		case w == anyDim:
			if g.known && g.v != 0 && g.v != -1 {
				return false
			}
		case !g.known || g.v != w:
			return false
		}
	}
	return true
}

// shapeElem is one element of a shape tensor: a constant, or computed at run time (run: any
// number of computed elements).
type shapeElem struct {
	v          int64
	known, run bool
}

// shapeElems reads a shape tensor: a constant, or a Concat (axis 0) of constants and of
// elements computed from Shape nodes (Unsqueeze of a scalar, or Shape with start and end), the
// way exporters write view(batch, seq, heads, dim).
func (v *attnView) shapeElems(t string) ([]shapeElem, bool) {
	if c, ok := v.ints(t); ok {
		out := make([]shapeElem, len(c))
		for i, x := range c {
			out[i] = shapeElem{v: x, known: true}
		}
		return out, true
	}
	i, ok := v.from(t, "Concat")
	if !ok {
		return nil, false
	}
	var out []shapeElem
	for _, in := range v.nodes[i].inputs {
		if c, ok := v.ints(in); ok {
			for _, x := range c {
				out = append(out, shapeElem{v: x, known: true})
			}
			continue
		}
		n, ok := v.computedLen(in)
		if !ok {
			if !v.fromShapes(in) {
				return nil, false
			}
			out = append(out, shapeElem{run: true})
			continue
		}
		for range n {
			out = append(out, shapeElem{})
		}
	}
	return out, true
}

// computedLen is the length of a 1-D tensor computed from Shape nodes only: an Unsqueeze of a
// scalar taken from a shape (one element) or a Shape with start and end.
func (v *attnView) computedLen(t string) (int, bool) {
	if !v.fromShapes(t) {
		return 0, false
	}
	i := v.producer[t]
	n := v.nodes[i]
	switch n.op {
	case "Unsqueeze":
		return 1, true
	case "Shape":
		start, okS, _ := intAttr(n.raw, "start")
		end, okE, _ := intAttr(n.raw, "end")
		if okS && okE && start >= 0 && end > start {
			return int(end - start), true
		}
	}
	return 0, false
}

// fromShapes reports whether t is a size computed from Shape nodes and integer constants
// only (through at most 8 nodes: shape arithmetic is shallow).
func (v *attnView) fromShapes(t string) bool { return v.intShape(t, 8) }

// shapeOps compute sizes from Shape nodes and integer constants; the PyTorch exporter writes
// Expand's sizes with -1 in them as Where(Equal(sizes, -1), …).
var shapeOps = []string{"Gather", "Unsqueeze", "Squeeze", "Slice", "Concat", "Cast", "Mul", "Div", "Add", "Sub", "Equal", "Where", "ConstantOfShape", "Reshape", "Identity", "Constant"}

// intShape reports whether t is computed from Shape nodes and integer constants only (a size,
// whatever the tensors measured), through at most depth nodes.
func (v *attnView) intShape(t string, depth int) bool {
	if typ, ok := v.constType(t); ok {
		return sizeType(typ)
	}
	i, ok := v.producer[t]
	if !ok || depth == 0 || v.nodes[i].domain != "" {
		return false
	}
	n := v.nodes[i]
	if n.op == "Shape" {
		return true
	}
	if !slices.Contains(shapeOps, n.op) {
		return false
	}
	if n.op == "Cast" {
		if to, _, _ := intAttr(n.raw, "to"); !sizeType(uint64(to)) {
			return false
		}
	}
	if n.op == "ConstantOfShape" {
		if typ, ok := v.constOfShapeType(i); !ok || !sizeType(typ) {
			return false
		}
	}
	for _, in := range n.inputs {
		if in != "" && !v.intShape(in, depth-1) {
			return false
		}
	}
	return true
}

// sizeType reports whether TensorProto data type t can hold sizes: int32, int64 or bool.
func sizeType(t uint64) bool { return t == 6 || t == 7 || t == 9 }

// constOfShapeType is the data type of a ConstantOfShape node's value (float32 when unset).
func (v *attnView) constOfShapeType(i int) (uint64, bool) {
	tb, ok := constantTensor(v.nodes[i].raw)
	if !ok {
		return 1, true
	}
	_, _, typ, ok := tensorValuesUpTo(tb, 1)
	return typ, ok
}

// axesOf returns an Unsqueeze node's axes (attribute before opset 13, input after).
func (v *attnView) axesOf(i int) ([]int64, bool) {
	n := v.nodes[i]
	if len(n.inputs) > 1 {
		return v.ints(n.inputs[1])
	}
	return intsAttr(n.raw, "axes")
}

// scaleBy reads a Mul or Div of t by a constant scalar at node i: the factor it applies and the
// other input.
func (v *attnView) scaleBy(i int, t string) (factor float64, ok bool) {
	n := v.nodes[i]
	if len(n.inputs) != 2 || n.domain != "" {
		return 0, false
	}
	switch n.op {
	case "Mul":
		other := n.inputs[0]
		if other == t {
			other = n.inputs[1]
		}
		c, ok := v.scalar(other)
		return c, ok && other != t
	case "Div":
		c, ok := v.scalar(n.inputs[1])
		return 1 / c, ok && n.inputs[0] == t && c != 0
	}
	return 0, false
}
