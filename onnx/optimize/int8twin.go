package optimize

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// int8TwinData is the data file of an int8 twin's re-encoded weights.
const int8TwinData = "int8twin.data"

// Int8Twin writes the int8 twin of the decoder graph at in into folder out: every 4-bit
// MatMulNBits without zero points (or those whose weight name contains one of match's
// comma-separated strings) re-encoded as 8-bit, the same block scales, each 4-bit value q
// (implicit zero point 8) stored as q+120 (implicit zero point 128), so the twin computes the
// same products (float32 compute gives the same logits up to rounding). The new weights go
// into a data file of their own beside the twin; the graph's other external data files are
// hard-linked there. It returns how many nodes it re-encoded and the bytes of new weights.
//
// It measures whether 8-bit weights (no nibble unpacking, twice the bytes) run faster than
// 4-bit ones on a CPU (tools/int8twin): on the x86-64 AVX-512 VNNI machine of issue 35 they
// did not (decode 1.26–1.45× the CPU time, prefill 0.90–0.92×); Arm64's kernels differ.
func Int8Twin(in, out, match string) (int, int64, error) { return int8Twin(in, out, match) }

func fieldStrings(fs []field, num protowire.Number) []string {
	var out []string
	for _, f := range fs {
		if f.num == num && f.typ == protowire.BytesType {
			out = append(out, string(f.val))
		}
	}
	return out
}

// twin writes the twin of the graph at in into folder out.
func int8Twin(in, out, match string) (int, int64, error) {
	return writeTwin(in, out, int8TwinData, func(w *twinWriter, g []byte) ([]byte, error) { return w.graph(g, match) })
}

// writeTwin writes into folder out the model at in with its graph rewritten by graph, the
// new weights going to out's data file dataName as graph writes them. It returns how many
// nodes graph rewrote and the bytes of weights written.
func writeTwin(in, out, dataName string, graph func(w *twinWriter, g []byte) ([]byte, error)) (int, int64, error) {
	src, err := os.ReadFile(in)
	if err != nil {
		return 0, 0, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, 0, err
	}
	data, err := os.Create(filepath.Join(out, dataName))
	if err != nil {
		return 0, 0, err
	}
	w := &twinWriter{dir: filepath.Dir(in), out: out, data: bufio.NewWriterSize(data, 1<<20), linked: map[string]bool{}}
	mfs, err := fields(src)
	if err != nil {
		return 0, 0, fmt.Errorf("read model: %w", err)
	}
	var model []byte
	for _, f := range mfs {
		if f.num != proto.FieldModelGraph || f.typ != protowire.BytesType {
			model = append(model, f.raw...)
			continue
		}
		g, err := graph(w, f.val)
		if err != nil {
			return 0, 0, err
		}
		model = appendBytes(model, proto.FieldModelGraph, g)
	}
	err = errors.Join(w.data.Flush(), data.Close())
	if err == nil {
		err = os.WriteFile(filepath.Join(out, filepath.Base(in)), model, 0o644)
	}
	return w.count, w.off, err
}

type twinWriter struct {
	dir, out string
	data     *bufio.Writer
	off      int64
	count    int
	linked   map[string]bool
}

// graph returns the graph b with the chosen MatMulNBits at 8 bits and their weights re-encoded.
func (w *twinWriter) graph(b []byte, match string) ([]byte, error) {
	gfs, err := fields(b)
	if err != nil {
		return nil, err
	}
	chosen := map[string]bool{} // weight names
	for _, f := range gfs {
		if f.num != proto.FieldGraphNode || f.typ != protowire.BytesType {
			continue
		}
		ins, ok, err := plainMatMulNBits(f.val, "") // 8-bit weights: not the int4 kernel's
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		bits, _, err := intAttr(f.val, "bits")
		if err != nil {
			return nil, err
		}
		if bits == 4 && twinMatches(ins[1], match) {
			chosen[ins[1]] = true
		}
	}
	var g []byte
	for _, f := range gfs {
		switch {
		case f.num == proto.FieldGraphNode && f.typ == protowire.BytesType:
			nfs, err := fields(f.val)
			if err != nil {
				return nil, err
			}
			if ins := fieldStrings(nfs, proto.FieldNodeInput); len(ins) > 1 && chosen[ins[1]] && fieldStrings(nfs, proto.FieldNodeOpType)[0] == "MatMulNBits" {
				node, err := withIntAttr(f.val, "bits", 8)
				if err != nil {
					return nil, err
				}
				g = appendBytes(g, proto.FieldGraphNode, node)
				w.count++
				continue
			}
		case f.num == proto.FieldGraphInitializer && f.typ == protowire.BytesType:
			tfs, err := fields(f.val)
			if err != nil {
				return nil, err
			}
			if name := fieldStrings(tfs, proto.FieldTensorName); len(name) == 1 && chosen[name[0]] {
				t, err := w.reencode(name[0], tfs)
				if err != nil {
					return nil, err
				}
				g = appendBytes(g, proto.FieldGraphInitializer, t)
				continue
			}
			if err := w.linkExternal(tfs); err != nil {
				return nil, err
			}
		}
		g = append(g, f.raw...)
	}
	return g, nil
}

