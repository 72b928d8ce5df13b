package optimize

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// dqTwinData is the data file of the int8 prompt twin's weights.
const dqTwinData = "dqtwin.data"

// DQTwin writes into folder out the twin of the decoder graph at in whose 4-bit MatMulNBits
// nodes (com.microsoft's, and in a copy on EdgeChat's int4 kernel those in its
// MetaMatMulDomain; block 32, no zero points, at most o.MaxN outputs: the LM head stays) run as
// com.microsoft MatMulIntegerToFloat over int8 weights laid out [K][N] with one scale a column
// (the column's largest |w| over 127) and activations quantized to uint8 with one scale a row
// (rowQuant: a row's largest |x| over 127, zero point 128), the column and row scales applied
// to the int32 products. ONNX Runtime runs it as MLAS's u8s8 QGEMM with B packed once, which
// at prompt rows is several times faster than MatMulNBits' int4×int8 path on AVX-512 VNNI
// (inference/ort/kernbench/PREFILL.md). It is not exact: one scale a column cannot hold
// block-32 scales, and one scale a row is coarser than MatMulNBits' one a block of 32; but a
// row of large activations only costs its own precision. Weights whose name contains one of
// o.Skip's comma-separated strings stay 4-bit; o.GroupWidth gives the activations of the
// products o.GroupOnly names one scale a row and group of columns (groupQuant), and their
// weights one scale a column and group of rows. It returns how many nodes it rewrote and the
// bytes of int8 weights written.
func DQTwin(in, out string, o DQOptions) (int, int64, error) {
	info, err := proto.ReadInfo(in)
	if err != nil {
		return 0, 0, err
	}
	axesInput := false // ReduceMax takes its axes as an input from opset 18
	for _, o := range info.Opsets {
		if o.Domain == "" || o.Domain == "ai.onnx" {
			axesInput = o.Version >= 18
		}
	}
	kernel := info.Metadata[MetaMatMulDomain] // a copy's products on EdgeChat's int4 kernel are rewritten too
	return writeTwin(in, out, dqTwinData, func(w *twinWriter, g []byte) ([]byte, error) { return w.dqGraph(g, o, axesInput, kernel) })
}

// DQOptions says which MatMulNBits nodes DQTwin rewrites and how finely it quantizes.
type DQOptions struct {
	MaxN int64  // nodes with more outputs stay 4-bit (1<<16: all but a large vocabulary's LM head)
	Skip string // comma-separated parts of weight names that stay 4-bit
	// GroupWidth, when above 0, quantizes the activations of the products whose weight names
	// contain one of GroupOnly's comma-separated parts ("": all) with one scale a row and
	// group of GroupWidth columns, for products with more inputs than that.
	GroupWidth int64
	GroupOnly  string
	// Progress, when set, hears the share of the rewritten nodes' weights written (0 to 1),
	// after each node's.
	Progress func(done float64)
}

// dqNode is a MatMulNBits node DQTwin rewrites: its weight and scale names and sizes.
type dqNode struct {
	b, scales string
	k, n      int
	w         int // the activations' group width (0: one scale a row)
}

