// Package rss reads the process's memory for the bench command's figures: the resident size
// and its peak (VmHWM), which count clean file pages the kernel can take back by itself, and
// the private memory, which it cannot (RssAnon on Linux, private bytes on Windows). The
// resident peak can be reset on Linux only; elsewhere Supported is false.
package rss

import (
	"sync"
	"time"
)

// Supported says whether ResetPeak and Peak work on this platform.
const Supported = supported

// PrivateSupported says whether Private works on this platform.
const PrivateSupported = privateSupported

// ResetPeak starts a new peak measurement at the current resident size.
func ResetPeak() error { return resetPeak() }

// Peak is the most memory resident since the last ResetPeak (or the process start), in bytes.
func Peak() (int64, error) { return status("VmHWM") }

// Current is the memory resident now, in bytes.
func Current() (int64, error) { return status("VmRSS") }

// Private is the process's private memory now, in bytes: its resident anonymous pages on
// Linux (RssAnon: heap, ONNX Runtime's arena and pre-packed weights, KV cache), its private
// bytes on Windows (what no other process or file can give back).
func Private() (int64, error) { return private() }

// SamplePrivate samples Private every interval until the returned function is called, which
// returns the highest value seen (the kernel keeps no peak of it); later calls return it
// again. It is 0 where Private is not supported.
func SamplePrivate(every time.Duration) (stop func() int64) {
	var (
		mu   sync.Mutex
		peak int64
	)
	sample := func() {
		if n, err := Private(); err == nil {
			mu.Lock()
			peak = max(peak, n)
			mu.Unlock()
		}
	}
	sample()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	var once sync.Once
	return func() int64 {
		once.Do(func() {
			close(done)
			<-finished
			sample()
		})
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
