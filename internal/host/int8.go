package host

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// Int8PromptsRefused says why this processor cannot run prompts on 8-bit weights exactly,
// or "" where it can (inference.LoadOptions.PromptInt8). On x86 without VNNI, ONNX Runtime's
// kernel for 8-bit activations times 8-bit weights (MLAS's U8S8 QGEMM) multiplies with
// vpmaddubsw, which adds each pair of products in 16 bits and saturates: with activations of
// 1–255 (zero point 128) and weights of ±127 a pair reaches 64,770, twice what 16 bits hold,
// so results would be silently wrong. VNNI (AVX512-VNNI, AVX-VNNI) adds in 32 bits; Arm's
// kernels widen before they add.
func Int8PromptsRefused() string {
	return int8Refusal(runtime.GOARCH, cpu.X86.HasAVX512VNNI, cpu.X86.HasAVXVNNI)
}

// int8Refusal is Int8PromptsRefused for a processor of architecture arch with or without
// each kind of VNNI.
func int8Refusal(arch string, avx512VNNI, avxVNNI bool) string {
	if arch != "amd64" && arch != "386" || avx512VNNI || avxVNNI {
		return ""
	}
	return "this processor has no VNNI instructions, without which ONNX Runtime's 8-bit kernel overflows on these weights"
}
