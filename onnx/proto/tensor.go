package proto

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Tensor is a named constant tensor (an initializer or a tensor attribute). Its data is Raw in
// little-endian order, or lives in an external file when External is set.
type Tensor struct {
	Name     string
	DataType DataType
	Dims     []int64
	Raw      []byte
	External *ExternalData
}

// ExternalData locates a tensor's bytes in a file beside the model.
type ExternalData struct {
	Location string
	Offset   int64
	Length   int64
}

// NumElements is the product of the dimensions (1 for a scalar).
func (t *Tensor) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// FloatTensor makes a float32 tensor.
func FloatTensor(name string, dims []int64, data []float32) *Tensor {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return &Tensor{Name: name, DataType: Float, Dims: dims, Raw: raw}
}

// Float16Tensor makes a float16 tensor from float32 values (rounded to nearest even).
func Float16Tensor(name string, dims []int64, data []float32) *Tensor {
	return &Tensor{Name: name, DataType: Float16, Dims: dims, Raw: Float16Bytes(data)}
}

// Int64Tensor makes an int64 tensor.
func Int64Tensor(name string, dims []int64, data []int64) *Tensor {
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return &Tensor{Name: name, DataType: Int64, Dims: dims, Raw: raw}
}

// Int32Tensor makes an int32 tensor.
func Int32Tensor(name string, dims []int64, data []int32) *Tensor {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
	}
	return &Tensor{Name: name, DataType: Int32, Dims: dims, Raw: raw}
}

// Floats decodes a float32 or float16 tensor's in-memory data as float32 values.
func (t *Tensor) Floats() ([]float32, error) {
	switch t.DataType {
	case Float:
		out := make([]float32, len(t.Raw)/4)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Raw[4*i:]))
		}
		return out, nil
	case Float16:
		return FromFloat16Bytes(t.Raw), nil
	}
	return nil, fmt.Errorf("tensor %s is %s, not float32 or float16", t.Name, t.DataType)
}

// Float32ToFloat16 converts to IEEE half precision, rounding to nearest even; values beyond the
// half range become ±Inf and NaN stays NaN.
func Float32ToFloat16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15: // overflow
		return sign | 0x7c00
	case exp-127 >= -14: // normal half
		h := uint32(exp-127+15)<<10 | man>>13
		rest := man & 0x1fff
		if rest > 0x1000 || (rest == 0x1000 && h&1 == 1) {
			h++ // may carry into the exponent, up to Inf: that is the right result
		}
		return sign | uint16(h)
	case exp-127 >= -25: // subnormal half
		m := man | 0x800000 // implicit bit
		shift := uint32(-(exp - 127) - 14 + 13)
		h := m >> shift
		rest := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || (rest == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	return sign // underflow to ±0
}

// Float16ToFloat32 converts an IEEE half to float32 exactly.
func Float16ToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(man) / (1 << 24) // subnormal: man × 2^-24
		if sign != 0 {
			return -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// Float16Bytes encodes float32 values as little-endian float16 bytes.
func Float16Bytes(data []float32) []byte {
	raw := make([]byte, 2*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint16(raw[2*i:], Float32ToFloat16(v))
	}
	return raw
}

// FromFloat16Bytes decodes little-endian float16 bytes (a trailing odd byte is ignored).
func FromFloat16Bytes(raw []byte) []float32 {
	out := make([]float32, len(raw)/2)
	for i := range out {
		out[i] = Float16ToFloat32(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	return out
}