// dqGraph returns the graph b with the chosen MatMulNBits (com.microsoft's, or those in the
// domain kernel) as per-row quantizers (one an activation tensor, shared by the nodes that
// read it) and MatMulIntegerToFloat, and their weights and scales re-encoded.
func (w *twinWriter) dqGraph(b []byte, o DQOptions, axesInput bool, kernel string) ([]byte, error) {
	gfs, err := fields(b)
	if err != nil {
		return nil, err
	}
	if gfs, err = splitPreNorms(gfs); err != nil { // the norms inside products out again: the products become plain
		return nil, err
	}
	byB, byScales := map[string]*dqNode{}, map[string]*dqNode{}
	for _, f := range gfs {
		if f.num != proto.FieldGraphNode || f.typ != protowire.BytesType {
			continue
		}
		ins, ok, err := plainMatMulNBits(f.val, kernel)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		var v [4]int64
		for i, name := range []string{"bits", "block_size", "K", "N"} {
			if v[i], _, err = intAttr(f.val, name); err != nil {
				return nil, err
			}
		}
		if v[0] != 4 || v[1] != 32 || v[2] <= 0 || v[3] <= 0 || v[3] > o.MaxN || o.Skip != "" && twinMatches(ins[1], o.Skip) {
			continue
		}
		n := &dqNode{b: ins[1], scales: ins[2], k: int(v[2]), n: int(v[3]), w: int(o.groupWidth(ins[1], v[2]))}
		byB[n.b], byScales[n.scales] = n, n
	}
	// The tensors' fields (external data: offsets, not bytes); each node's weights are read,
	// requantized and written one node at a time, so the Go heap holds one node's at most.
	tensors := map[string][]field{}
	for _, f := range gfs {
		if f.num != proto.FieldGraphInitializer || f.typ != protowire.BytesType {
			continue
		}
		tfs, err := fields(f.val)
		if err != nil {
			return nil, err
		}
		if name := fieldStrings(tfs, proto.FieldTensorName); len(name) == 1 && (byB[name[0]] != nil || byScales[name[0]] != nil) {
			tensors[name[0]] = tfs
		}
	}
	colScales := map[string][][]float32{} // by scale name, once computed: a group's each
	requant := func(n *dqNode) ([][]byte, [][]float32, error) {
		b, err := w.tensorData(n.b, tensors[n.b])
		if err != nil {
			return nil, nil, err
		}
		sc, err := w.tensorData(n.scales, tensors[n.scales])
		if err != nil {
			return nil, nil, err
		}
		q, cs, err := perColumn(n, b, sc)
		if err == nil {
			colScales[n.scales] = cs
		}
		return q, cs, err
	}
	var g []byte
	written := 0
	quantized := map[string][2]string{}    // activation name → its uint8 rows and their scales
	grouped := map[string]groupQuantized{} // activation name and group width → its groups
	var ks []int64                         // row lengths quantized
	consts := map[string][]byte{}          // groupQuant's and groupProduct's initializers
	for _, f := range gfs {
		switch {
		case f.num == proto.FieldGraphNode && f.typ == protowire.BytesType:
			nfs, err := fields(f.val)
			if err != nil {
				return nil, err
			}
			ins := fieldStrings(nfs, proto.FieldNodeInput)
			if len(ins) == 3 && byB[ins[1]] != nil && fieldStrings(nfs, proto.FieldNodeOpType)[0] == "MatMulNBits" {
				n := byB[ins[1]]
				if n.w > 0 {
					key := ins[0] + "\x00" + strconv.Itoa(n.w)
					xg, ok := grouped[key]
					if !ok {
						var nodes [][]byte
						var cs map[string][]byte
						nodes, cs, xg = groupQuant(ins[0], int64(n.k), int64(n.w), axesInput)
						for _, raw := range nodes {
							g = appendBytes(g, proto.FieldGraphNode, raw)
						}
						maps.Copy(consts, cs)
						grouped[key] = xg
					}
					name := append(fieldStrings(nfs, proto.FieldNodeName), "")
					gn := len(xg.q)
					nodes, cs := groupProduct(name[0], xg, groupNames(n.b, gn), groupNames(n.scales, gn), int64(n.n), fieldStrings(nfs, proto.FieldNodeOutput)[0])
					for _, raw := range nodes {
						g = appendBytes(g, proto.FieldGraphNode, raw)
					}
					maps.Copy(consts, cs)
					w.count++
					continue
				}
				xq, ok := quantized[ins[0]]
				if !ok {
					nodes, q, sc := rowQuant(ins[0], int64(n.k), axesInput)
					for _, raw := range nodes {
						g = appendBytes(g, proto.FieldGraphNode, raw)
					}
					xq = [2]string{q, sc}
					quantized[ins[0]] = xq
					if !slices.Contains(ks, int64(n.k)) {
						ks = append(ks, int64(n.k))
					}
				}
				name := append(fieldStrings(nfs, proto.FieldNodeName), "")
				node := encodeNode(name[0], "MatMulIntegerToFloat", []string{xq[0], n.b, xq[1], n.scales, rowqZP}, fieldStrings(nfs, proto.FieldNodeOutput))
				g = appendBytes(g, proto.FieldGraphNode, append(node, appendBytes(nil, proto.FieldNodeDomain, []byte("com.microsoft"))...))
				w.count++
				continue
			}
		case f.num == proto.FieldGraphInitializer && f.typ == protowire.BytesType:
			tfs, err := fields(f.val)
			if err != nil {
				return nil, err
			}
			name := fieldStrings(tfs, proto.FieldTensorName)
			if len(name) == 1 && byB[name[0]] != nil {
				q, _, err := requant(byB[name[0]])
				if err != nil {
					return nil, err
				}
				n := byB[name[0]]
				names, rows := []string{n.b}, n.k
				if n.w > 0 {
					names, rows = groupNames(n.b, len(q)), n.w
				}
				for i, part := range q {
					t, err := w.externalTensor(names[i], []int64{int64(rows), int64(n.n)}, proto.Int8, dqTwinData, part)
					if err != nil {
						return nil, err
					}
					g = appendBytes(g, proto.FieldGraphInitializer, t)
				}
				if written++; o.Progress != nil {
					o.Progress(float64(written) / float64(len(byB)))
				}
				continue
			}
			if len(name) == 1 && byScales[name[0]] != nil {
				n := byScales[name[0]]
				sc, ok := colScales[n.scales]
				if !ok {
					if _, sc, err = requant(n); err != nil {
						return nil, err
					}
				}
				names := []string{n.scales}
				if n.w > 0 {
					names = groupNames(n.scales, len(sc))
				}
				for i, part := range sc {
					g = appendBytes(g, proto.FieldGraphInitializer, initializer(proto.FloatTensor(names[i], []int64{int64(n.n)}, part)))
				}
				continue
			}
			if err := w.linkExternal(tfs); err != nil {
				return nil, err
			}
		}
		g = append(g, f.raw...)
	}
	if len(quantized) > 0 || len(grouped) > 0 {
		for _, t := range rowQuantConsts(nil, axesInput) {
			g = appendBytes(g, proto.FieldGraphInitializer, t)
		}
	}
	for _, k := range ks {
		consts[rowqRowsName(k)] = int64Initializer(rowqRowsName(k), -1, k)
	}
	for _, name := range slices.Sorted(maps.Keys(consts)) {
		g = appendBytes(g, proto.FieldGraphInitializer, consts[name])
	}
	return g, nil
}

