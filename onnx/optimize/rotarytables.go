package optimize

import (
	"fmt"
	"math"
	"slices"
)

// The rotary tables: where an export's cos and sin come from, checked to be position ×
// inverse frequency alone, and the caches GroupQueryAttention reads instead.

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
