package attnop

import (
	"testing"

	"edgechat/onnx/proto"
)

// TestMatMulNodes counts the MatMulNBits nodes moved to the kernels' domain.
func TestMatMulNodes(t *testing.T) {
	tests := []struct {
		ops  map[string]int
		want int
	}{
		{map[string]int{proto.OpKey(Domain, "MatMulNBits"): 196, proto.OpKey("com.microsoft", "MatMulNBits"): 1}, 196},
		{map[string]int{proto.OpKey("com.microsoft", "MatMulNBits"): 197}, 0},
		{map[string]int{proto.OpKey(Domain, "GroupQueryAttention"): 28, proto.OpKey(DomainInt8, "MatMulNBits"): 3}, 0},
	}
	for _, tc := range tests {
		if got := MatMulNodes(&proto.ModelInfo{Ops: tc.ops}); got != tc.want {
			t.Errorf("MatMulNodes(%v) = %d, want %d", tc.ops, got, tc.want)
		}
	}
}

// TestAttentionNodes counts the attention nodes a shared KV buffer needs: ONNX Runtime's and those
// moved to the kernels' domains.
func TestAttentionNodes(t *testing.T) {
	tests := []struct {
		ops  map[string]int
		want int
	}{
		{map[string]int{proto.OpKey("com.microsoft", "GroupQueryAttention"): 28}, 28},
		{map[string]int{proto.OpKey(Domain, "GroupQueryAttention"): 28}, 28},
		{map[string]int{proto.OpKey(DomainInt8, "GroupQueryAttention"): 27, proto.OpKey("com.microsoft", "GroupQueryAttention"): 1}, 28},
		{map[string]int{proto.OpKey("com.microsoft", "MultiHeadAttention"): 28, "Attention": 2}, 0},
	}
	for _, tc := range tests {
		if got := AttentionNodes(&proto.ModelInfo{Ops: tc.ops}); got != tc.want {
			t.Errorf("AttentionNodes(%v) = %d, want %d", tc.ops, got, tc.want)
		}
	}
}
