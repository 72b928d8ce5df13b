package rss

import (
	"testing"
	"time"

	"edgechat/internal/offheap"
)

func TestParseStatus(t *testing.T) {
	s := "Name:\tx\nVmHWM:\t  1234 kB\nVmRSS:\t   99 kB\nBad:\t12 MB\n"
	for _, c := range []struct {
		key  string
		want int64
		err  bool
	}{{"VmHWM", 1234 << 10, false}, {"VmRSS", 99 << 10, false}, {"Bad", 0, true}, {"Missing", 0, true}} {
		got, err := parseStatus(s, c.key)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s: got %d, %v; want %d, error %v", c.key, got, err, c.want, c.err)
		}
	}
}

// TestPeakFollowsTouchedMemory touches 64 MB, checks the peak saw it, frees it, resets the
// peak and checks the new peak is below the old one.
func TestPeakFollowsTouchedMemory(t *testing.T) {
	const n = 64 << 20
	before, err := Current()
	if err != nil {
		t.Fatal(err)
	}
	b := offheap.Alloc(n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	peak, err := Peak()
	if err != nil {
		t.Fatal(err)
	}
	if peak < before+n*9/10 {
		t.Fatalf("peak %d MB after touching 64 MB on top of %d MB", peak>>20, before>>20)
	}
	offheap.Free(b)
	if err := ResetPeak(); err != nil {
		t.Fatal(err)
	}
	after, err := Peak()
	if err != nil {
		t.Fatal(err)
	}
	if after > peak-n/2 {
		t.Fatalf("peak after freeing 64 MB and resetting: %d MB, was %d MB", after>>20, peak>>20)
	}
}

// TestPrivateSeesAnonymousMemory touches 64 MB of anonymous memory while sampling: both the
// private figure and its sampled peak must see it.
func TestPrivateSeesAnonymousMemory(t *testing.T) {
	const n = 64 << 20
	before, err := Private()
	if err != nil {
		t.Fatal(err)
	}
	stop := SamplePrivate(time.Millisecond)
	b := offheap.Alloc(n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	now, err := Private()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a few samples while the memory is held
	offheap.Free(b)
	peak := stop()
	if now < before+n*9/10 || peak < before+n*9/10 {
		t.Fatalf("private %d MB before, %d MB with 64 MB touched, sampled peak %d MB", before>>20, now>>20, peak>>20)
	}
}
