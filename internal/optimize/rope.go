package optimize

import (
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/internal/onnxproto"
)

// Rotary embedding inside the attention: an export rotates each layer's queries and keys
// with plain operators, rotate_half style,
//
//	x·cos + Concat(−x[…, d/2:], x[…, :d/2])·sin
//
// (Split or two Slices, Neg, Concat, two Muls, an Add: seven nodes per tensor, fourteen per
// layer, each run), from cos and sin tables computed per run from position_ids. When every
// layer's rotation is recognised, the GroupQueryAttention nodes take the unrotated queries
// and keys and rotate them themselves (do_rotary) from cos and sin caches written into the
// copy, one row per position up to Options.RotaryRows: the same product of position and
// inverse frequency, in float32, as the export computes. GroupQueryAttention takes positions
// from seqlens_k, which for a batch of one with an all-ones mask are position_ids.

// MetaRotaryRows is the metadata key of a graph whose attention rotates its queries and keys
// itself; its value is the number of positions its cos and sin caches hold, which the KV
// cache must not outgrow.
const MetaRotaryRows = "edgechat.rotary_rows"

// ropeMatch is one recognised rotation: out = x·cos + rotate_half(x)·sin.
type ropeMatch struct {
	x, cos, sin string
	nodes       []int
}

// matchRope recognises t, of head size d, as a rotate_half rotation of a tensor x whose
// intermediate results nothing else reads.
func (v *attnView) matchRope(t string, d int64) (ropeMatch, error) {
	add, ok := v.from(t, "Add")
	if !ok || len(v.nodes[add].inputs) != 2 {
		return ropeMatch{}, fmt.Errorf("%s is not a sum of two products", t)
	}
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		direct, rotated := v.nodes[add].inputs[order[0]], v.nodes[add].inputs[order[1]]
		m1, ok1 := v.privateFrom(direct, "Mul")
		m2, ok2 := v.privateFrom(rotated, "Mul")
		if !ok1 || !ok2 {
			continue
		}
		for _, r := range [][2]int{{0, 1}, {1, 0}} {
			half, sin := v.nodes[m2].inputs[r[0]], v.nodes[m2].inputs[r[1]]
			x, nodes, ok := v.rotateHalf(half, d)
			if !ok {
				continue
			}
			a, b := v.nodes[m1].inputs[0], v.nodes[m1].inputs[1]
			var cos string
			switch x {
			case a:
				cos = b
			case b:
				cos = a
			default:
				continue
			}
			return ropeMatch{x: x, cos: cos, sin: sin, nodes: append(nodes, add, m1, m2)}, nil
		}
	}
	return ropeMatch{}, fmt.Errorf("%s is not x·cos + rotate_half(x)·sin", t)
}

// privateFrom returns the node producing t if it has op type op and t feeds one node only.
func (v *attnView) privateFrom(t, op string) (int, bool) {
	i, ok := v.from(t, op)
	return i, ok && len(v.consumers[t]) == 1 && !v.outputs[t]
}

// rotateHalf recognises t as Concat(−x2, x1) of the halves x1, x2 of a tensor x of head size
// d along its last axis, and returns x and the nodes.
func (v *attnView) rotateHalf(t string, d int64) (string, []int, bool) {
	cat, ok := v.privateFrom(t, "Concat")
	if !ok || len(v.nodes[cat].inputs) != 2 || !v.lastAxis(cat) {
		return "", nil, false
	}
	neg, ok := v.privateFrom(v.nodes[cat].inputs[0], "Neg")
	if !ok {
		return "", nil, false
	}
	first, second := v.nodes[cat].inputs[1], v.nodes[neg].inputs[0]
	nodes := []int{cat, neg}
	// One Split into two equal halves…
	if s, ok := v.from(first, "Split"); ok {
		n := v.nodes[s]
		if len(n.outputs) != 2 || n.outputs[0] != first || n.outputs[1] != second || !v.lastAxis(s) ||
			len(v.consumers[first]) != 1 || len(v.consumers[second]) != 1 {
			return "", nil, false
		}
		if len(n.inputs) > 1 && n.inputs[1] != "" {
			if sp, ok := v.ints(n.inputs[1]); !ok || !slices.Equal(sp, []int64{d / 2, d / 2}) {
				return "", nil, false
			}
		} else if sp, ok := intsAttr(n.raw, "split"); ok && !slices.Equal(sp, []int64{d / 2, d / 2}) {
			return "", nil, false
		}
		return n.inputs[0], append(nodes, s), d%2 == 0
	}
	// …or two Slices of the same tensor: [0, d/2) and [d/2, end).
	s1, ok1 := v.privateFrom(first, "Slice")
	s2, ok2 := v.privateFrom(second, "Slice")
	if !ok1 || !ok2 || v.nodes[s1].inputs[0] != v.nodes[s2].inputs[0] {
		return "", nil, false
	}
	x := v.nodes[s1].inputs[0]
	b1, e1, ok1 := v.lastAxisSlice(s1, x, d)
	b2, e2, ok2 := v.lastAxisSlice(s2, x, d)
	if !ok1 || !ok2 || b1 != 0 || e1 != d/2 || b2 != d/2 || e2 < d || d%2 != 0 {
		return "", nil, false
	}
	return x, append(nodes, s1, s2), true
}

