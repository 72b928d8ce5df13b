package optimize

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// Packed projections.
//
// A layer's query, key and value projections read the same normed activations, and so do the
// MLP's gate and up projections: five int4 MatMulNBits per layer, each quantizing its input
// for the int8 kernel again. PackMatMuls writes every set of MatMulNBits nodes that read one
// tensor with the same K, bits, block size and accuracy level (and no zero points, group
// index or bias) as one node over their weights and scales stacked along N, whose output a
// Split cuts back into theirs, as onnxruntime-genai's builder exports packed QKV. Each output
// column is the same dot product over the same blocks, so the result is the original's. The
// stacked weights are new data: they go into the copy itself (raw_data), read from the
// original's external data file where it keeps them.

// packed is one set of MatMulNBits nodes packed into one.
type packed struct {
	nodes []int
	ns    []int64
}

// packMatMuls packs the MatMulNBits nodes that read one tensor (see above); read returns an
// initializer's bytes. It returns the nodes, the initializers they need and how many nodes
// were packed into fewer.
func packMatMuls(nodes []node, gfs []field, info *proto.ModelInfo, read func(tensor []byte) ([]byte, error)) ([]node, [][]byte, int, error) {
	v := newAttnView(nodes, gfs, info)
	if v.opset < 13 {
		return nodes, nil, 0, nil // Split takes its sizes as an input from opset 13
	}
	tensors := map[string][]byte{}
	for _, f := range gfs {
		if f.num == proto.FieldGraphInitializer && f.typ == protowire.BytesType {
			if name, _, ok := tensorHeader(f.val); ok {
				tensors[name] = f.val
			}
		}
	}
	groups := map[string]*packed{}
	var keys []string
	for i, n := range nodes {
		if n.op != "MatMulNBits" || n.domain != "com.microsoft" || len(n.inputs) != 3 || len(n.outputs) != 1 {
			continue
		}
		if tensors[n.inputs[1]] == nil || tensors[n.inputs[2]] == nil || len(v.consumers[n.inputs[1]]) != 1 || len(v.consumers[n.inputs[2]]) != 1 {
			continue
		}
		var key strings.Builder
		key.WriteString(n.inputs[0])
		for _, a := range []string{"K", "bits", "block_size", "accuracy_level"} {
			x, _, err := intAttr(n.raw, a)
			if err != nil {
				return nil, nil, 0, err
			}
			fmt.Fprintf(&key, "\x00%d", x)
		}
		fmt.Fprintf(&key, "\x00%d", v.inits[n.inputs[2]]) // the scales' type
		N, ok, err := intAttr(n.raw, "N")
		if err != nil || !ok || N <= 0 {
			continue
		}
		k := key.String()
		if groups[k] == nil {
			groups[k] = &packed{}
			keys = append(keys, k)
		}
		groups[k].nodes = append(groups[k].nodes, i)
		groups[k].ns = append(groups[k].ns, N)
	}
	at := map[int][]node{} // the first node's place gets the packed node and its Split
	drop := map[int]bool{}
	var inits [][]byte
	count := 0
	for _, k := range keys {
		g := groups[k]
		if len(g.nodes) < 2 {
			continue
		}
		first := nodes[g.nodes[0]]
		var b, s []byte
		var bDims []int64
		for j, i := range g.nodes {
			n := nodes[i]
			wb, err := read(tensors[n.inputs[1]])
			if err != nil {
				return nil, nil, 0, err
			}
			ws, err := read(tensors[n.inputs[2]])
			if err != nil {
				return nil, nil, 0, err
			}
			dims := tensorDims(tensors[n.inputs[1]])
			if len(dims) != 3 || dims[0] != g.ns[j] || j > 0 && !slices.Equal(dims[1:], bDims[1:]) {
				return nil, nil, 0, errf("MatMulNBits %s: weights of shape %v for N %d", n.name, dims, g.ns[j])
			}
			if j == 0 {
				bDims = slices.Clone(dims)
			} else {
				bDims[0] += dims[0]
			}
			b, s = append(b, wb...), append(s, ws...)
		}
		name := first.name + "/edgechat_packed"
		elem := proto.DataType(v.inits[first.inputs[2]])
		if elem.Size() == 0 || len(s)%elem.Size() != 0 {
			return nil, nil, 0, errf("MatMulNBits %s: scales of type %v", first.name, elem)
		}
		inits = append(inits,
			initializer(&proto.Tensor{Name: name + "/B", DataType: proto.Uint8, Dims: bDims, Raw: b}),
			initializer(&proto.Tensor{Name: name + "/scales", DataType: elem, Dims: []int64{int64(len(s) / elem.Size())}, Raw: s}),
			int64Initializer(name+"/split", g.ns...))
		raw := encodeNode(name, "MatMulNBits", []string{first.inputs[0], name + "/B", name + "/scales"}, []string{name + "/out"})
		raw = appendBytes(raw, proto.FieldNodeDomain, []byte("com.microsoft"))
		attrs := []nodeAttr{withInt("N", bDims[0])}
		for _, a := range []string{"K", "bits", "block_size", "accuracy_level"} {
			if x, ok, _ := intAttr(first.raw, a); ok {
				attrs = append(attrs, withInt(a, x))
			}
		}
		var outs []string
		for _, i := range g.nodes {
			outs = append(outs, nodes[i].outputs[0])
			drop[i] = true
		}
		at[g.nodes[0]] = []node{mkNode(raw, attrs...),
			mkNode(encodeNode(name+"/split", "Split", []string{name + "/out", name + "/split"}, outs), withInt("axis", -1))}
		count += len(g.nodes)
	}
	if count == 0 {
		return nodes, nil, 0, nil
	}
	var out []node
	for i, n := range nodes {
		out = append(out, at[i]...)
		if !drop[i] {
			out = append(out, n)
		}
	}
	return out, inits, count, nil
}

