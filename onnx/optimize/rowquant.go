package optimize

import (
	"strconv"

	"edgechat/onnx/proto"
)

// Names of the constants the per-row quantizers share (rowQuant).
const (
	rowqTiny   = "rowq/tiny"    // float 1e-20: the least row maximum a scale is taken from (an all-zero row)
	rowqInv127 = "rowq/inv127"  // float: 1/127
	rowqFlat   = "rowq/flat"    // int64 [1]: -1, the scales as one axis
	rowqZP     = "rowq/zp"      // uint8 [1]: 128, the activations' zero point
	rowqAxes   = "rowq/axes"    // int64 [1]: -1, ReduceMax's axes as an input (opset 18 on)
	rowqRows   = "rowq/rowsOfK" // prefix of int64 [2] {-1, K}: the activations as rows of K
)

// rowQuant writes the nodes that quantize the activations x (rows of k values, any leading
// shape) to uint8 with one scale a row, symmetric (zero point 128): each row's scale is its
// largest |x| over 127, so a row of large values (a prompt's first token often has them in a
// trained model) does not coarsen the others as one scale for the whole tensor
// (DynamicQuantizeLinear) does. It returns the encoded nodes, the quantized tensor's name (x's
// shape) and the scales' (x's shape with 1 for the last axis), the a_scale of
// MatMulIntegerToFloat, which multiplies each output row by it. reduceAxesInput is whether
// ReduceMax takes its axes as an input (opset 18 on) rather than an attribute.
//
// ONNX Runtime runs QuantizeLinear with a scale an element of axis 0 over the rows' view
// [rows, k]; Reshape only relabels.
func rowQuant(x string, k int64, reduceAxesInput bool) (nodes [][]byte, q, scale string) {
	p := x + "/rowq"
	add := func(op string, in, out []string, attrs ...nodeAttr) {
		n := mkNode(encodeNode(out[0], op, in, out), attrs...) // named for its output: unique
		nodes = append(nodes, n.raw)
	}
	add("Abs", []string{x}, []string{p + "/abs"})
	if reduceAxesInput {
		add("ReduceMax", []string{p + "/abs", rowqAxes}, []string{p + "/amax"}, withInt("keepdims", 1))
	} else {
		add("ReduceMax", []string{p + "/abs"}, []string{p + "/amax"}, withInts("axes", -1), withInt("keepdims", 1))
	}
	add("Max", []string{p + "/amax", rowqTiny}, []string{p + "/amax1"})
	scale = p + "/scale"
	add("Mul", []string{p + "/amax1", rowqInv127}, []string{scale})
	add("Reshape", []string{scale, rowqFlat}, []string{p + "/scale1"})
	add("Shape", []string{p + "/scale1"}, []string{p + "/rows"})
	add("Expand", []string{rowqZP, p + "/rows"}, []string{p + "/zp"})
	add("Shape", []string{x}, []string{p + "/shape"})
	add("Reshape", []string{x, rowqRowsName(k)}, []string{p + "/x2"})
	add("QuantizeLinear", []string{p + "/x2", p + "/scale1", p + "/zp"}, []string{p + "/q2"}, withInt("axis", 0))
	q = p + "/q"
	add("Reshape", []string{p + "/q2", p + "/shape"}, []string{q})
	return nodes, q, scale
}

func rowqRowsName(k int64) string { return rowqRows + "/" + strconv.FormatInt(k, 10) }

// rowQuantConsts returns the initializers rowQuant's nodes read, for the row lengths ks.
func rowQuantConsts(ks []int64, reduceAxesInput bool) [][]byte {
	out := [][]byte{
		initializer(proto.FloatTensor(rowqTiny, nil, []float32{1e-20})),
		initializer(proto.FloatTensor(rowqInv127, nil, []float32{1.0 / 127})),
		int64Initializer(rowqFlat, -1),
		initializer(&proto.Tensor{Name: rowqZP, DataType: proto.Uint8, Dims: []int64{1}, Raw: []byte{128}}),
	}
	if reduceAxesInput {
		out = append(out, int64Initializer(rowqAxes, -1))
	}
	for _, k := range ks {
		out = append(out, int64Initializer(rowqRowsName(k), -1, k))
	}
	return out
}
