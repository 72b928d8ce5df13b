//go:build cgo && (amd64 || arm64) && (linux || windows)

package attnop

import (
	"strings"
	"testing"
)

// TestBadShapesFail runs the operators on inputs whose shapes or lengths do not fit together:
// each call must fail with the operator's error, not write out of bounds or crash.
func TestBadShapesFail(t *testing.T) {
	initORT(t)
	odd := shape{2, 1, 8}
	ks, vs := scales(small)
	tests := []struct {
		name  string
		c     call
		short bool // k_scale and v_scale one value short
		want  string
	}{
		{"total past the buffer", call{sh: small, past: 10, newRows: 1, rows: 8}, false, "fit both the KV buffer"},
		{"prompt past the buffer", call{sh: small, past: 0, newRows: 20, rows: 12}, false, "fit both the KV buffer"},
		{"total past the rotary caches", call{sh: small, past: positions, newRows: 1}, false, "rotary caches"},
		{"seqlens and total disagree", call{sh: small, past: 5, newRows: 2, seqlens: 6, total: 8}, false, "must equal total_sequence_length"},
		{"total below S", call{sh: small, past: 0, newRows: 7, seqlens: 2, total: 3}, false, "at least S"},
		{"negative seqlens", call{sh: small, past: 0, newRows: 1, seqlens: -9, total: -8}, false, "at least S"},
		{"key rows not S", call{sh: small, past: 3, newRows: 4, kRows: 3}, false, "key and value must be"},
		{"query width not heads × head size", call{sh: small, past: 3, newRows: 2, qCols: small.heads*small.dim + 16}, false, "query's last dimension"},
		{"head size not a multiple of 16", call{sh: odd, past: 3, newRows: 1}, false, "multiple of 16"},
		{"int8 scales short", call{sh: small, quant: true, past: 3, newRows: 2}, true, "k_scale and v_scale"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, v := ks, vs
			if tc.c.sh == odd {
				k, v = scales(odd)
			}
			if tc.short {
				k, v = k[1:], v[1:]
			}
			dom := Domain
			if tc.c.quant {
				dom = DomainInt8
			}
			s := session(t, gqaModelDims(dom, tc.c.sh, tc.c.quant, positions, k, v, true))
			_, _, _, err := run(t, s, tc.c, newInputs(t, tc.c, 5))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestSupports checks which shapes the kernels take.
func TestSupports(t *testing.T) {
	tests := []struct {
		head, heads, kv int
		want            bool
	}{
		{128, 16, 8, true}, // Qwen3-0.6B
		{128, 32, 8, true},
		{64, 32, 4, true}, // 8 query heads a KV head
		{16, 4, 2, true},
		{256, 8, 8, true},
		{64, 36, 4, false}, // 9 query heads a KV head
		{96, 12, 12, true},
		{80, 32, 32, true},
		{72, 8, 8, false}, // not a multiple of 16
		{8, 4, 2, false},
		{272, 8, 8, false},  // over 256
		{128, 12, 8, false}, // not a multiple of the KV heads
		{128, 16, 0, false},
		{0, 16, 8, false},
		{128, 0, 8, false},
	}
	for _, tc := range tests {
		if got := Supports(tc.head, tc.heads, tc.kv); got != tc.want {
			t.Errorf("Supports(%d, %d, %d) = %v, want %v", tc.head, tc.heads, tc.kv, got, tc.want)
		}
	}
}