// tensorDims reads a TensorProto's dims.
func tensorDims(b []byte) []int64 {
	tfs, err := fields(b)
	if err != nil {
		return nil
	}
	var dims []int64
	for _, f := range tfs {
		switch {
		case f.num != proto.FieldTensorDims:
		case f.typ == protowire.VarintType:
			dims = append(dims, int64(f.v))
		case f.typ == protowire.BytesType: // packed
			for b := f.val; len(b) > 0; {
				x, n := protowire.ConsumeVarint(b)
				if n < 0 {
					return nil
				}
				dims, b = append(dims, int64(x)), b[n:]
			}
		}
	}
	return dims
}

// tensorData returns a reader of initializers' bytes: raw_data, or the range of an external
// data file in dir that the tensor names.
func tensorData(dir string) func(tensor []byte) ([]byte, error) {
	return func(b []byte) ([]byte, error) {
		tfs, err := fields(b)
		if err != nil {
			return nil, err
		}
		var loc string
		off, length := int64(0), int64(-1)
		for _, f := range tfs {
			switch {
			case f.num == proto.FieldTensorRaw && f.typ == protowire.BytesType:
				return f.val, nil
			case f.num == proto.FieldTensorExternal && f.typ == protowire.BytesType:
				efs, err := fields(f.val)
				if err != nil {
					return nil, err
				}
				var k, val string
				for _, e := range efs {
					switch e.num {
					case 1:
						k = string(e.val)
					case 2:
						val = string(e.val)
					}
				}
				switch k {
				case "location":
					loc = val
				case "offset":
					off, _ = strconv.ParseInt(val, 10, 64)
				case "length":
					length, _ = strconv.ParseInt(val, 10, 64)
				}
			}
		}
		if loc == "" || dir == "" || length < 0 || off < 0 || !filepath.IsLocal(loc) {
			return nil, errf("an initializer's data is neither raw nor in a readable external file")
		}
		f, err := os.Open(filepath.Join(dir, loc))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		out := make([]byte, length)
		if n, err := f.ReadAt(out, off); n < len(out) {
			return nil, fmt.Errorf("read %s: %w", loc, err)
		}
		return out, nil
	}
}
