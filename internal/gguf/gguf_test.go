package gguf

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sample() *File {
	return &File{
		Metadata: map[string]any{
			"general.architecture": "qwen3", "qwen3.block_count": uint32(4), "qwen3.rope.freq_base": float32(1e6),
			"tokenizer.ggml.tokens": []string{"a", "b", "[PAD2]"}, "tokenizer.ggml.token_type": []int32{1, 1, 5},
			"tokenizer.ggml.add_bos_token": false, "n": int32(-3), "big": uint64(1 << 40),
		},
		Tensors: []Tensor{
			{Name: "token_embd.weight", Type: F32, Dims: []uint64{2, 3}, Data: Float32Data([]float32{1, 2, 3, 4, 5, 6})},
			{Name: "blk.0.attn_q.weight", Type: Q4_0, Dims: []uint64{32, 1}, Data: bytes.Repeat([]byte{7}, Q4_0BlockBytes)},
		},
	}
}

// TestRoundTrip writes a file and reads its header back: metadata, shapes, and tensor data
// at aligned offsets.
func TestRoundTrip(t *testing.T) {
	f := sample()
	var buf bytes.Buffer
	if err := f.write(&buf); err != nil {
		t.Fatal(err)
	}
	h, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f.Metadata, h.Metadata); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	for i, ti := range h.Tensors {
		want := f.Tensors[i]
		if ti.Offset%Alignment != 0 {
			t.Errorf("%s at offset %d, not aligned to %d", ti.Name, ti.Offset, Alignment)
		}
		got := buf.Bytes()[ti.Offset : ti.Offset+int64(len(want.Data))]
		if ti.Name != want.Name || ti.Type != want.Type || !cmp.Equal(ti.Dims, want.Dims) || !bytes.Equal(got, want.Data) {
			t.Errorf("tensor %d: %s %d %v, want %s %d %v (data equal: %v)", i, ti.Name, ti.Type, ti.Dims, want.Name, want.Type, want.Dims, bytes.Equal(got, want.Data))
		}
	}
}

func TestNotGGUF(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"onnx", []byte{0x08, 0x08, 0x12, 0x04}},
		{"huge count", append([]byte("GGUF\x03\x00\x00\x00"), bytes.Repeat([]byte{0xff}, 16)...)},
		{"truncated", []byte("GGUF\x03\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00")},
	} {
		if _, err := Read(bytes.NewReader(tc.data)); err == nil {
			t.Errorf("%s: read without error", tc.name)
		}
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	if err := sample().write(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, ti := range h.Tensors {
			if len(ti.Dims) > 8 {
				t.Fatalf("%d dims accepted", len(ti.Dims))
			}
		}
	})
}
