package main

import (
	"fmt"
	"path/filepath"
	"time"

	"edgechat/internal/cputime"
	"edgechat/onnx/proto"

	ort "github.com/yalue/onnxruntime_go"
)

// product is one batched matrix product of a decode step's attention, per KV head: a [kv, m, k]
// by b [kv, k, n].
type product struct {
	name     string
	op       string // MatMul (float32) or MatMulInteger (uint8 by int8, int32 out)
	a, b     []int64
	at, bt   proto.DataType
	aot, bot ort.TensorElementDataType
}

// integerProducts times the two products of one decode step's attention after past cached
// tokens (the query heads of a KV head as rows) as ONNX MatMulInteger on an int8 cache against
// float32 MatMul: q·Kᵀ with the queries as uint8 and the keys stored transposed
// [kv, head_dim, past] (or K·qᵀ with the keys as uint8 in their usual layout), and P·V with
// the probabilities as uint8; and, in float32, K·qᵀ and Vᵀ·Pᵀ, where the cache is the
// product's first operand and the queries or probabilities the small second one. ONNX Runtime runs
// MatMulInteger on MLAS's integer kernels (VNNI where the CPU has it); the figures bound what an
// attention made of standard operators over an int8 cache could cost, before the softmax, the
// quantising of q and P, and the cache's upkeep.
func integerProducts(dir string) error {
	g := int64(heads / kvHeads)
	T := int64(*past)
	ps := []product{
		{"q·Kᵀ float32", "MatMul", []int64{kvHeads, g, headDim}, []int64{kvHeads, headDim, T}, proto.Float, proto.Float, ort.TensorElementDataTypeFloat, ort.TensorElementDataTypeFloat},
		{"q·Kᵀ u8×s8", "MatMulInteger", []int64{kvHeads, g, headDim}, []int64{kvHeads, headDim, T}, proto.Uint8, proto.Int8, ort.TensorElementDataTypeUint8, ort.TensorElementDataTypeInt8},
		{"K·qᵀ u8×s8", "MatMulInteger", []int64{kvHeads, T, headDim}, []int64{kvHeads, headDim, g}, proto.Uint8, proto.Int8, ort.TensorElementDataTypeUint8, ort.TensorElementDataTypeInt8},
		{"P·V float32", "MatMul", []int64{kvHeads, g, T}, []int64{kvHeads, T, headDim}, proto.Float, proto.Float, ort.TensorElementDataTypeFloat, ort.TensorElementDataTypeFloat},
		{"K·qᵀ float32", "MatMul", []int64{kvHeads, T, headDim}, []int64{kvHeads, headDim, g}, proto.Float, proto.Float, ort.TensorElementDataTypeFloat, ort.TensorElementDataTypeFloat},
		{"Vᵀ·Pᵀ float32", "MatMul", []int64{kvHeads, headDim, T}, []int64{kvHeads, T, g}, proto.Float, proto.Float, ort.TensorElementDataTypeFloat, ort.TensorElementDataTypeFloat},
		{"P·V u8×s8", "MatMulInteger", []int64{kvHeads, g, T}, []int64{kvHeads, T, headDim}, proto.Uint8, proto.Int8, ort.TensorElementDataTypeUint8, ort.TensorElementDataTypeInt8},
	}
	fmt.Printf("The products of one decode step's attention after %d cached tokens, %d threads, %d runs each:\n", *past, *threads, *iters)
	for _, p := range ps {
		cpu, err := timeProduct(dir, p)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		fmt.Printf("  %-14s CPU %6.0f µs a call (%5.1f ms for 28 layers)\n", p.name, float64(cpu.Microseconds()), float64(cpu.Microseconds())*28/1000)
	}
	return nil
}

// timeProduct is the CPU time one run of p takes, averaged over --iters runs after 5.
func timeProduct(dir string, p product) (time.Duration, error) {
	out := proto.Int32
	if p.op == "MatMul" {
		out = proto.Float
	}
	m := &proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}}, Graph: proto.Graph{
		Name:    "product",
		Inputs:  []proto.ValueInfo{{Name: "a", Type: p.at, Dims: proto.Dims(p.a[0], p.a[1], p.a[2])}, {Name: "b", Type: p.bt, Dims: proto.Dims(p.b[0], p.b[1], p.b[2])}},
		Outputs: []proto.ValueInfo{{Name: "y", Type: out, Dims: proto.Dims(p.a[0], p.a[1], p.b[2])}},
		Nodes:   []proto.Node{{Name: "product", OpType: p.op, Inputs: []string{"a", "b"}, Outputs: []string{"y"}}},
	}}
	path := filepath.Join(dir, "product.onnx")
	if err := m.WriteFile(path, proto.WriteOptions{}); err != nil {
		return 0, err
	}
	o, err := ort.NewSessionOptions()
	if err != nil {
		return 0, err
	}
	o.SetIntraOpNumThreads(*threads)
	o.SetInterOpNumThreads(1)
	if err := o.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
		return 0, err
	}
	s, err := ort.NewDynamicAdvancedSession(path, []string{"a", "b"}, []string{"y"}, o)
	o.Destroy()
	if err != nil {
		return 0, err
	}
	defer s.Destroy()
	tensor := func(dims []int64, t ort.TensorElementDataType) (ort.Value, error) {
		el := int64(1)
		if t == ort.TensorElementDataTypeFloat {
			el = 4
		}
		b := make([]byte, dims[0]*dims[1]*dims[2]*el)
		for i := range b {
			if t != ort.TensorElementDataTypeFloat || i%4 == 3 {
				b[i] = byte(i%7) + 0x30 // small values of either type
			}
		}
		return ort.NewCustomDataTensor(ort.NewShape(dims...), b, t)
	}
	a, err := tensor(p.a, p.aot)
	if err != nil {
		return 0, err
	}
	defer a.Destroy()
	b, err := tensor(p.b, p.bot)
	if err != nil {
		return 0, err
	}
	defer b.Destroy()
	var c0 time.Duration
	for i := range *iters + 5 {
		if i == 5 {
			c0 = cputime.Used()
		}
		if err := s.Run([]ort.Value{a, b}, []ort.Value{nil}); err != nil {
			return 0, err
		}
	}
	return (cputime.Used() - c0) / time.Duration(*iters), nil
}
