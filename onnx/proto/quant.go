package proto

import (
	"fmt"
	"strings"
)

// Quantization names how a graph's weights are quantized, as the published files are known:
// "q4", "q4f16", "int4 (onnxruntime-genai)" or "int8", with the facts that decide its speed on
// the CPU; "" for a float graph.
func (mi *ModelInfo) Quantization() string {
	if len(mi.NBits) > 0 {
		var nb NBits
		most := 0
		for k, n := range mi.NBits {
			if n > most || n == most && k.AccuracyLevel < nb.AccuracyLevel {
				nb, most = k, n
			}
		}
		name := "q4"
		switch {
		case mi.Ops[OpKey("com.microsoft", "GroupQueryAttention")] > 0:
			name = "int4 (onnxruntime-genai)"
		case mi.hasFloat16KV():
			name = "q4f16"
		}
		if nb.Bits != 4 {
			name = fmt.Sprintf("%d-bit", nb.Bits)
		}
		parts := []string{fmt.Sprintf("%d-bit MatMulNBits", nb.Bits), fmt.Sprintf("block %d", nb.BlockSize)}
		if nb.ZeroPoints {
			parts = append(parts, "zero points")
		} else {
			parts = append(parts, "symmetric")
		}
		switch nb.AccuracyLevel {
		case 0:
			parts = append(parts, "accuracy_level unset (float32 compute)")
		case 4:
			parts = append(parts, "accuracy_level 4 (int8 compute)")
		default:
			parts = append(parts, fmt.Sprintf("accuracy_level %d", nb.AccuracyLevel))
		}
		return name + ": " + strings.Join(parts, ", ")
	}
	switch {
	case mi.Ops["MatMulInteger"] > 0:
		return "int8: MatMulInteger with dynamically quantized activations"
	case mi.Ops["QLinearMatMul"] > 0 || mi.Ops["DequantizeLinear"] > 0:
		return "int8: QDQ (QuantizeLinear/DequantizeLinear)"
	}
	return ""
}

// hasFloat16KV reports a float16 graph input with four dimensions (a KV cache tensor).
func (mi *ModelInfo) hasFloat16KV() bool {
	for _, in := range mi.Inputs {
		if in.ElemType == "float16" && len(in.Dims) == 4 {
			return true
		}
	}
	return false
}
