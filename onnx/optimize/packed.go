package optimize

import (
	"maps"
	"slices"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// Products of one input as one MatMulNBits.
//
// A layer's Q, K and V projections read the same normalized stream, and so do a gated MLP's
// gate and up projections: three and two MatMulNBits nodes, each quantizing the same
// activations and reading its own weights. onnxruntime-genai's builder exports them packed:
// one MatMulNBits over the weights concatenated along N. packMatMuls writes such groups that
// way, followed by a Split on the last axis into the original outputs, so that what reads them
// is unchanged. MatMulNBits stores every per-output tensor row after row along N (B
// [N][blocks][blob], scales [N·blocks] or [N][blocks], zero points likewise, bias [N]), so the
// packed tensors are the members' bytes one after the other, written from the source (inline
// weights from the graph's bytes, external ones streamed from their file into the copy's
// packedData) without holding them in memory.

// packedData is the data file, beside an optimized copy, of packed weights the source keeps
// in external data.
const packedData = "edgechat_packed.data"

// packedTensor is one input tensor of a MatMulNBits as the source stores it.
type packedTensor struct {
	dims  []int64
	dtype uint64
	raw   []byte // inline data, or nil
	loc   string // external data file ("" when inline)
	off   int64
	n     int64
}

// section is a piece of packedData: bytes, or n bytes at off of the source's external file loc.
type section struct {
	b      []byte
	loc    string
	off, n int64
	// nb and per > 0: the file's bytes are written in layout 1 (cols16.go), nb blocks a
	// column and per 4-byte units a block.
	nb, per int
}

// packResult is what packMatMuls adds: the nodes, the initializers to drop, the new ones (each
// as pieces to write one after the other) and their element types by name, packedData's
// sections, and the groups packed.
type packResult struct {
	nodes       []node
	drop        map[string]bool
	inits       [][][]byte
	types       map[string]uint64
	data        []section
	qkv, gateUp int
	// where holds, by name, each packed tensor's members and where their bytes are: inits[init]
	// (pieces 1.. inline), data[sec:sec+len(members)] (external).
	where map[string]packedWhere
}

// packedWhere is where packMatMuls put a packed tensor's members.
type packedWhere struct {
	members   []packedTensor
	init, sec int
	ext       bool
}

// packMatMuls packs every group of three (qkv) or two (gateUp) com.microsoft MatMulNBits nodes
// reading one tensor (and no other MatMulNBits reading it) whose attributes agree but for N,
// with weights, scales and the same optional inputs as initializers of one type a slot, and
// no g_idx. ext says whether packed weights may go to packedData (Cached: the copy has a
// folder); without it a group with external weights stays as it is.
func packMatMuls(nodes []node, gfs []field, info *proto.ModelInfo, qkv, gateUp, ext bool) packResult {
	res := packResult{nodes: nodes, drop: map[string]bool{}, types: map[string]uint64{}, where: map[string]packedWhere{}}
	tensors := map[string]packedTensor{}
	for _, f := range gfs {
		if f.num != proto.FieldGraphInitializer || f.typ != protowire.BytesType {
			continue
		}
		if name, t, ok := readPackedTensor(f.val); ok {
			tensors[name] = t
		}
	}
	readers := map[string][]int{} // MatMulNBits nodes by input A
	uses := map[string]int{}      // every node's reads of each tensor
	for i, n := range nodes {
		for _, in := range n.inputs {
			uses[in]++
		}
		if n.op == "MatMulNBits" && n.domain == "com.microsoft" && len(n.inputs) >= 3 {
			readers[n.inputs[0]] = append(readers[n.inputs[0]], i)
		}
	}
	outputs := map[string]bool{} // and inputs: an initializer a graph input names stays
	for _, x := range append(slices.Clone(info.Outputs), info.Inputs...) {
		outputs[x.Name] = true
	}
	var opset int64
	for _, o := range info.Opsets {
		if o.Domain == "" || o.Domain == "ai.onnx" {
			opset = o.Version
		}
	}
	at := map[int][]node{} // the packed node and its Split, at the group's first member
	gone := map[int]bool{}
	var offset int64 // in packedData
	for _, a := range slices.Sorted(maps.Keys(readers)) {
		group := readers[a]
		if !(qkv && len(group) == 3 || gateUp && len(group) == 2) {
			continue
		}
		p, ok := planPack(nodes, group, tensors, ext)
		if !ok {
			continue
		}
		first := nodes[group[0]]
		// Names from the first member's output, which no other node writes: node names may
		// be missing or repeated (uniqueNames sorts those out for nodes, not for tensors).
		base := first.outputs[0]
		packedOut := base + "/edgechat_packed"
		ins := []string{a}
		for slot, ts := range p.slots {
			if ts == nil {
				ins = append(ins, "")
				continue
			}
			name := base + "/edgechat_packed_in" + strconv.Itoa(slot+1)
			ins = append(ins, name)
			tx := ext && slices.ContainsFunc(ts, func(t packedTensor) bool { return t.loc != "" })
			init, data := packTensor(name, ts, tx, offset)
			res.where[name] = packedWhere{members: ts, init: len(res.inits), sec: len(res.data), ext: tx}
			res.inits = append(res.inits, init)
			res.types[name] = ts[0].dtype
			res.data = append(res.data, data...)
			for _, s := range data {
				offset += max(int64(len(s.b)), s.n)
			}
		}
		for len(ins) > 1 && ins[len(ins)-1] == "" {
			ins = ins[:len(ins)-1]
		}
		packed := mkNode(append(encodeNode(first.name+"/edgechat_packed", "MatMulNBits", ins, []string{packedOut}), p.attrs...), withInt("N", p.n))
		packed = withDomain(packed, "com.microsoft")
		var outs []string
		for _, i := range group {
			outs = append(outs, nodes[i].outputs[0])
			gone[i] = true
		}
		var splitNode node
		if opset >= 13 {
			sizes := base + "/edgechat_packed_sizes"
			res.inits = append(res.inits, [][]byte{appendBytes(nil, proto.FieldGraphInitializer, int64Initializer(sizes, p.ns...))})
			splitNode = mkNode(encodeNode(first.name+"/edgechat_packed_split", "Split", []string{packedOut, sizes}, outs), withInt("axis", -1))
		} else {
			splitNode = mkNode(encodeNode(first.name+"/edgechat_packed_split", "Split", []string{packedOut}, outs), withInt("axis", -1), withInts("split", p.ns...))
		}
		at[group[0]] = []node{packed, splitNode}
		reads := map[string]int{} // the members' reads of each tensor
		for _, i := range group {
			for _, in := range nodes[i].inputs[1:] {
				reads[in]++
			}
		}
		for in, k := range reads {
			if in != "" && !outputs[in] && uses[in] == k {
				res.drop[in] = true // read by the packed members only
			}
		}
		if len(group) == 3 {
			res.qkv++
		} else {
			res.gateUp++
		}
	}
	if len(at) == 0 {
		return res
	}
	res.nodes = nil
	for i, n := range nodes {
		res.nodes = append(res.nodes, at[i]...)
		if !gone[i] {
			res.nodes = append(res.nodes, n)
		}
	}
	return res
}

// packPlan is a group that packMatMuls can pack: its attributes but N (encoded), each
// member's N and their sum, and for each input after A its members' tensors (nil: absent).
type packPlan struct {
	attrs []byte
	ns    []int64
	n     int64
	slots [][]packedTensor
}

// planPack checks that the MatMulNBits nodes group can be packed and says how.
func planPack(nodes []node, group []int, tensors map[string]packedTensor, ext bool) (packPlan, bool) {
	var p packPlan
	for gi, i := range group {
		n := nodes[i]
		attrs, err := nodeAttrs(n.raw)
		if err != nil {
			return p, false
		}
		var rest []byte
		var others []string
		nv := int64(-1)
		for _, afs := range attrs {
			if attrNameOf(afs) == "N" {
				if v, ok, err := intAttr(n.raw, "N"); err == nil && ok {
					nv = v
				}
				continue
			}
			var raw []byte
			for _, f := range afs {
				raw = append(raw, f.raw...)
			}
			others = append(others, string(raw))
		}
		slices.Sort(others)
		for _, a := range others {
			rest = appendBytes(rest, proto.FieldNodeAttr, []byte(a))
		}
		if nv <= 0 || len(n.outputs) != 1 || len(n.inputs) > 6 {
			return p, false
		}
		if gi == 0 {
			p.attrs = rest
			p.slots = make([][]packedTensor, len(n.inputs)-1)
		} else if string(rest) != string(p.attrs) || len(n.inputs)-1 != len(p.slots) {
			return p, false
		}
		p.ns = append(p.ns, nv)
		p.n += nv
		for slot, in := range n.inputs[1:] {
			if gi > 0 && (in == "") != (p.slots[slot] == nil) {
				return p, false
			}
			if in == "" {
				if slot == 0 || slot == 1 {
					return p, false
				}
				continue
			}
			if slot == 3 { // g_idx: rows in another order, not packable by appending
				return p, false
			}
			t, ok := tensors[in]
			if !ok || t.loc != "" && !ext || len(t.dims) == 0 {
				return p, false
			}
			if gi > 0 {
				prev := p.slots[slot][0]
				if t.dtype != prev.dtype || !slices.Equal(t.dims[1:], prev.dims[1:]) {
					return p, false
				}
			}
			p.slots[slot] = append(p.slots[slot], t)
		}
	}
	for _, ts := range p.slots {
		if ts != nil && len(ts) != len(group) {
			return p, false
		}
	}
	// B [N][blocks][blob] must have the node's N rows (the other tensors' first dimension is N
	// or N times the blocks: appending is packing either way).
	for gi, t := range p.slots[0] {
		if len(t.dims) != 3 || t.dims[0] != p.ns[gi] {
			return p, false
		}
	}
	return p, true
}

// readPackedTensor reads an initializer's name, shape, type and where its bytes are; ok is
// false for data in typed fields, which packMatMuls leaves alone.
func readPackedTensor(b []byte) (string, packedTensor, bool) {
	var t packedTensor
	tfs, err := fields(b)
	if err != nil {
		return "", t, false
	}
	var name string
	external := false
	for _, f := range tfs {
		switch {
		case f.num == proto.FieldTensorName && f.typ == protowire.BytesType:
			name = string(f.val)
		case f.num == proto.FieldTensorDataType && f.typ == protowire.VarintType:
			t.dtype = f.v
		case f.num == proto.FieldTensorDims && (f.typ == protowire.VarintType || f.typ == protowire.BytesType):
			var ok bool
			if t.dims, ok = appendDims(t.dims, f); !ok {
				return "", t, false
			}
		case f.num == proto.FieldTensorRaw && f.typ == protowire.BytesType:
			t.raw = f.val
		case f.num == proto.FieldTensorDataLocation && f.typ == protowire.VarintType:
			external = f.v == proto.LocationExternal
		case f.num == proto.FieldTensorExternal:
		case f.num != proto.FieldTensorDims && f.num != proto.FieldTensorDataType && f.num != proto.FieldTensorName:
			return "", t, false // typed data, segments, a doc string: not ours to copy
		}
	}
	size := int64(proto.DataType(t.dtype).Size())
	want := size
	for _, d := range t.dims {
		want *= d
	}
	if name == "" || size <= 0 {
		return "", t, false
	}
	if !external {
		return name, t, t.raw != nil && int64(len(t.raw)) == want
	}
	ref := externalRefs(tfs)
	t.loc = ref["location"]
	t.n = want
	if s, ok := ref["length"]; ok {
		if n, err := strconv.ParseInt(s, 10, 64); err != nil || n != want {
			return "", t, false
		}
	}
	if s, ok := ref["offset"]; ok {
		var err error
		if t.off, err = strconv.ParseInt(s, 10, 64); err != nil || t.off < 0 {
			return "", t, false
		}
	}
	return name, t, t.loc != "" && t.raw == nil
}

// packTensor returns the initializer name holding ts one after the other (first dimension
// summed), as pieces to write in order: inline, the pieces after the header are the members'
// own bytes; external (ext), it points at offset in packedData, whose sections it returns
// (padded to 4 KiB, as ONNX Runtime maps aligned external data).
func packTensor(name string, ts []packedTensor, ext bool, offset int64) ([][]byte, []section) {
	dims := slices.Clone(ts[0].dims)
	var total int64
	for i, t := range ts {
		total += max(int64(len(t.raw)), t.n)
		if i > 0 {
			dims[0] += t.dims[0]
		}
	}
	if ext {
		var data []section
		for _, t := range ts {
			data = append(data, section{b: t.raw, loc: t.loc, off: t.off, n: t.n})
		}
		if pad := (4096 - total%4096) % 4096; pad > 0 {
			data = append(data, section{b: make([]byte, pad)})
		}
		h := externalTensorProto(name, dims, ts[0].dtype, packedData, offset, total)
		return [][]byte{appendBytes(nil, proto.FieldGraphInitializer, h)}, data
	}
	var h []byte
	for _, d := range dims {
		h = appendVarint(h, proto.FieldTensorDims, uint64(d))
	}
	h = appendVarint(h, proto.FieldTensorDataType, ts[0].dtype)
	h = appendBytes(h, proto.FieldTensorName, []byte(name))
	h = protowire.AppendTag(h, proto.FieldTensorRaw, protowire.BytesType)
	h = protowire.AppendVarint(h, uint64(total))
	head := protowire.AppendTag(nil, proto.FieldGraphInitializer, protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(len(h))+uint64(total))
	pieces := [][]byte{append(head, h...)}
	for _, t := range ts {
		pieces = append(pieces, t.raw)
	}
	return pieces, nil
}
