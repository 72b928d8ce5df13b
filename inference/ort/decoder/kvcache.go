package decoder

import (
	"encoding/binary"
	"fmt"
	"math"

	"edgechat/internal/offheap"

	ort "github.com/yalue/onnxruntime_go"
)

// kvBuffers holds a dynamic decoder's KV cache: per layer a key and a value buffer laid out
// [1, heads, rows, headDim], in one of two ways:
//   - ping-pong (most graphs): the graph writes present = concat(past, new) and cannot write
//     into the buffer it reads, so the cache is kept twice and each run reads one set and
//     writes the other. A head's rows are packed: heads lie n rows apart.
//   - shared (GroupQueryAttention graphs, onnxruntime-genai's past_present_share_buffer): one
//     set of capTokens rows per head, bound as both past and present; the graph writes the new
//     rows in place after the n cached ones, so a run copies nothing and truncating is a length
//     change. Heads lie capTokens rows apart.
//
// Capacity grows geometrically up to a maximum, so the decode loop allocates nothing per token
// and memory committed stays within twice what the cache holds (Windows charges commit for a
// whole allocation). The buffers live off the Go heap (package offheap): a grown cache gives
// its old buffers back at once, and rows past the most ever cached are never touched.
type kvBuffers struct {
	layers, heads, headDim int
	elem                   int // bytes per element
	dtype                  ort.TensorElementDataType
	maxTokens              int
	shared                 bool

	capTokens int
	cur       int         // which buffer set holds the cache (always 0 when shared)
	bufs      [2][][]byte // [set][2*layer + 0 key | 1 value]
	n         int         // tokens cached
	touched   int         // most tokens the buffers have held: pages past it were never written
}

func newKVBuffers(layers, heads, headDim int, t string, maxTokens int, shared bool) *kvBuffers {
	kv := &kvBuffers{layers: layers, heads: heads, headDim: headDim, maxTokens: maxTokens, shared: shared, elem: 4, dtype: ort.TensorElementDataTypeFloat}
	switch t {
	case "float16":
		kv.elem, kv.dtype = 2, ort.TensorElementDataTypeFloat16
	case "int8": // GroupQueryAttention's quantized cache (see kvint8.go)
		kv.elem, kv.dtype = 1, ort.TensorElementDataTypeInt8
	}
	for s := range kv.bufs {
		kv.bufs[s] = make([][]byte, 2*layers)
	}
	return kv
}

// sets is the number of buffer sets in use: one when shared, two for ping-pong.
func (kv *kvBuffers) sets() int {
	if kv.shared {
		return 1
	}
	return 2
}

// stride is how many rows apart a head's rows lie in the set holding the cache.
func (kv *kvBuffers) stride() int {
	if kv.shared {
		return kv.capTokens
	}
	return kv.n
}

// rowBytes is the size of one row of one head.
func (kv *kvBuffers) rowBytes() int { return kv.headDim * kv.elem }

// bytesPerToken is the cache size of one token over all layers, keys and values.
func (kv *kvBuffers) bytesPerToken() int { return 2 * kv.layers * kv.heads * kv.headDim * kv.elem }

// copyRows copies the first n rows of every head from src, whose heads lie srcStride rows
// apart, to dst, whose heads lie dstStride rows apart. dst and src may be one buffer when
// dstStride ≤ srcStride (heads move towards the start, and copy handles the overlap).
func (kv *kvBuffers) copyRows(dst []byte, dstStride int, src []byte, srcStride, n int) {
	row := kv.rowBytes()
	for h := range kv.heads {
		copy(dst[h*dstStride*row:(h*dstStride+n)*row], src[h*srcStride*row:(h*srcStride+n)*row])
	}
}

// grow is the capacity ensure gives a cache of capTokens rows that must hold tokens: doubling
// (from 256) until it does. A prompt that fills the buffer to the row does not get a buffer
// of its own length: the first token decoded after it would then grow the cache again and
// copy every cached row (98 MB after 428 tokens of Qwen3-0.6B's float32 cache).
func (kv *kvBuffers) grow(capTokens, tokens int) int {
	c := max(capTokens*2, 256)
	for c < tokens {
		c *= 2
	}
	return min(c, kv.maxTokens)
}

// grown is the capacity the buffers reach while a prefill appends up to tokens in runs
// shorter than the capacity: doubling from the current one (or from 256).
func (kv *kvBuffers) grown(tokens int) int {
	c := kv.capTokens
	for c < min(tokens, kv.maxTokens) {
		c = kv.grow(c, 0)
	}
	return c
}

