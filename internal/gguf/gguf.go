// Package gguf writes and reads GGUF files (version 3), the model format of llama.cpp: typed
// key-value metadata, then tensor descriptions, then aligned tensor data.
package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// Magic is "GGUF" read as a little-endian uint32.
const Magic = 0x46554747

// Alignment of the tensor data (general.alignment's default).
const Alignment = 32

// Metadata value types.
const (
	typeUint32  = 4
	typeInt32   = 5
	typeFloat32 = 6
	typeBool    = 7
	typeString  = 8
	typeArray   = 9
	typeUint64  = 10
)

// TensorType is a ggml tensor type.
type TensorType uint32

// The ggml types written here.
const (
	F32  TensorType = 0
	F16  TensorType = 1
	Q4_0 TensorType = 2
)

// Q4_0BlockBytes is one Q4_0 block: a float16 scale and 16 bytes of 32 nibbles (element j low,
// j+16 high).
const Q4_0BlockBytes = 18

// Tensor is one tensor: Dims in ggml order (Dims[0] is the contiguous one) and its raw data.
type Tensor struct {
	Name string
	Type TensorType
	Dims []uint64
	Data []byte
}

// File is the content of a GGUF file. Metadata values are uint32, int32, float32, bool,
// string, uint64, []string or []int32.
type File struct {
	Metadata map[string]any
	Tensors  []Tensor
}

// WriteFile writes f to path.
func (f *File) WriteFile(path string) (err error) {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	w := bufio.NewWriterSize(out, 1<<20)
	if err := f.write(w); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return w.Flush()
}

type writer struct {
	w   io.Writer
	n   int64
	err error
}

func (w *writer) put(v any) {
	if w.err != nil {
		return
	}
	w.err = binary.Write(w.w, binary.LittleEndian, v)
	w.n += int64(binary.Size(v))
}

func (w *writer) str(s string) {
	w.put(uint64(len(s)))
	if w.err == nil {
		_, w.err = io.WriteString(w.w, s)
		w.n += int64(len(s))
	}
}

func (w *writer) pad() {
	if r := w.n % Alignment; r != 0 {
		w.put(make([]byte, Alignment-r))
	}
}

func (f *File) write(out io.Writer) error {
	w := &writer{w: out}
	w.put(uint32(Magic))
	w.put(uint32(3))
	w.put(uint64(len(f.Tensors)))
	w.put(uint64(len(f.Metadata)))
	keys := make([]string, 0, len(f.Metadata))
	for k := range f.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w.str(k)
		if err := w.value(f.Metadata[k]); err != nil {
			return fmt.Errorf("metadata %s: %w", k, err)
		}
	}
	var off uint64
	for _, t := range f.Tensors {
		w.str(t.Name)
		w.put(uint32(len(t.Dims)))
		w.put(t.Dims)
		w.put(uint32(t.Type))
		w.put(off)
		off += (uint64(len(t.Data)) + Alignment - 1) / Alignment * Alignment
	}
	w.pad()
	for _, t := range f.Tensors {
		w.put(t.Data)
		w.pad()
	}
	return w.err
}

func (w *writer) value(v any) error {
	switch x := v.(type) {
	case uint32:
		w.put(uint32(typeUint32))
		w.put(x)
	case int32:
		w.put(uint32(typeInt32))
		w.put(x)
	case float32:
		w.put(uint32(typeFloat32))
		w.put(x)
	case bool:
		w.put(uint32(typeBool))
		w.put(x)
	case string:
		w.put(uint32(typeString))
		w.str(x)
	case uint64:
		w.put(uint32(typeUint64))
		w.put(x)
	case []string:
		w.put(uint32(typeArray))
		w.put(uint32(typeString))
		w.put(uint64(len(x)))
		for _, s := range x {
			w.str(s)
		}
	case []int32:
		w.put(uint32(typeArray))
		w.put(uint32(typeInt32))
		w.put(uint64(len(x)))
		w.put(x)
	default:
		return fmt.Errorf("unsupported metadata type %T", v)
	}
	return nil
}

// Float32Data encodes float32 values.
func Float32Data(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}
