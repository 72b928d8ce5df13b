package optimize

import (
	"fmt"
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// ONNX enum values this package reads and writes (the field numbers are onnxproto's).
const (
	attrFloat   = 1  // AttributeProto.FLOAT
	attrInt     = 2  // AttributeProto.INT
	attrInts    = 7  // AttributeProto.INTS
	tensorFloat = 1  // TensorProto.FLOAT
	tensorHalf  = 10 // TensorProto.FLOAT16
	int64Type   = 7  // TensorProto.INT64
)

// field is one protobuf field: its whole encoding, and the payload of a length-delimited one.
type field struct {
	num protowire.Number
	typ protowire.Type
	raw []byte
	val []byte
	v   uint64
}

// fields splits a message into its fields.
func fields(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, protowire.ParseError(m)
		}
		f := field{num: num, typ: typ, raw: b[:n+m]}
		switch typ {
		case protowire.BytesType:
			f.val, _ = protowire.ConsumeBytes(b[n:])
		case protowire.VarintType:
			f.v, _ = protowire.ConsumeVarint(b[n:])
		}
		out = append(out, f)
		b = b[n+m:]
	}
	return out, nil
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// externalTensorProto returns the TensorProto of tensor name (dims, data type dtype) whose
// length bytes are at off in the data file loc beside the graph.
func externalTensorProto(name string, dims []int64, dtype uint64, loc string, off, length int64) []byte {
	var t []byte
	for _, d := range dims {
		t = appendVarint(t, proto.FieldTensorDims, uint64(d))
	}
	t = appendVarint(t, proto.FieldTensorDataType, dtype)
	t = appendBytes(t, proto.FieldTensorName, []byte(name))
	for _, kv := range [][2]string{{"location", loc}, {"offset", strconv.FormatInt(off, 10)}, {"length", strconv.FormatInt(length, 10)}} {
		e := appendBytes(appendBytes(nil, proto.FieldEntryKey, []byte(kv[0])), proto.FieldEntryValue, []byte(kv[1]))
		t = appendBytes(t, proto.FieldTensorExternal, e)
	}
	return appendVarint(t, proto.FieldTensorDataLocation, proto.LocationExternal)
}

// appendDims appends the dimensions a TensorProto's dims field f holds (one, or packed);
// ok is false for a damaged packed field.
func appendDims(dims []int64, f field) (_ []int64, ok bool) {
	if f.typ == protowire.VarintType {
		return append(dims, int64(f.v)), true
	}
	for b := f.val; len(b) > 0; {
		x, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return dims, false
		}
		dims, b = append(dims, int64(x)), b[n:]
	}
	return dims, true
}

// node is the part of a NodeProto the rewrites look at; raw is the whole message.
type node struct {
	name, op, domain string
	inputs, outputs  []string
	raw              []byte
}

func parseNode(b []byte) (node, error) {
	n := node{raw: b}
	fs, err := fields(b)
	if err != nil {
		return n, err
	}
	for _, f := range fs {
		if f.typ != protowire.BytesType {
			continue
		}
		switch f.num {
		case proto.FieldNodeInput:
			n.inputs = append(n.inputs, string(f.val))
		case proto.FieldNodeOutput:
			n.outputs = append(n.outputs, string(f.val))
		case proto.FieldNodeName:
			n.name = string(f.val)
		case proto.FieldNodeOpType:
			n.op = string(f.val)
		case proto.FieldNodeDomain:
			n.domain = string(f.val)
		}
	}
	return n, nil
}

// encodeNode writes a node with the given inputs and outputs and no attributes.
func encodeNode(name, op string, in, out []string) []byte {
	var b []byte
	for _, s := range in {
		b = appendBytes(b, proto.FieldNodeInput, []byte(s))
	}
	for _, s := range out {
		b = appendBytes(b, proto.FieldNodeOutput, []byte(s))
	}
	b = appendBytes(b, proto.FieldNodeName, []byte(name))
	return appendBytes(b, proto.FieldNodeOpType, []byte(op))
}

// withIntAttr returns node bytes with attribute name set to v (replacing any old value).
func withIntAttr(raw []byte, name string, v int64) ([]byte, error) {
	fs, err := fields(raw)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, f := range fs {
		if f.num == proto.FieldNodeAttr && f.typ == protowire.BytesType {
			afs, err := fields(f.val)
			if err != nil {
				return nil, err
			}
			if len(afs) > 0 && attrNameOf(afs) == name {
				continue
			}
		}
		out = append(out, f.raw...)
	}
	var a []byte
	a = appendBytes(a, proto.FieldAttrName, []byte(name))
	a = appendVarint(a, proto.FieldAttrI, uint64(v))
	a = appendVarint(a, proto.FieldAttrType, attrInt)
	return appendBytes(out, proto.FieldNodeAttr, a), nil
}

func attrNameOf(afs []field) string {
	for _, f := range afs {
		if f.num == proto.FieldAttrName && f.typ == protowire.BytesType {
			return string(f.val)
		}
	}
	return ""
}

// nodeAttrs splits a node's attributes into their fields, in order.
func nodeAttrs(raw []byte) ([][]field, error) {
	fs, err := fields(raw)
	if err != nil {
		return nil, err
	}
	var out [][]field
	for _, f := range fs {
		if f.num != proto.FieldNodeAttr || f.typ != protowire.BytesType {
			continue
		}
		afs, err := fields(f.val)
		if err != nil {
			return nil, err
		}
		out = append(out, afs)
	}
	return out, nil
}

