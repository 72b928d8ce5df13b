package proto

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// WriteOptions choose how WriteFile stores weights.
type WriteOptions struct {
	// ExternalData, when set, names a file beside the model that receives every initializer of
	// at least ExternalThreshold bytes (default 1024); the model then refers to it.
	ExternalData      string
	ExternalThreshold int
}

// WriteFile writes m to path, with weights inline or in opt.ExternalData beside it.
func (m *Model) WriteFile(path string, opt WriteOptions) (err error) {
	out := m
	if opt.ExternalData != "" {
		if out, err = m.externalize(filepath.Join(filepath.Dir(path), opt.ExternalData), opt); err != nil {
			return err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := out.WriteTo(w); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return w.Flush()
}

// externalize writes the large initializers to dataPath and returns a shallow copy of m whose
// tensors point there.
func (m *Model) externalize(dataPath string, opt WriteOptions) (*Model, error) {
	threshold := cmp.Or(opt.ExternalThreshold, 1024)
	f, err := os.Create(dataPath)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	cp := *m
	cp.Graph.Initializers = make([]*Tensor, len(m.Graph.Initializers))
	var off int64
	for i, t := range m.Graph.Initializers {
		cp.Graph.Initializers[i] = t
		if len(t.Raw) < threshold {
			continue
		}
		if _, err := w.Write(t.Raw); err != nil {
			f.Close()
			return nil, fmt.Errorf("write %s: %w", dataPath, err)
		}
		et := *t
		et.Raw = nil
		et.External = &ExternalData{Location: opt.ExternalData, Offset: off, Length: int64(len(t.Raw))}
		cp.Graph.Initializers[i] = &et
		off += int64(len(t.Raw))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	return &cp, f.Close()
}

// Marshal encodes m in memory. Use WriteTo or WriteFile for models near protobuf's 2 GB limit.
func (m *Model) Marshal() ([]byte, error) {
	var b sliceWriter
	_, err := m.WriteTo(&b)
	return b, err
}

type sliceWriter []byte

func (s *sliceWriter) Write(p []byte) (int, error) { *s = append(*s, p...); return len(p), nil }

// WriteTo encodes m to w. Raw tensor data is written straight from the tensors' slices, so a
// model is never copied whole in memory.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	var head []byte
	head = protowire.AppendTag(head, FieldModelIRVersion, protowire.VarintType)
	head = protowire.AppendVarint(head, uint64(m.IRVersion))
	head = appendString(head, FieldModelProducer, m.Producer)
	head = appendString(head, FieldModelProducerVersion, m.ProducerVersion)
	for _, o := range m.Opsets {
		var ob []byte
		ob = appendString(ob, FieldOpsetDomain, o.Domain)
		ob = protowire.AppendTag(ob, FieldOpsetVersion, protowire.VarintType)
		ob = protowire.AppendVarint(ob, uint64(o.Version))
		head = appendMessage(head, FieldModelOpset, ob)
	}
	for _, k := range slices.Sorted(maps.Keys(m.Metadata)) {
		head = appendMessage(head, FieldModelMetadata, appendEntry(nil, k, m.Metadata[k]))
	}
	parts, err := m.Graph.pieces()
	if err != nil {
		return 0, err
	}
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	head = protowire.AppendTag(head, FieldModelGraph, protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(size))
	if size+len(head) > math.MaxInt32 {
		return 0, fmt.Errorf("model is %d bytes, over protobuf's 2 GB limit: use WriteOptions.ExternalData", size+len(head))
	}
	var n int64
	for _, p := range append([][]byte{head}, parts...) {
		k, err := w.Write(p)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// pieces encodes the graph body as byte slices to be written in order; tensor data slices are
// the tensors' own.
func (g *Graph) pieces() ([][]byte, error) {
	var b []byte
	b = appendString(b, FieldGraphName, g.Name)
	for i := range g.Nodes {
		nb, err := g.Nodes[i].encode()
		if err != nil {
			return nil, err
		}
		b = appendMessage(b, FieldGraphNode, nb)
	}
	for _, v := range g.Inputs {
		b = appendMessage(b, FieldGraphInput, v.encode())
	}
	for _, v := range g.Outputs {
		b = appendMessage(b, FieldGraphOutput, v.encode())
	}
	parts := [][]byte{b}
	for _, t := range g.Initializers {
		head, raw, err := t.encode()
		if err != nil {
			return nil, err
		}
		var tb []byte
		tb = protowire.AppendTag(tb, FieldGraphInitializer, protowire.BytesType)
		tb = protowire.AppendVarint(tb, uint64(len(head)+len(raw)))
		parts = append(parts, append(tb, head...), raw)
	}
	return parts, nil
}

// Marshal encodes the tensor as a TensorProto message: dims, data type, name, then its data.
func (t *Tensor) Marshal() ([]byte, error) {
	head, raw, err := t.encode()
	if err != nil {
		return nil, err
	}
	return append(head, raw...), nil
}

// encode returns a tensor's fields without its raw data, and the raw data field's payload;
// the message is head followed by raw.
func (t *Tensor) encode() (head, raw []byte, err error) {
	if t.Name == "" && t.External != nil {
		return nil, nil, fmt.Errorf("an external tensor needs a name")
	}
	if sz := t.DataType.Size(); sz > 0 && t.External == nil && int64(len(t.Raw)) != t.NumElements()*int64(sz) {
		return nil, nil, fmt.Errorf("tensor %q: %d bytes of data for shape %v of %s", t.Name, len(t.Raw), t.Dims, t.DataType)
	}
	for _, d := range t.Dims {
		head = protowire.AppendTag(head, FieldTensorDims, protowire.VarintType)
		head = protowire.AppendVarint(head, uint64(d))
	}
	head = protowire.AppendTag(head, FieldTensorDataType, protowire.VarintType)
	head = protowire.AppendVarint(head, uint64(t.DataType))
	head = appendString(head, FieldTensorName, t.Name)
	if e := t.External; e != nil {
		for _, kv := range [][2]string{{"location", e.Location}, {"offset", fmt.Sprint(e.Offset)}, {"length", fmt.Sprint(e.Length)}} {
			head = appendMessage(head, FieldTensorExternal, appendEntry(nil, kv[0], kv[1]))
		}
		head = protowire.AppendTag(head, FieldTensorDataLocation, protowire.VarintType)
		head = protowire.AppendVarint(head, LocationExternal)
		return head, nil, nil
	}
	head = protowire.AppendTag(head, FieldTensorRaw, protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(len(t.Raw)))
	return head, t.Raw, nil
}

func (n *Node) encode() ([]byte, error) {
	var b []byte
	for _, in := range n.Inputs {
		b = protowire.AppendTag(b, FieldNodeInput, protowire.BytesType)
		b = protowire.AppendString(b, in)
	}
	for _, out := range n.Outputs {
		b = protowire.AppendTag(b, FieldNodeOutput, protowire.BytesType)
		b = protowire.AppendString(b, out)
	}
	b = appendString(b, FieldNodeName, n.Name)
	b = appendString(b, FieldNodeOpType, n.OpType)
	b = appendString(b, FieldNodeDomain, n.Domain)
	for _, a := range n.Attrs {
		ab, err := a.encode()
		if err != nil {
			return nil, fmt.Errorf("node %s (%s): %w", n.Name, n.OpType, err)
		}
		b = appendMessage(b, FieldNodeAttr, ab)
	}
	return b, nil
}

func (a *Attr) encode() ([]byte, error) {
	b := appendString(nil, FieldAttrName, a.Name)
	b = protowire.AppendTag(b, FieldAttrType, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(a.Type))
	switch a.Type {
	case AttrFloat:
		b = protowire.AppendTag(b, FieldAttrF, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.Float))
	case AttrInt:
		b = protowire.AppendTag(b, FieldAttrI, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.Int))
	case AttrString:
		b = protowire.AppendTag(b, FieldAttrS, protowire.BytesType)
		b = protowire.AppendString(b, a.String)
	case AttrTensor:
		if a.Tensor == nil {
			return nil, fmt.Errorf("tensor attribute %s has no tensor", a.Name)
		}
		head, raw, err := a.Tensor.encode()
		if err != nil {
			return nil, err
		}
		b = appendMessage(b, FieldAttrT, append(head, raw...))
	case AttrGraph:
		if a.Graph == nil {
			return nil, fmt.Errorf("graph attribute %s has no graph", a.Name)
		}
		parts, err := a.Graph.pieces()
		if err != nil {
			return nil, err
		}
		b = appendMessage(b, FieldAttrG, bytes.Join(parts, nil))
	case AttrFloats:
		var p []byte
		for _, f := range a.Floats {
			p = protowire.AppendFixed32(p, math.Float32bits(f))
		}
		b = appendMessage(b, FieldAttrFloats, p)
	case AttrInts:
		var p []byte
		for _, i := range a.Ints {
			p = protowire.AppendVarint(p, uint64(i))
		}
		b = appendMessage(b, FieldAttrInts, p)
	default:
		return nil, fmt.Errorf("attribute %s: type %d is not supported by the writer", a.Name, a.Type)
	}
	return b, nil
}

func (v ValueInfo) encode() []byte {
	var shape []byte
	for _, d := range v.Dims {
		var db []byte
		switch {
		case d.Param != "":
			db = appendString(db, FieldDimParam, d.Param)
		case d.Value >= 0:
			db = protowire.AppendTag(db, FieldDimValue, protowire.VarintType)
			db = protowire.AppendVarint(db, uint64(d.Value))
		}
		shape = appendMessage(shape, FieldShapeDim, db)
	}
	var tt []byte
	tt = protowire.AppendTag(tt, FieldTensorElemType, protowire.VarintType)
	tt = protowire.AppendVarint(tt, uint64(v.Type))
	tt = appendMessage(tt, FieldTensorShape, shape)
	b := appendString(nil, FieldValueName, v.Name)
	return appendMessage(b, FieldValueType, appendMessage(nil, FieldTypeTensor, tt))
}

func appendEntry(b []byte, k, v string) []byte {
	b = protowire.AppendTag(b, FieldEntryKey, protowire.BytesType)
	b = protowire.AppendString(b, k)
	b = protowire.AppendTag(b, FieldEntryValue, protowire.BytesType)
	return protowire.AppendString(b, v)
}

// appendString appends a string field, leaving out an empty one (proto3 default).
func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendMessage(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}