// lastAxis reports whether node i's axis attribute is the last of a 4-D tensor.
func (v *attnView) lastAxis(i int) bool {
	ax, ok, _ := intAttr(v.nodes[i].raw, "axis")
	return ok && (ax == -1 || ax == 3)
}

// lastAxisSlice reads a Slice of x (head size d) along its last axis with step 1: its start
// and end, constants or computed from x's shape.
func (v *attnView) lastAxisSlice(i int, x string, d int64) (start, end int64, ok bool) {
	n := v.nodes[i]
	if len(n.inputs) < 4 {
		return 0, 0, false
	}
	axes, ok := v.ints(n.inputs[3])
	if !ok || len(axes) != 1 || axes[0] != -1 && axes[0] != 3 {
		return 0, 0, false
	}
	if len(n.inputs) > 4 && n.inputs[4] != "" {
		if steps, ok := v.ints(n.inputs[4]); !ok || !slices.Equal(steps, []int64{1}) {
			return 0, 0, false
		}
	}
	start, ok1 := v.shapeInt(n.inputs[1], x, d, 8)
	end, ok2 := v.shapeInt(n.inputs[2], x, d, 8)
	return start, end, ok1 && ok2
}

// shapeInt evaluates a one-element integer tensor that is a constant or computed from the
// last dimension (d) of x's shape: x.shape[-1] // 2, as exporters write rotate_half.
func (v *attnView) shapeInt(t, x string, d int64, depth int) (int64, bool) {
	if c, ok := v.consts[t]; ok {
		if len(c) != 1 {
			return 0, false
		}
		if c[0] >= math.MaxInt64/2 {
			return math.MaxInt64, true // INT64_MAX does not survive the float64 round trip
		}
		return int64(c[0]), c[0] == math.Trunc(c[0])
	}
	i, ok := v.producer[t]
	if !ok || depth == 0 || v.nodes[i].domain != "" {
		return 0, false
	}
	n := v.nodes[i]
	switch n.op {
	case "Unsqueeze", "Squeeze", "Cast", "Identity":
		return v.shapeInt(n.inputs[0], x, d, depth-1)
	case "Gather", "Slice":
		sh, ok := v.from(n.inputs[0], "Shape")
		if !ok || v.nodes[sh].inputs[0] != x || len(n.inputs) < 2 {
			return 0, false
		}
		if _, ok, _ := intAttr(v.nodes[sh].raw, "start"); ok {
			return 0, false
		}
		at, ok := v.ints(n.inputs[1])
		if !ok || len(at) != 1 || at[0] != -1 && at[0] != 3 {
			return 0, false
		}
		return d, true
	case "Div", "Mul", "Add", "Sub":
		a, ok1 := v.shapeInt(n.inputs[0], x, d, depth-1)
		b, ok2 := v.shapeInt(n.inputs[1], x, d, depth-1)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch n.op {
		case "Div":
			if b <= 0 || a < 0 {
				return 0, false
			}
			return a / b, true
		case "Mul":
			return a * b, true
		case "Add":
			return a + b, true
		}
		return a - b, true
	}
	return 0, false
}

// rotaryTables traces the cos and sin tables [B,1,S,d] every rotation reads back to
// position_ids: Cos and Sin of Concat(f, f), perhaps scaled by a constant, cast and
// unsqueezed at the heads axis, where f is position_ids times a constant vector of d/2
// inverse frequencies computed by shape-only operators. It returns those frequencies and the
// scale.
func (v *attnView) rotaryTables(cos, sin string, d int64) (invFreq []float64, scale float64, err error) {
	emb, cscale, err := v.tableOf(cos, "Cos")
	if err != nil {
		return nil, 0, err
	}
	semb, sscale, err := v.tableOf(sin, "Sin")
	if err != nil {
		return nil, 0, err
	}
	if semb != emb || sscale != cscale {
		return nil, 0, fmt.Errorf("cos and sin are not of the same angles")
	}
	cat, ok := v.from(emb, "Concat")
	if !ok || len(v.nodes[cat].inputs) != 2 || v.nodes[cat].inputs[0] != v.nodes[cat].inputs[1] {
		return nil, 0, fmt.Errorf("the rotary angles are not one half repeated (rotate_half style)")
	}
	if ax, ok, _ := intAttr(v.nodes[cat].raw, "axis"); !ok || ax != -1 && ax != 2 {
		return nil, 0, fmt.Errorf("the rotary angles are not repeated along the head dimension")
	}
	invFreq, err = v.angleFrequencies(v.nodes[cat].inputs[0], int(d/2))
	if err != nil {
		return nil, 0, err
	}
	return invFreq, cscale, nil
}

