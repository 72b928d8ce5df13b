package decoder

import (
	"fmt"

	"edgechat/internal/offheap"

	ort "github.com/yalue/onnxruntime_go"
)

// kvBuffers holds a dynamic decoder's KV cache: per layer a key and a value tensor of shape
// [1, heads, n, headDim], stored twice (ping-pong), because the graph writes present =
// concat(past, new) and cannot write into the buffer it reads. Capacity grows geometrically up
// to a maximum, so the decode loop allocates nothing per token. The buffers live off the Go
// heap (package offheap): a grown cache gives its old buffers back at once.
type kvBuffers struct {
	layers, heads, headDim int
	elem                   int // bytes per element
	dtype                  ort.TensorElementDataType
	maxTokens              int

	capTokens int
	cur       int         // which of the two buffer sets holds the cache
	bufs      [2][][]byte // [set][2*layer + 0 key | 1 value]
	n         int         // tokens cached
	touched   int         // most tokens the buffers have held: pages past it were never written
}

func newKVBuffers(layers, heads, headDim int, t string, maxTokens int) *kvBuffers {
	kv := &kvBuffers{layers: layers, heads: heads, headDim: headDim, maxTokens: maxTokens, elem: 4, dtype: ort.TensorElementDataTypeFloat}
	if t == "float16" {
		kv.elem, kv.dtype = 2, ort.TensorElementDataTypeFloat16
	}
	for s := range kv.bufs {
		kv.bufs[s] = make([][]byte, 2*layers)
	}
	return kv
}

// bytesPerToken is the cache size of one token over all layers, keys and values.
func (kv *kvBuffers) bytesPerToken() int { return 2 * kv.layers * kv.heads * kv.headDim * kv.elem }

// ensure grows both buffer sets to hold at least tokens, keeping the cached rows.
func (kv *kvBuffers) ensure(tokens int) error {
	if tokens > kv.maxTokens {
		return fmt.Errorf("the KV cache holds at most %d tokens; %d needed", kv.maxTokens, tokens)
	}
	if tokens <= kv.capTokens {
		return nil
	}
	c := max(kv.capTokens*2, 256, tokens)
	c = min(c, kv.maxTokens)
	size := kv.heads * c * kv.headDim * kv.elem
	for s := range kv.bufs {
		for i := range kv.bufs[s] {
			nb := offheap.Alloc(size)
			if s == kv.cur && kv.n > 0 {
				copy(nb, kv.bufs[s][i][:kv.heads*kv.n*kv.headDim*kv.elem])
			}
			offheap.Free(kv.bufs[s][i])
			kv.bufs[s][i] = nb
		}
	}
	kv.capTokens, kv.touched = c, kv.n
	return nil
}

// free gives the buffers back; the cache is empty afterwards.
func (kv *kvBuffers) free() {
	for s := range kv.bufs {
		for i, b := range kv.bufs[s] {
			offheap.Free(b)
			kv.bufs[s][i] = nil
		}
	}
	kv.capTokens, kv.n, kv.touched = 0, 0, 0
}

// held is the memory the buffers hold: both sets, up to the most tokens they have held (the
// pages past that, up to the capacity, were never touched and take no memory).
func (kv *kvBuffers) held() int64 {
	return 2 * int64(kv.touched) * int64(kv.bytesPerToken())
}

// tensors wraps buffer set s as [1, heads, tokens, headDim] tensors (no copy). An empty cache
// gets a one-byte backing slice, which ONNX Runtime accepts for a zero-sized tensor.
func (kv *kvBuffers) tensors(s, tokens int, dst []ort.Value) error {
	shape := ort.NewShape(1, int64(kv.heads), int64(tokens), int64(kv.headDim))
	n := kv.heads * tokens * kv.headDim * kv.elem
	for i, b := range kv.bufs[s] {
		data := b[:n]
		if n == 0 {
			data = b[:1]
		}
		t, err := ort.NewCustomDataTensor(shape, data, kv.dtype)
		if err != nil {
			return fmt.Errorf("KV tensor: %w", err)
		}
		dst[i] = t
	}
	return nil
}

// truncate keeps the first n cached tokens. Rows move within each head in place: the
// destination never passes the source, and copy handles the overlap.
func (kv *kvBuffers) truncate(n int) {
	if n >= kv.n {
		return
	}
	row := kv.headDim * kv.elem
	for _, b := range kv.bufs[kv.cur] {
		for h := 1; h < kv.heads; h++ {
			copy(b[h*n*row:(h*n+n)*row], b[h*kv.n*row:(h*kv.n+n)*row])
		}
	}
	kv.n = n
}
