package optimize

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// TensorProto fields read for small constants (onnx.proto).
const (
	fieldTensorFloatData  = 4
	fieldTensorInt32Data  = 5
	fieldTensorInt64Data  = 7
	fieldTensorDoubleData = 10
	maxConstElems         = 16 // larger tensors are weights, not the shapes and scales matched
)

// smallConsts reads the graph's small constant tensors (initializers and Constant nodes of at
// most maxConstElems elements stored inline) as float64 values by name.
func smallConsts(gfs []field, nodes []node) map[string][]float64 {
	out := map[string][]float64{}
	for _, f := range gfs {
		if f.num == proto.FieldGraphInitializer && f.typ == protowire.BytesType {
			if name, v, ok := tensorValues(f.val); ok {
				out[name] = v
			}
		}
	}
	for _, n := range nodes {
		if n.op != "Constant" || n.domain != "" || len(n.outputs) != 1 {
			continue
		}
		if v, ok := constantNodeValues(n.raw); ok {
			out[n.outputs[0]] = v
		}
	}
	return out
}

// constantNodeValues reads a Constant node's value, value_float, value_int or value_ints.
func constantNodeValues(raw []byte) ([]float64, bool) {
	attrs, err := nodeAttrs(raw)
	if err != nil {
		return nil, false
	}
	for _, afs := range attrs {
		var v []float64
		for _, a := range afs {
			switch {
			case a.num == proto.FieldAttrT && a.typ == protowire.BytesType:
				_, t, ok := tensorValues(a.val)
				return t, ok
			case a.num == proto.FieldAttrF && a.typ == protowire.Fixed32Type:
				b := a.raw[len(a.raw)-4:]
				v = append(v, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
			case a.num == proto.FieldAttrI && a.typ == protowire.VarintType:
				v = append(v, float64(int64(a.v)))
			case a.num == proto.FieldAttrInts:
				ints, ok := appendInts(nil, a)
				if !ok {
					return nil, false
				}
				for _, x := range ints {
					v = append(v, float64(x))
				}
			}
		}
		switch attrNameOf(afs) {
		case "value_float", "value_int", "value_ints":
			return v, len(v) > 0
		}
	}
	return nil, false
}

// tensorValues reads an inline TensorProto of a float or integer type with at most
// maxConstElems elements.
func tensorValues(b []byte) (name string, v []float64, ok bool) {
	name, v, _, ok = tensorValuesUpTo(b, maxConstElems)
	return name, v, ok
}

// tensorValuesUpTo is tensorValues for tensors of up to limit elements; it also returns the
// tensor's data type.
func tensorValuesUpTo(b []byte, limit int64) (name string, v []float64, dtype uint64, ok bool) {
	fs, err := fields(b)
	if err != nil {
		return "", nil, 0, false
	}
	var raw []byte
	var dims []int64
	for _, f := range fs {
		switch {
		case f.num == proto.FieldTensorName && f.typ == protowire.BytesType:
			name = string(f.val)
		case f.num == proto.FieldTensorDataType && f.typ == protowire.VarintType:
			dtype = f.v
		case f.num == proto.FieldTensorDims && (f.typ == protowire.VarintType || f.typ == protowire.BytesType):
			var ok bool
			if dims, ok = appendDims(dims, f); !ok {
				return "", nil, 0, false
			}
		case f.num == proto.FieldTensorRaw && f.typ == protowire.BytesType:
			raw = f.val
		case f.num == proto.FieldTensorExternal:
			return "", nil, 0, false
		case f.num == fieldTensorFloatData && f.typ == protowire.Fixed32Type:
			v = append(v, float64(math.Float32frombits(binary.LittleEndian.Uint32(f.raw[len(f.raw)-4:]))))
		case f.num == fieldTensorFloatData && f.typ == protowire.BytesType:
			for d := f.val; len(d) >= 4; d = d[4:] {
				v = append(v, float64(math.Float32frombits(binary.LittleEndian.Uint32(d))))
			}
		case (f.num == fieldTensorInt64Data || f.num == fieldTensorInt32Data) && f.typ == protowire.VarintType:
			v = append(v, float64(int64(f.v)))
		case (f.num == fieldTensorInt64Data || f.num == fieldTensorInt32Data) && f.typ == protowire.BytesType:
			for d := f.val; len(d) > 0; {
				x, n := protowire.ConsumeVarint(d)
				if n < 0 {
					return "", nil, 0, false
				}
				v, d = append(v, float64(int64(x))), d[n:]
			}
		case f.num == fieldTensorDoubleData && f.typ == protowire.Fixed64Type:
			v = append(v, math.Float64frombits(binary.LittleEndian.Uint64(f.raw[len(f.raw)-8:])))
		}
	}
	numel := int64(1)
	for _, d := range dims {
		numel *= d
	}
	if numel > limit || numel < 0 {
		return "", nil, 0, false
	}
	if raw != nil {
		v = nil
		size := map[uint64]int{1: 4, 6: 4, 7: 8, 10: 2, 11: 8}[dtype]
		if size == 0 || int64(len(raw)) != numel*int64(size) {
			return "", nil, 0, false
		}
		for d := raw; len(d) > 0; d = d[size:] {
			switch dtype {
			case 1:
				v = append(v, float64(math.Float32frombits(binary.LittleEndian.Uint32(d))))
			case 6:
				v = append(v, float64(int32(binary.LittleEndian.Uint32(d))))
			case 7:
				v = append(v, float64(int64(binary.LittleEndian.Uint64(d))))
			case 10:
				v = append(v, float64(proto.Float16ToFloat32(binary.LittleEndian.Uint16(d))))
			case 11:
				v = append(v, math.Float64frombits(binary.LittleEndian.Uint64(d)))
			}
		}
	}
	if int64(len(v)) != numel {
		return "", nil, 0, false
	}
	return name, v, dtype, true
}

// initTypes maps the graph's initializers to their TensorProto data types.
func initTypes(gfs []field) map[string]uint64 {
	out := map[string]uint64{}
	for _, f := range gfs {
		if f.num != proto.FieldGraphInitializer || f.typ != protowire.BytesType {
			continue
		}
		if name, dtype, ok := tensorHeader(f.val); ok {
			out[name] = dtype
		}
	}
	return out
}

// tensorHeader reads a TensorProto's name and data type, whatever its size or storage.
func tensorHeader(b []byte) (name string, dtype uint64, ok bool) {
	tfs, err := fields(b)
	if err != nil {
		return "", 0, false
	}
	for _, t := range tfs {
		switch {
		case t.num == proto.FieldTensorName && t.typ == protowire.BytesType:
			name = string(t.val)
		case t.num == proto.FieldTensorDataType && t.typ == protowire.VarintType:
			dtype = t.v
		}
	}
	return name, dtype, true
}

// constantTensor returns the TensorProto of a Constant node's value attribute.
func constantTensor(raw []byte) ([]byte, bool) {
	attrs, err := nodeAttrs(raw)
	if err != nil {
		return nil, false
	}
	for _, afs := range attrs {
		if attrNameOf(afs) != "value" {
			continue
		}
		for _, a := range afs {
			if a.num == proto.FieldAttrT && a.typ == protowire.BytesType {
				return a.val, true
			}
		}
	}
	return nil, false
}

// constType returns the data type of a constant tensor t (an initializer or a Constant
// node's output).
func (v *attnView) constType(t string) (uint64, bool) {
	if typ, ok := v.inits[t]; ok {
		return typ, true
	}
	i, ok := v.from(t, "Constant")
	if !ok {
		return 0, false
	}
	if tb, ok := constantTensor(v.nodes[i].raw); ok {
		_, typ, ok := tensorHeader(tb)
		return typ, ok
	}
	attrs, err := nodeAttrs(v.nodes[i].raw)
	if err != nil {
		return 0, false
	}
	for _, afs := range attrs {
		switch attrNameOf(afs) {
		case "value_float", "value_floats":
			return 1, true
		case "value_int", "value_ints":
			return 7, true
		}
	}
	return 0, false
}

// floatValues reads the constant t of at most limit elements stored inline (an initializer
// or a Constant node's value).
func (v *attnView) floatValues(t string, limit int) ([]float64, bool) {
	for _, f := range v.gfs {
		if f.num == proto.FieldGraphInitializer && f.typ == protowire.BytesType {
			if name, _, ok := tensorHeader(f.val); ok && name == t {
				_, vals, _, ok := tensorValuesUpTo(f.val, int64(limit))
				return vals, ok
			}
		}
	}
	i, ok := v.from(t, "Constant")
	if !ok {
		return nil, false
	}
	tb, ok := constantTensor(v.nodes[i].raw)
	if !ok {
		return nil, false
	}
	_, vals, _, ok := tensorValuesUpTo(tb, int64(limit))
	return vals, ok
}