// tableOf follows a cos or sin table back through Unsqueeze (at the heads axis), Cast,
// Identity and a constant scale to its op node (Cos or Sin), and returns that node's input
// and the scale.
func (v *attnView) tableOf(t, op string) (angles string, scale float64, err error) {
	scale = 1
	for range 6 {
		i, ok := v.producer[t]
		if !ok {
			break
		}
		n := v.nodes[i]
		switch {
		case n.domain != "":
		case n.op == op:
			return n.inputs[0], scale, nil
		case n.op == "Unsqueeze":
			if axes, ok := v.axesOf(i); !ok || !slices.Equal(axes, []int64{1}) {
				return "", 0, fmt.Errorf("the %s table is not unsqueezed at the heads axis", op)
			}
			t = n.inputs[0]
			continue
		case n.op == "Cast" || n.op == "Identity":
			t = n.inputs[0]
			continue
		case n.op == "Mul" || n.op == "Div":
			for _, in := range n.inputs {
				if f, ok := v.scaleBy(i, in); ok {
					if _, isConst := v.scalar(in); !isConst {
						scale *= f
						t = in
						break
					}
				}
			}
			if t != n.outputs[0] {
				continue
			}
		}
		break
	}
	return "", 0, fmt.Errorf("the rotation's table is not a %s of angles", op)
}

// ropeOps are the operators allowed between position_ids and the rotary angles: casts,
// layout, and the product of positions and inverse frequencies. Sizes computed from shapes
// may feed them (intShape), never a value: angles that depend on the sequence's length
// (dynamic NTK scaling, say) would be right only for the lengths the check before use tries.
var ropeOps = []string{"Cast", "Unsqueeze", "Squeeze", "Reshape", "Transpose", "Expand", "Mul", "MatMul", "Concat", "Slice", "Identity", "Constant"}

// sizeInputs are the inputs of ropeOps that take sizes, axes or bounds, not values.
var sizeInputs = map[string][]int{"Expand": {1}, "Reshape": {1}, "Unsqueeze": {1}, "Squeeze": {1}, "Slice": {1, 2, 3, 4}}

