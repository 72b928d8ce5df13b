package offheap

import (
	"runtime"
	"testing"
)

// Held is the number of bytes allocated off the heap and not yet freed.
func Held() int64 {
	mu.Lock()
	defer mu.Unlock()
	var n int64
	for _, l := range mapped {
		n += int64(l)
	}
	return n
}

func TestAllocFree(t *testing.T) {
	base := Held()
	for _, n := range []int{1, 4096, 5 << 20} {
		b := Alloc(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("Alloc(%d): len %d cap %d", n, len(b), cap(b))
		}
		for i := 0; i < n; i += 997 {
			if b[i] != 0 {
				t.Fatalf("Alloc(%d)[%d] = %d, want zeroed memory", n, i, b[i])
			}
			b[i] = 0xff
		}
		if runtime.GOOS != "windows" && Held() != base+int64(n) {
			t.Errorf("after Alloc(%d): Held %d, want %d", n, Held(), base+int64(n))
		}
		Free(b)
		if Held() != base {
			t.Errorf("after Free: Held %d, want %d", Held(), base)
		}
	}
}

func TestFreeIgnoresOtherMemory(t *testing.T) {
	Free(nil)
	heap := make([]byte, 64)
	Free(heap) // from the Go heap: left to the collector, not unmapped
	heap[0] = 1
	b := Alloc(8192)
	Free(b[4096:]) // not the start of an allocation: nothing happens
	b[0] = 1       // still mapped
	Free(b)
	if Alloc(0) != nil {
		t.Error("Alloc(0) is not nil")
	}
}

func TestFloats(t *testing.T) {
	b := Alloc(4 * 1000)
	defer Free(b)
	f := Floats(b)
	if len(f) != 1000 {
		t.Fatalf("len %d", len(f))
	}
	f[999] = 1.5
	if Floats(nil) != nil {
		t.Error("Floats(nil) is not nil")
	}
}
