package membw

import "testing"

// The sums are right, whatever the share, and a read of a small buffer gives a positive rate.
func TestRead(t *testing.T) {
	w := make([]uint64, 64)
	var want uint64
	for i := range w {
		w[i] = uint64(i * 3)
		want += w[i]
	}
	if got := sum(w); got != want {
		t.Fatalf("sum %d, want %d", got, want)
	}
	if bw := Read(2, 8<<20, 2); !(bw > 0) {
		t.Fatalf("bandwidth %g", bw)
	}
}

func BenchmarkRead(b *testing.B) {
	for b.Loop() {
		b.ReportMetric(Read(2, 512<<20, 3)/1e9, "GB/s")
	}
}