// angleFrequencies checks that the angles f [B,S,half] are computed from position_ids and
// constants by ropeOps only, with exactly one floating-point constant that is not a shape:
// the half inverse frequencies, which it returns. Were f anything but position × frequency
// (a scaled position, say), the numeric check before use would catch it.
func (v *attnView) angleFrequencies(f string, half int) ([]float64, error) {
	var freq string
	positions := false
	seen := map[string]bool{}
	var walk func(t string, depth int) error
	walk = func(t string, depth int) error {
		if seen[t] || t == "" {
			return nil
		}
		seen[t] = true
		if v.inputs[t] {
			if t != "position_ids" {
				return fmt.Errorf("the rotary angles read the graph input %s", t)
			}
			positions = true
			return nil
		}
		if typ, ok := v.constType(t); ok {
			if typ != 1 && typ != 10 && typ != 11 {
				return fmt.Errorf("the rotary angles use the integer constant %s as a value", t)
			}
			if freq != "" && freq != t {
				return fmt.Errorf("the rotary angles use more than one floating-point constant")
			}
			freq = t
			return nil
		}
		i, ok := v.producer[t]
		if !ok || depth == 0 {
			return fmt.Errorf("the rotary angles come from %s", t)
		}
		n := v.nodes[i]
		if n.domain != "" || !slices.Contains(ropeOps, n.op) {
			return fmt.Errorf("the rotary angles are computed with a %s node", n.op)
		}
		for j, in := range n.inputs {
			if in == "" {
				continue
			}
			if slices.Contains(sizeInputs[n.op], j) {
				if !v.intShape(in, 12) {
					return fmt.Errorf("the sizes of a %s node in the rotary angles are not computed from shapes", n.op)
				}
				continue
			}
			if err := walk(in, depth-1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(f, 16); err != nil {
		return nil, err
	}
	if !positions || freq == "" {
		return nil, fmt.Errorf("the rotary angles are not position_ids times constant frequencies")
	}
	vals, ok := v.floatValues(freq, half)
	if !ok || len(vals) != half {
		return nil, fmt.Errorf("the rotary frequencies %s are not %d values", freq, half)
	}
	return vals, nil
}

// shapeOps compute sizes from Shape nodes and integer constants; the PyTorch exporter writes
// Expand's sizes with -1 in them as Where(Equal(sizes, -1), …).
var shapeOps = []string{"Gather", "Unsqueeze", "Squeeze", "Slice", "Concat", "Cast", "Mul", "Div", "Add", "Sub", "Equal", "Where", "ConstantOfShape", "Reshape", "Identity", "Constant"}

// intShape reports whether t is computed from Shape nodes and integer constants only (a size,
// whatever the tensors measured), through at most depth nodes.
func (v *attnView) intShape(t string, depth int) bool {
	if typ, ok := v.constType(t); ok {
		return typ == 6 || typ == 7 || typ == 9 // int32, int64, bool
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
		if to, _, _ := intAttr(n.raw, "to"); to != 6 && to != 7 && to != 9 {
			return false
		}
	}
	if n.op == "ConstantOfShape" {
		if typ, ok := v.constOfShapeType(i); !ok || typ != 6 && typ != 7 && typ != 9 {
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

// constOfShapeType is the data type of a ConstantOfShape node's value (float32 when unset).
func (v *attnView) constOfShapeType(i int) (uint64, bool) {
	attrs, err := nodeAttrs(v.nodes[i].raw)
	if err != nil {
		return 0, false
	}
	for _, afs := range attrs {
		if attrNameOf(afs) != "value" {
			continue
		}
		for _, a := range afs {
			if a.num == onnxproto.FieldAttrT && a.typ == protowire.BytesType {
				_, _, typ, ok := tensorValuesUpTo(a.val, 1)
				return typ, ok
			}
		}
	}
	return 1, true
}

// rotaryCaches returns GroupQueryAttention's cos and sin caches [rows, half] as TensorProtos
// of type elem (1 float32, 10 float16): the export's float32 angle (position × frequency),
// its cosine and sine, times scale.
func rotaryCaches(cosName, sinName string, invFreq []float64, scale float64, rows int, elem int64) (cos, sin []byte) {
	half := len(invFreq)
	c := make([]float32, rows*half)
	s := make([]float32, rows*half)
	sc := float32(scale)
	for p := range rows {
		for i, f := range invFreq {
			angle := float64(float32(p) * float32(f))
			c[p*half+i] = float32(math.Cos(angle)) * sc
			s[p*half+i] = float32(math.Sin(angle)) * sc
		}
	}
	dims := []int64{int64(rows), int64(half)}
	return floatInitializer(cosName, dims, c, elem), floatInitializer(sinName, dims, s, elem)
}

// layerRopes is every layer's rotation of queries and keys, when all are recognised with
// one pair of tables; otherwise nil and why not ("" when rows is 0: not asked for).
type layerRopes struct {
	layers  [][2]ropeMatch // queries', keys'
	invFreq []float64
	scale   float64
}

func (v *attnView) layerRopes(layers []*layerAttn, rows int) (*layerRopes, string) {
	if rows <= 0 {
		return nil, ""
	}
	r := &layerRopes{}
	var cos, sin string
	for l, a := range layers {
		if a.headSize%16 != 0 {
			return nil, fmt.Sprintf("head size %d: GroupQueryAttention rotates heads of a multiple of 16 only", a.headSize)
		}
		var pair [2]ropeMatch
		for j, t := range []string{a.q, a.k} {
			// A cache of the activations' type is written through a Cast that changes nothing
			// (GroupQueryAttention takes queries, keys and values of one type).
			var cast []int
			if i, ok := v.privateFrom(t, "Cast"); ok {
				if to, _, _ := intAttr(v.nodes[i].raw, "to"); to == a.elemType {
					t, cast = v.nodes[i].inputs[0], []int{i}
				}
			}
			m, err := v.matchRope(t, a.headSize)
			if err != nil {
				return nil, fmt.Sprintf("layer %d: %v", l, err)
			}
			m.nodes = append(m.nodes, cast...)
			if cos == "" {
				cos, sin = m.cos, m.sin
			}
			if m.cos != cos || m.sin != sin {
				return nil, fmt.Sprintf("layer %d rotates with other tables than layer 0", l)
			}
			pair[j] = m
		}
		r.layers = append(r.layers, pair)
	}
	var err error
	if r.invFreq, r.scale, err = v.rotaryTables(cos, sin, layers[0].headSize); err != nil {
		return nil, err.Error()
	}
	return r, ""
}
