//go:build cgo && amd64 && (linux || windows)

package attnop

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestISAMatchesCPUInfo checks the loops attn.c picks from CPUID against the flags Linux lists
// in /proc/cpuinfo (which also account for what the kernel saves): AVX-512 where avx512f, AVX2
// where avx2 and fma, none otherwise; AVX2 when AVX-512 is declined.
func TestISAMatchesCPUInfo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/cpuinfo")
	}
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip(err)
	}
	var flags []string
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			flags = strings.Fields(v)
			break
		}
	}
	want := 0
	if slices.Contains(flags, "avx2") && slices.Contains(flags, "fma") {
		want = 1
		if slices.Contains(flags, "avx512f") {
			want = 2
		}
	}
	forced := os.Getenv("EDGECHAT_ATTNOP_ISA") == "avx2"
	defer selectISA(forced) // as TestMain left it
	if got := selectISA(false); got != want {
		t.Errorf("selectISA(false) = %d; /proc/cpuinfo's flags say %d", got, want)
	}
	if got := selectISA(true); got != min(want, 1) {
		t.Errorf("selectISA(true) = %d, want %d", got, min(want, 1))
	}
}
