package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// TensorInfo describes a tensor of a file read by Read; Offset is from the start of the file.
type TensorInfo struct {
	Name   string
	Type   TensorType
	Dims   []uint64
	Offset int64
}

// Header is a GGUF file's metadata and tensor descriptions.
type Header struct {
	Version  uint32
	Metadata map[string]any
	Tensors  []TensorInfo
}

// limits against corrupt files: no real file comes near them.
const (
	maxCount  = 1 << 24
	maxString = 1 << 26
)

type reader struct {
	r   io.Reader
	n   int64
	err error
}

func (r *reader) get(v any) {
	if r.err == nil {
		r.err = binary.Read(r.r, binary.LittleEndian, v)
		r.n += int64(binary.Size(v))
	}
}

func (r *reader) u32() uint32 { var v uint32; r.get(&v); return v }
func (r *reader) u64() uint64 { var v uint64; r.get(&v); return v }

func (r *reader) str() string {
	n := r.u64()
	if r.err != nil {
		return ""
	}
	if n > maxString {
		r.err = fmt.Errorf("string of %d bytes", n)
		return ""
	}
	b := make([]byte, n)
	_, r.err = io.ReadFull(r.r, b)
	r.n += int64(n)
	return string(b)
}

// Read reads a GGUF header (metadata and tensor descriptions) from r.
func Read(in io.Reader) (*Header, error) {
	r := &reader{r: in}
	if m := r.u32(); r.err == nil && m != Magic {
		return nil, fmt.Errorf("not a GGUF file (magic %#x)", m)
	}
	h := &Header{Version: r.u32(), Metadata: map[string]any{}}
	if r.err == nil && h.Version != 3 && h.Version != 2 {
		return nil, fmt.Errorf("GGUF version %d is not supported (2 or 3)", h.Version)
	}
	nt, nkv := r.u64(), r.u64()
	if r.err == nil && (nt > maxCount || nkv > maxCount) {
		return nil, fmt.Errorf("%d tensors and %d metadata entries: not a plausible GGUF file", nt, nkv)
	}
	for i := uint64(0); i < nkv && r.err == nil; i++ {
		k := r.str()
		h.Metadata[k] = r.value(r.u32(), 0)
	}
	for i := uint64(0); i < nt && r.err == nil; i++ {
		t := TensorInfo{Name: r.str()}
		nd := r.u32()
		if nd > 8 {
			return nil, fmt.Errorf("tensor %s has %d dimensions", t.Name, nd)
		}
		t.Dims = make([]uint64, nd)
		r.get(t.Dims)
		t.Type = TensorType(r.u32())
		t.Offset = int64(r.u64())
		h.Tensors = append(h.Tensors, t)
	}
	if r.err != nil {
		return nil, fmt.Errorf("read GGUF header: %w", r.err)
	}
	align := int64(Alignment)
	if a, ok := h.Metadata["general.alignment"].(uint32); ok && a > 0 {
		align = int64(a)
	}
	start := (r.n + align - 1) / align * align
	for i := range h.Tensors {
		h.Tensors[i].Offset += start
	}
	return h, nil
}

func (r *reader) value(typ uint32, depth int) any {
	switch typ {
	case 0, 1:
		var v uint8
		r.get(&v)
		return v
	case 2, 3:
		var v uint16
		r.get(&v)
		return v
	case typeUint32:
		return r.u32()
	case typeInt32:
		return int32(r.u32())
	case typeFloat32:
		return math.Float32frombits(r.u32())
	case typeBool:
		var v uint8
		r.get(&v)
		return v != 0
	case typeString:
		return r.str()
	case typeUint64, 11:
		return r.u64()
	case 12:
		return math.Float64frombits(r.u64())
	case typeArray:
		et, n := r.u32(), r.u64()
		if depth > 2 || n > maxCount {
			r.err = fmt.Errorf("array of %d elements", n)
			return nil
		}
		switch et {
		case typeString:
			out := make([]string, 0, min(n, 1024))
			for i := uint64(0); i < n && r.err == nil; i++ {
				out = append(out, r.str())
			}
			return out
		case typeInt32:
			out := make([]int32, 0, min(n, 1024))
			for i := uint64(0); i < n && r.err == nil; i++ {
				out = append(out, int32(r.u32()))
			}
			return out
		}
		out := make([]any, 0, min(n, 1024))
		for i := uint64(0); i < n && r.err == nil; i++ {
			out = append(out, r.value(et, depth+1))
		}
		return out
	}
	if r.err == nil {
		r.err = fmt.Errorf("unknown metadata type %d", typ)
	}
	return nil
}
