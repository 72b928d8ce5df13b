package decoder

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// resident is how many bytes of the page-aligned buffer b are in memory (mincore(2)).
func resident(t *testing.T, b []byte) int {
	t.Helper()
	page := os.Getpagesize()
	vec := make([]byte, (len(b)+page-1)/page)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n * page
}

// Growing the cache copies the cached rows of every head to their new places and touches no
// other page: the memory it takes is the rows cached, not the capacity (over three times them here)
// nor, with ping-pong, the second set, which the next run writes.
func TestKVGrowthTouchesOnlyCachedRows(t *testing.T) {
	const layers, heads, headDim, n = 4, 8, 128, 600
	for _, shared := range []bool{true, false} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			kv := newKVBuffers(layers, heads, headDim, "float32", 4096, shared)
			defer kv.free()
			rows := make([][]byte, 2*layers)
			for i := range rows {
				rows[i] = make([]byte, heads*n*headDim*4)
				for j := range rows[i] {
					rows[i][j] = byte(i + j*7)
				}
			}
			if err := kv.load(rows, n); err != nil {
				t.Fatal(err)
			}
			if kv.capTokens != 1024 {
				t.Fatalf("capacity %d for %d rows, want 1024", kv.capTokens, n)
			}
			if err := kv.ensure(1100); err != nil { // 1024 → 2048 rows
				t.Fatal(err)
			}
			if kv.capTokens != 2048 {
				t.Fatalf("capacity %d, want 2048", kv.capTokens)
			}
			got := 0
			for s := range kv.bufs {
				for _, b := range kv.bufs[s] {
					if b != nil {
						got += resident(t, b)
					}
				}
			}
			// Every head's rows start a page boundary or part-way into one: allow a page
			// at each end of each head.
			want, slack := n*kv.bytesPerToken(), 2*2*layers*heads*os.Getpagesize()
			if got < want || got > want+slack {
				t.Errorf("%.2f MB of the buffers are in memory; the cached rows are %.2f MB", float64(got)/1e6, float64(want)/1e6)
			}
			for i, b := range kv.save() {
				if !bytes.Equal(b, rows[i]) {
					t.Fatalf("tensor %d: rows changed across the growth", i)
				}
			}
		})
	}
}