// appendInts appends an attribute's ints field a, packed or not, to out.
func appendInts(out []int64, a field) ([]int64, bool) {
	switch {
	case a.num != proto.FieldAttrInts:
	case a.typ == protowire.VarintType:
		out = append(out, int64(a.v))
	case a.typ == protowire.BytesType:
		for b := a.val; len(b) > 0; {
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, false
			}
			out, b = append(out, int64(x)), b[n:]
		}
	}
	return out, true
}

// intAttr reads an int attribute of a node; ok is false when it is absent.
func intAttr(raw []byte, name string) (v int64, ok bool, err error) {
	attrs, err := nodeAttrs(raw)
	if err != nil {
		return 0, false, err
	}
	for _, afs := range attrs {
		if attrNameOf(afs) != name {
			continue
		}
		for _, a := range afs {
			if a.num == proto.FieldAttrI && a.typ == protowire.VarintType {
				return int64(a.v), true, nil
			}
		}
		return 0, true, nil
	}
	return 0, false, nil
}

// int64Initializer encodes a 1-D int64 TensorProto.
func int64Initializer(name string, v ...int64) []byte {
	return initializer(proto.Int64Tensor(name, []int64{int64(len(v))}, v))
}

// floatInitializer encodes a float32 (elem 1) or float16 (elem 10) TensorProto.
func floatInitializer(name string, dims []int64, data []float32, elem int64) []byte {
	if elem == tensorHalf {
		return initializer(proto.Float16Tensor(name, dims, data))
	}
	return initializer(proto.FloatTensor(name, dims, data))
}

// initializer encodes t, made by onnxproto's constructors: its data always fits its shape, so
// an error is a bug here.
func initializer(t *proto.Tensor) []byte {
	b, err := t.Marshal()
	if err != nil {
		panic(err)
	}
	return b
}

// metadataEntry encodes a model metadata_props entry.
func metadataEntry(k, v string) []byte {
	var e []byte
	e = appendBytes(e, 1, []byte(k))
	e = appendBytes(e, 2, []byte(v))
	return appendBytes(nil, proto.FieldModelMetadata, e)
}

func errf(format string, a ...any) error { return fmt.Errorf("optimize: "+format, a...) }

// nodeAttr is an attribute to add to an encoded node.
type nodeAttr []byte

func withInt(name string, v int64) nodeAttr {
	var a []byte
	a = appendBytes(a, proto.FieldAttrName, []byte(name))
	a = appendVarint(a, proto.FieldAttrI, uint64(v))
	return appendVarint(a, proto.FieldAttrType, attrInt)
}

func withInts(name string, v ...int64) nodeAttr {
	var a []byte
	a = appendBytes(a, proto.FieldAttrName, []byte(name))
	for _, x := range v {
		a = appendVarint(a, proto.FieldAttrInts, uint64(x))
	}
	return appendVarint(a, proto.FieldAttrType, attrInts)
}

func withFloat(name string, v float32) nodeAttr {
	var a []byte
	a = appendBytes(a, proto.FieldAttrName, []byte(name))
	a = protowire.AppendTag(a, proto.FieldAttrF, protowire.Fixed32Type)
	a = protowire.AppendFixed32(a, math.Float32bits(v))
	return appendVarint(a, proto.FieldAttrType, attrFloat)
}

// mkNode parses an encoded node after adding attributes.
func mkNode(raw []byte, attrs ...nodeAttr) node {
	for _, a := range attrs {
		raw = appendBytes(raw, proto.FieldNodeAttr, a)
	}
	n, _ := parseNode(raw) // encodeNode's output always parses
	return n
}

// intsAttr reads an ints attribute of a node.
func intsAttr(raw []byte, name string) ([]int64, bool) {
	attrs, err := nodeAttrs(raw)
	if err != nil {
		return nil, false
	}
	for _, afs := range attrs {
		if attrNameOf(afs) != name {
			continue
		}
		var out []int64
		for _, a := range afs {
			var ok bool
			if out, ok = appendInts(out, a); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// msOpset is the com.microsoft opset import the rewritten model needs.
func msOpset() []byte { return opsetImport("com.microsoft") }

// withDomain returns n with its domain set to domain (replacing any it had).
func withDomain(n node, domain string) node {
	fs, _ := fields(n.raw) // n.raw was parsed when n was read or encoded here
	var raw []byte
	for _, f := range fs {
		if f.num != proto.FieldNodeDomain {
			raw = append(raw, f.raw...)
		}
	}
	n.raw = appendBytes(raw, proto.FieldNodeDomain, []byte(domain))
	n.domain = domain
	return n
}

// floatAttr reads a float attribute of a node; ok is false when it is absent or not a float.
func floatAttr(raw []byte, name string) (float32, bool) {
	attrs, err := nodeAttrs(raw)
	if err != nil {
		return 0, false
	}
	for _, afs := range attrs {
		if attrNameOf(afs) != name {
			continue
		}
		for _, a := range afs {
			if a.num != proto.FieldAttrF || a.typ != protowire.Fixed32Type {
				continue
			}
			_, _, n := protowire.ConsumeTag(a.raw)
			bits, m := protowire.ConsumeFixed32(a.raw[n:])
			if m < 0 {
				return 0, false
			}
			return math.Float32frombits(bits), true
		}
		return 0, false
	}
	return 0, false
}