func twinMatches(name, match string) bool {
	if match == "" {
		return true
	}
	for _, m := range strings.Split(match, ",") {
		if m != "" && strings.Contains(name, m) {
			return true
		}
	}
	return false
}

// external reads a tensor's external_data entries.
func externalRefs(tfs []field) map[string]string {
	m := map[string]string{}
	for _, f := range tfs {
		if f.num == proto.FieldTensorExternal && f.typ == protowire.BytesType {
			efs, err := fields(f.val)
			if err != nil {
				continue
			}
			k, v := fieldStrings(efs, proto.FieldEntryKey), fieldStrings(efs, proto.FieldEntryValue)
			if len(k) == 1 && len(v) == 1 {
				m[k[0]] = v[0]
			}
		}
	}
	return m
}

// linkExternal hard-links the external data file a tensor kept in place reads into the twin's
// folder (ONNX Runtime reads it relative to the graph).
func (w *twinWriter) linkExternal(tfs []field) error {
	loc := externalRefs(tfs)["location"]
	if loc == "" || w.linked[loc] {
		return nil
	}
	if !filepath.IsLocal(loc) {
		return fmt.Errorf("external data %q outside the graph's folder", loc)
	}
	w.linked[loc] = true
	to := filepath.Join(w.out, loc)
	if _, err := os.Lstat(to); err == nil {
		return nil
	}
	return os.Link(filepath.Join(w.dir, loc), to)
}

// reencode returns the 4-bit weight tensor tfs ([N, blocks, blob bytes], two values a byte,
// element 2i low nibble) as its 8-bit twin ([N, blocks, 2×blob]) written to the data file.
func (w *twinWriter) reencode(name string, tfs []field) ([]byte, error) {
	var dims []int64
	for _, f := range tfs {
		if f.num == proto.FieldTensorDims && (f.typ == protowire.VarintType || f.typ == protowire.BytesType) {
			var ok bool
			if dims, ok = appendDims(dims, f); !ok {
				return nil, fmt.Errorf("%s: bad dims", name)
			}
		}
	}
	raw, err := w.tensorData(name, tfs)
	if err != nil {
		return nil, err
	}
	if len(dims) != 3 || int64(len(raw)) != dims[0]*dims[1]*dims[2] {
		return nil, fmt.Errorf("%s: %d bytes for weights of shape %v", name, len(raw), dims)
	}
	q := make([]byte, 2*len(raw))
	for i, b := range raw {
		q[2*i], q[2*i+1] = b&15+120, b>>4+120 // q8 - 128 == q4 - 8
	}
	return w.externalTensor(name, []int64{dims[0], dims[1], 2 * dims[2]}, proto.Uint8, int8TwinData, q)
}

// externalTensor appends q to the data file (named dataName in the twin's folder), padded to
// a 4 KiB boundary, and returns the initializer of tensor name (dims, data type dtype) that
// points at it.
func (w *twinWriter) externalTensor(name string, dims []int64, dtype proto.DataType, dataName string, q []byte) ([]byte, error) {
	off := w.off
	if _, err := w.data.Write(q); err != nil {
		return nil, err
	}
	w.off += int64(len(q))
	if pad := (4096 - w.off%4096) % 4096; pad > 0 {
		if _, err := w.data.Write(make([]byte, pad)); err != nil {
			return nil, err
		}
		w.off += pad
	}
	return externalTensorProto(name, dims, uint64(dtype), dataName, off, int64(len(q))), nil
}

// plainMatMulNBits returns the inputs of node (a NodeProto's bytes) when it is a
// com.microsoft MatMulNBits (or one in the domain kernel, "" for none: a MatMulKernel's) with
// weights and scales alone (the inputs after the third, zero points, group indices and bias,
// absent or empty): the nodes the twins re-encode. A kernel's product with SwiGLUAttr is not
// one: its input is gate | up, twice K wide, and only the kernel computes its activation; nor
// is one with LayoutAttr set, whose weights are in the kernel's order.
func plainMatMulNBits(node []byte, kernel string) (ins []string, ok bool, err error) {
	nfs, err := fields(node)
	if err != nil {
		return nil, false, err
	}
	if _, fused, _ := intAttr(node, SwiGLUAttr); fused {
		return nil, false, nil
	}
	if v, _, _ := intAttr(node, LayoutAttr); v != 0 {
		return nil, false, nil // weights in the kernel's order, not MatMulNBits'
	}
	ins = fieldStrings(nfs, proto.FieldNodeInput)
	op, dom := fieldStrings(nfs, proto.FieldNodeOpType), fieldStrings(nfs, proto.FieldNodeDomain)
	if len(op) != 1 || op[0] != "MatMulNBits" || len(dom) != 1 || dom[0] != "com.microsoft" && (kernel == "" || dom[0] != kernel) || len(ins) < 3 {
		return nil, false, nil
	}
	for _, in := range ins[3:] {
		if in != "" {
			return nil, false, nil
		}
	}
	return ins, true, nil
}