// tensorData reads an initializer's bytes, inline or from its external data file.
func (w *twinWriter) tensorData(name string, tfs []field) ([]byte, error) {
	for _, f := range tfs {
		if f.num == proto.FieldTensorRaw && f.typ == protowire.BytesType {
			return f.val, nil
		}
	}
	ext := externalRefs(tfs)
	off, _ := strconv.ParseInt(ext["offset"], 10, 64)
	length, err := strconv.ParseInt(ext["length"], 10, 64)
	if err != nil || off < 0 || length < 0 || !filepath.IsLocal(ext["location"]) {
		return nil, fmt.Errorf("%s: no raw data and bad external data %v", name, ext)
	}
	f, err := os.Open(filepath.Join(w.dir, ext["location"]))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw := make([]byte, length)
	if _, err := f.ReadAt(raw, off); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return raw, nil
}

// perColumn is PerColumnInt8 (PerGroupColumnInt8 for a grouped node) of a node's weight and
// scale bytes as the graph stores them.
func perColumn(n *dqNode, b, scales []byte) ([][]byte, [][]float32, error) {
	nb := (n.k + 31) / 32
	if len(b) != n.n*nb*16 || len(scales) != 4*n.n*nb {
		return nil, nil, fmt.Errorf("%s: %d weight and %d scale bytes for K=%d N=%d", n.b, len(b), len(scales), n.k, n.n)
	}
	sc := make([]float32, n.n*nb)
	for i := range sc {
		sc[i] = math.Float32frombits(binary.LittleEndian.Uint32(scales[4*i:]))
	}
	if n.w > 0 {
		q, cs := PerGroupColumnInt8(n.k, n.n, n.w, b, sc)
		return q, cs, nil
	}
	q, cs := PerColumnInt8(n.k, n.n, b, sc)
	return [][]byte{q}, [][]float32{cs}, nil
}

// PerColumnInt8 requantizes MatMulNBits' 4-bit weights of a K×N product (b [N][⌈K/32⌉][16],
// element 2i in the low nibble, zero point 8, the last block padded; scales [N][⌈K/32⌉]) to
// int8 laid out [K][N] with one scale a column (the column's largest |w| over 127), as
// MatMulIntegerToFloat takes them.
func PerColumnInt8(k, n int, b []byte, scales []float32) ([]byte, []float32) {
	nb := (k + 31) / 32
	q, sc := make([]byte, k*n), make([]float32, n)
	col := make([]float64, nb*32)
	for j := range n {
		var amax float64
		for blk := range nb {
			s := float64(scales[j*nb+blk])
			for i := range 16 {
				v := b[(j*nb+blk)*16+i]
				col[blk*32+2*i], col[blk*32+2*i+1] = s*(float64(v&15)-8), s*(float64(v>>4)-8)
			}
		}
		for _, v := range col[:k] {
			amax = max(amax, math.Abs(v))
		}
		d := amax / 127
		if d == 0 {
			d = 1
		}
		sc[j] = float32(d)
		for i, v := range col[:k] {
			q[i*n+j] = byte(int8(math.Round(v / d)))
		}
	}
	return q, sc
}
