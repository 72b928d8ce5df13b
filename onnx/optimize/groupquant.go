package optimize

import (
	"math"
	"strconv"

	"edgechat/onnx/proto"
)

// groupQuantized is the output of groupQuant: the activations in groups of columns, each
// quantized with one scale a row and group.
type groupQuantized struct {
	q, scales []string // per group: uint8 [rows, width] and float [rows, 1]
	lead      string   // int64: the activations' shape without its last axis
}

// groupQuant writes the nodes that quantize the activations x (rows of k values, any leading
// shape) to uint8 with one scale for each row and group of w columns (⌈k/w⌉ groups, a last
// partial one padded with zeros), symmetric (zero point 128) as rowQuant: a row's heavy tail
// (the input of down_proj, SiLU(gate)·up, has one) coarsens only its own group, as
// MatMulNBits' one scale a block of 32 at accuracy level 4 does for every block. It returns
// the encoded nodes, the initializers they read beside rowQuantConsts' (by name), and the
// tensors MatMulIntegerToFloat takes for each group: rows [rows, w] (x flattened to 2-D) and
// their scales [rows, 1]. The products come out 2-D: groupProduct sums and reshapes them.
//
// The work is one pass as in rowQuant: x as [rows·groups, w] (after a Pad when w does not
// divide k), a scale an element of axis 0, QuantizeLinear, then Split into the groups'
// columns (and the scales into theirs). Shape's end attribute needs opset 15.
func groupQuant(x string, k, w int64, axesInput bool) (nodes [][]byte, consts map[string][]byte, out groupQuantized) {
	g := (k + w - 1) / w
	p := x + "/grpq" + strconv.FormatInt(w, 10)
	consts = map[string][]byte{}
	add := func(op string, in, outs []string, attrs ...nodeAttr) {
		n := mkNode(encodeNode(outs[0], op, in, outs), attrs...) // named for its first output: unique
		nodes = append(nodes, n.raw)
	}
	rows := func(n int64) string { // int64 {-1, n}: a tensor as rows of n
		name := rowqRowsName(n)
		consts[name] = int64Initializer(name, -1, n)
		return name
	}
	add("Reshape", []string{x, rows(k)}, []string{p + "/x2"})
	x2 := p + "/x2"
	if g*w != k {
		pads := "grpq/pads/" + strconv.FormatInt(g*w-k, 10)
		consts[pads] = int64Initializer(pads, 0, 0, 0, g*w-k)
		add("Pad", []string{x2, pads}, []string{p + "/xpad"})
		x2 = p + "/xpad"
	}
	add("Reshape", []string{x2, rows(w)}, []string{p + "/xg"})
	add("Abs", []string{p + "/xg"}, []string{p + "/abs"})
	if axesInput {
		add("ReduceMax", []string{p + "/abs", rowqAxes}, []string{p + "/amax"}, withInt("keepdims", 0))
	} else {
		add("ReduceMax", []string{p + "/abs"}, []string{p + "/amax"}, withInts("axes", -1), withInt("keepdims", 0))
	}
	add("Max", []string{p + "/amax", rowqTiny}, []string{p + "/amax1"})
	add("Mul", []string{p + "/amax1", rowqInv127}, []string{p + "/scale"})
	add("Shape", []string{p + "/scale"}, []string{p + "/n"})
	add("Expand", []string{rowqZP, p + "/n"}, []string{p + "/zp"})
	add("QuantizeLinear", []string{p + "/xg", p + "/scale", p + "/zp"}, []string{p + "/qg"}, withInt("axis", 0))
	add("Reshape", []string{p + "/qg", rows(g * w)}, []string{p + "/q"})
	add("Reshape", []string{p + "/scale", rows(g)}, []string{p + "/scales"})
	widths, ones := "grpq/split/"+strconv.FormatInt(w, 10)+"x"+strconv.FormatInt(g, 10), "grpq/split/1x"+strconv.FormatInt(g, 10)
	consts[widths] = int64Initializer(widths, repeat(w, g)...)
	consts[ones] = int64Initializer(ones, repeat(1, g)...)
	for i := range g {
		s := strconv.FormatInt(i, 10)
		out.q = append(out.q, p+"/q/"+s)
		out.scales = append(out.scales, p+"/scale/"+s)
	}
	add("Split", []string{p + "/q", widths}, out.q, withInt("axis", 1))
	add("Split", []string{p + "/scales", ones}, out.scales, withInt("axis", 1))
	out.lead = p + "/lead"
	add("Shape", []string{x}, []string{out.lead}, withInt("end", -1))
	return nodes, consts, out
}

