// Package offheap allocates large, long-lived, pointer-free buffers (KV caches, prefill logits)
// outside the Go heap, and frees them the moment they are replaced.
//
// In the Go heap such a buffer costs twice: a dead one lingers until the collector and the
// scavenger get to it, and a live one raises the collector's goal (GOGC=100 lets the heap grow
// to twice what is live) so that as much garbage again may pile up. Off the heap, a grown KV
// cache returns its old buffers to the operating system at once. Where the platform has no
// anonymous mappings the buffers come from the Go heap, and Free leaves them to the collector.
package offheap

import (
	"sync"
	"unsafe"
)

var (
	mu     sync.Mutex
	mapped = map[*byte]int{} // first byte of each mapping → its length
)

// Alloc returns n zeroed bytes. n == 0 returns nil.
func Alloc(n int) []byte {
	if n <= 0 {
		return nil
	}
	if b := mapAnon(n); b != nil {
		mu.Lock()
		mapped[&b[0]] = len(b)
		mu.Unlock()
		return b[:n:n]
	}
	return make([]byte, n)
}

// Free returns a buffer from Alloc. After Free, nothing may use b or a slice of it. A buffer
// that came from the Go heap, and nil, are left to the collector.
func Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	first := &b[:1][0]
	mu.Lock()
	n, ok := mapped[first]
	delete(mapped, first)
	mu.Unlock()
	if ok {
		unmap(unsafe.Slice(first, n))
	}
}

// Floats views b as float32s (b's length must be a multiple of 4; the mapping is page-aligned
// and heap byte slices of that size are 8-aligned).
func Floats(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}
