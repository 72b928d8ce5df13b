// Package membw measures how fast this machine reads memory: the ceiling of a decode step,
// which reads every weight of the model once per token.
package membw

import (
	"sync"
	"time"
)

// Read returns the memory read bandwidth in bytes per second with threads goroutines each
// summing its share of a buffer of size bytes (far larger than the caches), the best of
// passes passes after one that pages the buffer in. The sums use eight accumulators so that
// the loop waits on memory, not on its own additions.
func Read(threads, size, passes int) float64 {
	threads = max(threads, 1)
	words := make([]uint64, max(size/8, threads*64))
	for i := range words {
		words[i] = uint64(i)
	}
	share := len(words) / threads / 8 * 8
	var best float64
	var sink uint64
	var mu sync.Mutex
	for pass := 0; pass <= passes; pass++ {
		var wg sync.WaitGroup
		start := time.Now()
		for t := range threads {
			wg.Go(func() {
				s := sum(words[t*share : (t+1)*share])
				mu.Lock()
				sink += s
				mu.Unlock()
			})
		}
		wg.Wait()
		el := time.Since(start).Seconds()
		if pass > 0 && el > 0 {
			best = max(best, float64(threads*share*8)/el)
		}
	}
	if sink == 1 { // keeps the sums alive; never true for these contents
		best = 0
	}
	return best
}

// sum adds w (len a multiple of 8) with eight independent accumulators.
func sum(w []uint64) uint64 {
	var a0, a1, a2, a3, a4, a5, a6, a7 uint64
	for i := 0; i+8 <= len(w); i += 8 {
		b := w[i : i+8 : i+8]
		a0 += b[0]
		a1 += b[1]
		a2 += b[2]
		a3 += b[3]
		a4 += b[4]
		a5 += b[5]
		a6 += b[6]
		a7 += b[7]
	}
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
}
