// Package onnxproto reads and writes the small part of the ONNX protobuf format that EdgeChat
// needs: it writes whole models for tests and tools, and reads a model's interface (inputs,
// outputs, operators, metadata) without loading its weights.
package proto

import "fmt"

// DataType is an ONNX TensorProto.DataType value.
type DataType int32

// The ONNX element types EdgeChat meets.
const (
	Undefined DataType = 0
	Float     DataType = 1
	Uint8     DataType = 2
	Int8      DataType = 3
	Uint16    DataType = 4
	Int16     DataType = 5
	Int32     DataType = 6
	Int64     DataType = 7
	String    DataType = 8
	Bool      DataType = 9
	Float16   DataType = 10
	Double    DataType = 11
	Uint32    DataType = 12
	Uint64    DataType = 13
	BFloat16  DataType = 16
	Uint4     DataType = 21
	Int4      DataType = 22
)

var typeNames = map[DataType]string{
	Undefined: "undefined", Float: "float32", Uint8: "uint8", Int8: "int8", Uint16: "uint16",
	Int16: "int16", Int32: "int32", Int64: "int64", String: "string", Bool: "bool",
	Float16: "float16", Double: "float64", Uint32: "uint32", Uint64: "uint64",
	BFloat16: "bfloat16", Uint4: "uint4", Int4: "int4",
}

// String names the type the way EdgeChat reports it: "float32", "float16", "int64", ….
func (d DataType) String() string {
	if s, ok := typeNames[d]; ok {
		return s
	}
	return fmt.Sprintf("type(%d)", int32(d))
}

// Size is the size in bytes of one element, or 0 for types without a fixed byte size.
func (d DataType) Size() int {
	switch d {
	case Uint8, Int8, Bool:
		return 1
	case Uint16, Int16, Float16, BFloat16:
		return 2
	case Float, Int32, Uint32:
		return 4
	case Int64, Uint64, Double:
		return 8
	}
	return 0
}

// Dim is one dimension of a shape: a fixed Value, or a symbolic Param such as "batch_size".
// A Dim with neither is unknown.
type Dim struct {
	Value int64
	Param string
}

// String prints a fixed dimension as its number and a symbolic one as its name.
func (d Dim) String() string {
	switch {
	case d.Param != "":
		return d.Param
	case d.Value > 0:
		return fmt.Sprint(d.Value)
	}
	return "?"
}

// Dims builds a shape from numbers (fixed) and strings (symbolic): Dims("batch_size", 8, "past", 128).
func Dims(ds ...any) []Dim {
	out := make([]Dim, len(ds))
	for i, d := range ds {
		switch v := d.(type) {
		case string:
			out[i] = Dim{Param: v}
		case int:
			out[i] = Dim{Value: int64(v)}
		case int64:
			out[i] = Dim{Value: v}
		default:
			panic(fmt.Sprintf("onnxproto.Dims: %T is neither a number nor a name", d))
		}
	}
	return out
}

// Opset is one operator set import: Domain "" (or "ai.onnx") is the standard one.
type Opset struct {
	Domain  string
	Version int64
}

// ValueInfo declares a graph input or output: a tensor of Type with shape Dims.
type ValueInfo struct {
	Name string
	Type DataType
	Dims []Dim
}

// AttrType is an ONNX AttributeProto.AttributeType value.
type AttrType int32

// Attribute types the writer supports.
const (
	AttrFloat  AttrType = 1
	AttrInt    AttrType = 2
	AttrString AttrType = 3
	AttrTensor AttrType = 4
	AttrGraph  AttrType = 5
	AttrFloats AttrType = 6
	AttrInts   AttrType = 7
)

// Attr is one node attribute; Type says which value field is set.
type Attr struct {
	Name   string
	Type   AttrType
	Float  float32
	Int    int64
	String string
	Tensor *Tensor
	Graph  *Graph // a subgraph (If's branches, Loop's body)
	Floats []float32
	Ints   []int64
}

// IntAttr, FloatAttr, … build attributes.
func IntAttr(name string, v int64) Attr         { return Attr{Name: name, Type: AttrInt, Int: v} }
func FloatAttr(name string, v float32) Attr     { return Attr{Name: name, Type: AttrFloat, Float: v} }
func StringAttr(name, v string) Attr            { return Attr{Name: name, Type: AttrString, String: v} }
func IntsAttr(name string, v ...int64) Attr     { return Attr{Name: name, Type: AttrInts, Ints: v} }
func FloatsAttr(name string, v ...float32) Attr { return Attr{Name: name, Type: AttrFloats, Floats: v} }
func TensorAttr(name string, t *Tensor) Attr    { return Attr{Name: name, Type: AttrTensor, Tensor: t} }
func GraphAttr(name string, g *Graph) Attr      { return Attr{Name: name, Type: AttrGraph, Graph: g} }

// Node is one operator call. Domain "" is the standard ONNX domain; an empty input name marks
// an omitted optional input.
type Node struct {
	Name    string
	OpType  string
	Domain  string
	Inputs  []string
	Outputs []string
	Attrs   []Attr
}

// Graph is a model's computation: nodes in topological order, its interface and its weights.
type Graph struct {
	Name         string
	Nodes        []Node
	Inputs       []ValueInfo
	Outputs      []ValueInfo
	Initializers []*Tensor
}

// Model is a whole ONNX model.
type Model struct {
	IRVersion       int64
	Producer        string
	ProducerVersion string
	Opsets          []Opset
	Graph           Graph
	// Metadata becomes metadata_props, written in key order.
	Metadata map[string]string
}
