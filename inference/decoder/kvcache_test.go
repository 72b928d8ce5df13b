package decoder

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"edgechat/internal/rss"
)

// Growing the cache copies the cached rows of every head to their new places and touches no
// other page: the private memory it takes is the rows cached, not the capacity (twice them
// here) nor, with ping-pong, the second set, which the next run writes.
func TestKVGrowthTouchesOnlyCachedRows(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("private memory is read from /proc/self/status")
	}
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
			runtime.GC()
			before, err := rss.Private()
			if err != nil {
				t.Fatal(err)
			}
			if err := kv.load(rows, n); err != nil {
				t.Fatal(err)
			}
			if err := kv.ensure(n + 500); err != nil { // 600 → 1200 rows
				t.Fatal(err)
			}
			after, err := rss.Private()
			if err != nil {
				t.Fatal(err)
			}
			if kv.capTokens != 2*n {
				t.Fatalf("capacity %d, want %d", kv.capTokens, 2*n)
			}
			want := int64(n * kv.bytesPerToken()) // 19.7 MB; the capacity is twice that
			if got := after - before; got < want*9/10 || got > want*11/10 {
				t.Errorf("growth took %.1f MB of private memory; the cached rows are %.1f MB", float64(got)/1e6, float64(want)/1e6)
			}
			for i, b := range kv.save() {
				if !bytes.Equal(b, rows[i]) {
					t.Fatalf("tensor %d: rows changed across the growth", i)
				}
			}
		})
	}
}
