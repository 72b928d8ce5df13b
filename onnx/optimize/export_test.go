package optimize

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// Q4OfFloat writes to out the graph at in (weights inline) with every MatMul whose second
// input is a 2-D float initializer [K][N] as a 4-bit MatMulNBits (block 32, symmetric: zero
// point 8, as llama.cpp's Q4_0 and onnx-community's q4 graphs) at accuracy level acc, K
// padded to whole blocks. It returns how many nodes it rewrote. Tests use it to quantize a
// trained float model (stories260K) as the app's int4 graphs are.
func Q4OfFloat(in, out string, acc int64) (int, error) {
	src, err := os.ReadFile(in)
	if err != nil {
		return 0, err
	}
	mfs, err := fields(src)
	if err != nil {
		return 0, err
	}
	info, err := proto.ReadInfo(in)
	if err != nil {
		return 0, err
	}
	count := 0
	var model []byte
	if !slices.ContainsFunc(info.Opsets, func(o proto.Opset) bool { return o.Domain == "com.microsoft" }) {
		model = msOpset()
	}
	for _, f := range mfs {
		if f.num != proto.FieldModelGraph || f.typ != protowire.BytesType {
			model = append(model, f.raw...)
			continue
		}
		g, n, err := q4Graph(f.val, acc)
		if err != nil {
			return 0, err
		}
		count = n
		model = appendBytes(model, proto.FieldModelGraph, g)
	}
	return count, os.WriteFile(out, model, 0o644)
}

func q4Graph(b []byte, acc int64) ([]byte, int, error) {
	gfs, err := fields(b)
	if err != nil {
		return nil, 0, err
	}
	weights := map[string][]float32{} // 2-D float initializers
	dims := map[string][2]int{}
	for _, f := range gfs {
		if f.num != proto.FieldGraphInitializer || f.typ != protowire.BytesType {
			continue
		}
		tfs, err := fields(f.val)
		if err != nil {
			return nil, 0, err
		}
		var d []int64
		var dt uint64
		var raw []byte
		for _, tf := range tfs {
			switch {
			case tf.num == proto.FieldTensorDims && tf.typ == protowire.VarintType:
				d = append(d, int64(tf.v))
			case tf.num == proto.FieldTensorDataType && tf.typ == protowire.VarintType:
				dt = tf.v
			case tf.num == proto.FieldTensorRaw && tf.typ == protowire.BytesType:
				raw = tf.val
			}
		}
		name := fieldStrings(tfs, proto.FieldTensorName)
		if len(name) != 1 || len(d) != 2 || dt != uint64(proto.Float) || int64(len(raw)) != 4*d[0]*d[1] {
			continue
		}
		w := make([]float32, d[0]*d[1])
		for i := range w {
			w[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		weights[name[0]], dims[name[0]] = w, [2]int{int(d[0]), int(d[1])}
	}
	chosen := map[string]bool{}
	var g []byte
	count := 0
	for _, f := range gfs {
		if f.num == proto.FieldGraphNode && f.typ == protowire.BytesType {
			n, err := parseNode(f.val)
			if err != nil {
				return nil, 0, err
			}
			if n.op == "MatMul" && n.domain == "" && len(n.inputs) == 2 && weights[n.inputs[1]] != nil {
				kn := dims[n.inputs[1]]
				w := n.inputs[1]
				chosen[w] = true
				node := mkNode(encodeNode(n.name, "MatMulNBits", []string{n.inputs[0], w + "_q4", w + "_scales"}, n.outputs),
					withInt("K", int64(kn[0])), withInt("N", int64(kn[1])), withInt("bits", 4), withInt("block_size", 32), withInt("accuracy_level", acc))
				g = appendBytes(g, proto.FieldGraphNode, withDomain(node, "com.microsoft").raw)
				count++
				continue
			}
		}
		g = append(g, f.raw...)
	}
	for name := range chosen {
		k, n := dims[name][0], dims[name][1]
		nb := (k + 31) / 32
		q, sc := make([]byte, n*nb*16), make([]float32, n*nb)
		for j := range n {
			for blk := range nb {
				var m float32 // the value of largest magnitude: Q4_0's scale is m / -8
				for i := blk * 32; i < min(k, blk*32+32); i++ {
					if v := weights[name][i*n+j]; abs32(v) > abs32(m) {
						m = v
					}
				}
				d := m / -8
				sc[j*nb+blk] = d
				for i := range 32 {
					x := 8
					if kk := blk*32 + i; kk < k && d != 0 {
						x = int(math.Round(float64(weights[name][kk*n+j]/d))) + 8
					}
					x = max(0, min(15, x))
					q[(j*nb+blk)*16+i/2] |= byte(x) << (4 * (i % 2))
				}
			}
		}
		g = appendBytes(g, proto.FieldGraphInitializer, initializer(&proto.Tensor{Name: name + "_q4", DataType: proto.Uint8, Dims: []int64{int64(n), int64(nb), 16}, Raw: q}))
		g = appendBytes(g, proto.FieldGraphInitializer, initializer(proto.FloatTensor(name+"_scales", []int64{int64(n * nb)}, sc)))
	}
	if count == 0 {
		return nil, 0, fmt.Errorf("no MatMul over a 2-D float initializer")
	}
	return g, count, nil
}

func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }

// MSModel is msModel for the external tests.
var MSModel = msModel