// ensure grows the buffers to hold at least tokens, keeping the cached rows.
func (kv *kvBuffers) ensure(tokens int) error {
	if tokens > kv.maxTokens {
		return fmt.Errorf("the KV cache holds at most %d tokens; %d needed", kv.maxTokens, tokens)
	}
	if tokens <= kv.capTokens {
		return nil
	}
	c := kv.grow(kv.capTokens, tokens)
	size := kv.heads * c * kv.rowBytes()
	stride, dstStride := kv.stride(), kv.n
	if kv.shared {
		dstStride = c
	}
	for s := range kv.sets() {
		for i, old := range kv.bufs[s] {
			nb := offheap.Alloc(size)
			if s == kv.cur && kv.n > 0 {
				kv.copyRows(nb, dstStride, old, stride, kv.n)
			}
			offheap.Free(old)
			kv.bufs[s][i] = nb
		}
	}
	kv.capTokens, kv.touched = c, kv.n
	return nil
}

// eachRow calls fn with every cached row of a float32 cache: the tensor's index (2·layer for
// a key, 2·layer+1 for a value), the head and its head_dim values (valid during the call).
func (kv *kvBuffers) eachRow(fn func(tensor, head int, row []float32)) {
	row := make([]float32, kv.headDim)
	for i, b := range kv.bufs[kv.cur] {
		for h := range kv.heads {
			for r := range kv.n {
				off := (h*kv.stride() + r) * kv.rowBytes()
				for d := range row {
					row[d] = math.Float32frombits(binary.LittleEndian.Uint32(b[off+4*d:]))
				}
				fn(i, h, row)
			}
		}
	}
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

// held is the memory the buffers hold: every set, up to the most tokens they have held (the
// pages past that, up to the capacity, were never touched and take no memory).
func (kv *kvBuffers) held() int64 {
	return int64(kv.sets()) * int64(kv.touched) * int64(kv.bytesPerToken())
}

// past wraps the cache as the run's past tensors (no copy), and present the tensors the run
// writes for L new rows: the other set, or with a shared buffer the same one. Call ensure(n+L)
// first.
func (kv *kvBuffers) past(dst []ort.Value) error { return kv.tensors(kv.cur, kv.n, dst) }

func (kv *kvBuffers) present(L int, dst []ort.Value) error {
	return kv.tensors(kv.sets()-1-kv.cur, kv.n+L, dst)
}

// advance records a run's L new rows as cached.
func (kv *kvBuffers) advance(L int) {
	if !kv.shared {
		kv.cur = 1 - kv.cur
	}
	kv.n += L
	kv.touched = max(kv.touched, kv.n)
}

// tensors wraps buffer set s as [1, heads, tokens, headDim] tensors (no copy); a shared set is
// wrapped whole, [1, heads, capTokens, headDim]. An empty cache gets a one-byte backing slice,
// which ONNX Runtime accepts for a zero-sized tensor.
func (kv *kvBuffers) tensors(s, tokens int, dst []ort.Value) error {
	if kv.shared {
		tokens = kv.capTokens
	}
	shape := ort.NewShape(1, int64(kv.heads), int64(tokens), int64(kv.headDim))
	n := kv.heads * tokens * kv.rowBytes()
	for i, b := range kv.bufs[s] {
		t, err := ort.NewCustomDataTensor(shape, b[:max(n, 1)], kv.dtype)
		if err != nil {
			return fmt.Errorf("KV tensor: %w", err)
		}
		dst[i] = t
	}
	return nil
}

// truncate keeps the first n cached tokens: a length change for a shared buffer; with
// ping-pong, each head's rows move towards the start in place.
func (kv *kvBuffers) truncate(n int) {
	if n >= kv.n {
		return
	}
	if !kv.shared {
		for _, b := range kv.bufs[kv.cur] {
			kv.copyRows(b, n, b, kv.n, n)
		}
	}
	kv.n = n
}

// save copies the cached rows of every tensor, packed (heads n rows apart).
func (kv *kvBuffers) save() [][]byte {
	out := make([][]byte, len(kv.bufs[kv.cur]))
	for i, b := range kv.bufs[kv.cur] {
		out[i] = make([]byte, kv.heads*kv.n*kv.rowBytes())
		kv.copyRows(out[i], kv.n, b, kv.stride(), kv.n)
	}
	return out
}

// load replaces the cache with n rows saved by save.
func (kv *kvBuffers) load(rows [][]byte, n int) error {
	kv.n = 0 // nothing cached need survive a growth
	if err := kv.ensure(n); err != nil {
		return err
	}
	kv.n = n
	for i, b := range rows {
		kv.copyRows(kv.bufs[kv.cur][i], kv.stride(), b, n, n)
	}
	kv.touched = max(kv.touched, n)
	return nil
}
