package optimize

import (
	"fmt"
	"math"
	"slices"
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
		if of, ok := v.shapeLast(n); !ok || of != x {
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
	elem := int64(4)
	if layers[0].elemType == tensorHalf {
		elem = 2
	}
	if size := int64(rows) * int64(len(r.invFreq)) * 2 * elem; size > maxRotaryBytes {
		return nil, fmt.Sprintf("cos and sin caches for %d positions would take %d MB", rows, size>>20)
	}
	return r, ""
}

// maxRotaryBytes bounds the cos and sin caches a copy carries: Qwen3-0.6B's 128-wide heads
// at its whole 40,960-token context take 21 MB; a context of a million tokens would take
// 512 MB, which the exported rotation computes per run instead.
const maxRotaryBytes = 64 << 20
