package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessCountsWork spins for 50 ms of wall time on this goroutine and checks that the
// process's CPU time grew by at least a part of it (the scheduler may hand the core away,
// so the bound is loose) and by no more than the cores could give.
func TestProcessCountsWork(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Skipf("no CPU time on %s", runtime.GOOS)
	}
	start := time.Now()
	x := 0
	for time.Since(start) < 50*time.Millisecond {
		x++
	}
	after, _ := Process()
	wall := time.Since(start)
	used := after - before
	if used < 5*time.Millisecond || used > wall*time.Duration(runtime.NumCPU())+20*time.Millisecond {
		t.Fatalf("CPU time grew by %v over %v of spinning (%d iterations)", used, wall, x)
	}
	if Used() < after {
		t.Fatalf("Used went back: %v after %v", Used(), after)
	}
}
