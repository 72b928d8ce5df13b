package inference

import (
	"fmt"
	"strings"
)

// KVCache says how a model keeps its conversation's keys and values (LoadOptions.KVCache).
// The 8-bit caches run on the CPU only; elsewhere every choice is the 32-bit cache.
type KVCache uint8

const (
	// KVAuto, the zero value, keeps the cache in 8 bits with a scale per cached row where
	// EdgeChat's attention kernels run the model (the CPU provider on x86-64 with AVX2 and FMA or
	// on Arm64, an attention they take, the per-row copy loading), else in 32 bits. It never calibrates:
	// ONNX Runtime's per-channel cache is KV8's alone. Where it is 8-bit, decoding is faster at
	// every length (28-layer Qwen3-0.6B-shaped q4: 1.57× llama.cpp against 1.23–1.31× with
	// the 32-bit cache) and the cache a quarter the size, with logits slightly different.
	KVAuto KVCache = iota
	// KV32 keeps the float32 cache: the model's own logits.
	KV32
	// KV8 keeps the cache in 8 bits: per row where the kernels run, else ONNX Runtime's
	// per-channel int8 cache, whose scales a calibration run finds on the first load.
	KV8
)

// kvNames are the KV cache choices' names, as settings store them and flags take them.
var kvNames = [...]string{KVAuto: "auto", KV32: "32-bit", KV8: "8-bit"}

// String is the choice's name: "auto", "32-bit" or "8-bit".
func (k KVCache) String() string {
	if int(k) < len(kvNames) {
		return kvNames[k]
	}
	return fmt.Sprintf("KVCache(%d)", uint8(k))
}

// ParseKVCache reads a KV cache choice: its name (String), or "32" and "8" for the bits.
func ParseKVCache(s string) (KVCache, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for k, name := range kvNames {
		if t == name || t == strings.TrimSuffix(name, "-bit") {
			return KVCache(k), nil
		}
	}
	return KVAuto, fmt.Errorf("unknown KV cache %q: choose auto, 32-bit or 8-bit", s)
}
