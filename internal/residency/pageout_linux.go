package residency

import (
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// pageOutEvery is how often Loading pages out: pre-packing reads a few hundred MB/s, so a
	// few MB of the table are resident at a time.
	pageOutEvery = 10 * time.Millisecond
	// pageOutMin is the smallest mapping Loading pages out. ONNX Runtime maps each external
	// initializer on its own and unmaps the ones it pre-packs; only a table that stays mapped
	// for a second consumer (a tied embedding's Gather) is large and long-lived.
	pageOutMin = 32 << 20
)

func pageOutWhile(dir string, f func()) {
	abs, err := canonical(dir)
	if err != nil {
		f()
		return
	}
	prefix := dirPrefix(abs)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(pageOutEvery)
		defer t.Stop()
		var buf []byte
		for {
			select {
			case <-done:
				return
			case <-t.C:
				var ok bool
				if buf, ok = pageOut(prefix, buf); !ok {
					return // the kernel has no MADV_PAGEOUT (before Linux 5.4)
				}
			}
		}
	}()
	defer func() {
		close(done)
		wg.Wait()
	}()
	f()
}

// pageOut pages out the large file mappings under prefix; false when the memory map cannot
// be read or the kernel refuses.
func pageOut(prefix string, buf []byte) ([]byte, bool) {
	b, under, err := mappingsUnder(prefix, buf)
	if err != nil {
		return b, false
	}
	for _, m := range under {
		if m.end-m.start >= pageOutMin && madvise(m, unix.MADV_PAGEOUT) == syscall.EINVAL {
			return b, false
		}
	}
	return b, true
}
