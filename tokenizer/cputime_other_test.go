//go:build !unix

package tokenizer

// cpuSeconds is not measured here; benchmarks then leave out their CPU-time figure.
func cpuSeconds() float64 { return 0 }