// groupProduct writes the nodes of one product over groupQuant's groups: a
// MatMulIntegerToFloat a group (its rows of the int8 weights b, its column scales), their
// Sum, and a Reshape to the activations' leading shape with n outputs, named y.
func groupProduct(name string, xq groupQuantized, b, scales []string, n int64, y string) (nodes [][]byte, consts map[string][]byte) {
	var parts []string
	for i := range xq.q {
		part := y + "/grp/" + strconv.Itoa(i)
		node := encodeNode(part, "MatMulIntegerToFloat", []string{xq.q[i], b[i], xq.scales[i], scales[i], rowqZP}, []string{part})
		nodes = append(nodes, append(node, appendBytes(nil, proto.FieldNodeDomain, []byte("com.microsoft"))...))
		parts = append(parts, part)
	}
	nodes = append(nodes, encodeNode(y+"/grp/sum", "Sum", parts, []string{y + "/grp/sum"}))
	nn := "grpq/n/" + strconv.FormatInt(n, 10)
	consts = map[string][]byte{nn: int64Initializer(nn, n)}
	nodes = append(nodes, mkNode(encodeNode(y+"/grp/shape", "Concat", []string{xq.lead, nn}, []string{y + "/grp/shape"}), withInt("axis", 0)).raw)
	nodes = append(nodes, encodeNode(name, "Reshape", []string{y + "/grp/sum", y + "/grp/shape"}, []string{y}))
	return nodes, consts
}

func repeat(v, n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// groupNames returns the names of a grouped weight's or scale's parts, one a group.
func groupNames(name string, g int) []string {
	out := make([]string, g)
	for i := range out {
		out[i] = name + "/grp" + strconv.Itoa(i)
	}
	return out
}

// PerGroupColumnInt8 is PerColumnInt8 with one scale for each column and group of w rows of
// the weights (the rows a group of activations meets): ⌈k/w⌉ tensors of int8 [w][n] (a last
// partial group padded with zero rows) and their scales [n]. A group's scale is its largest
// block scale over 15, so that the int4 values of that block (at most 8 steps either way)
// stay exact: with w = 32 every block's do, and the product is accuracy level 4's
// arithmetic (int4 weights, int8 activations a block of 32) with no error of its own.
func PerGroupColumnInt8(k, n, w int, b []byte, scales []float32) ([][]byte, [][]float32) {
	nb, g := (k+31)/32, (k+w-1)/w
	q, sc := make([][]byte, g), make([][]float32, g)
	for i := range g {
		q[i], sc[i] = make([]byte, w*n), make([]float32, n)
	}
	col := make([]float64, nb*32)
	for j := range n {
		for blk := range nb {
			s := float64(scales[j*nb+blk])
			for i := range 16 {
				v := b[(j*nb+blk)*16+i]
				col[blk*32+2*i], col[blk*32+2*i+1] = s*(float64(v&15)-8), s*(float64(v>>4)-8)
			}
		}
		for gi := range g {
			part := col[gi*w : min(k, (gi+1)*w)]
			var smax float64 // the group's largest block scale: 15 steps of int8 are one of int4
			for blk := gi * w / 32; blk < min(nb, ((gi+1)*w+31)/32); blk++ {
				smax = max(smax, math.Abs(float64(scales[j*nb+blk])))
			}
			d := smax / 15
			if d == 0 {
				d = 1
			}
			sc[gi][j] = float32(d)
			for i, v := range part {
				q[gi][i*n+j] = byte(int8(max(-127, min(127, math.Round(v/d)))))
			}
		}
	}
	return q, sc
}

// groupWidth is the width of the activation groups of a product with weight named weight and
// k inputs under o (0: one scale a row).
func (o DQOptions) groupWidth(weight string, k int64) int64 {
	if o.GroupWidth <= 0 || k <= o.GroupWidth || o.GroupOnly != "" && !twinMatches(weight, o.GroupOnly) {
		return 0
	}
	return o.GroupWidth
}
