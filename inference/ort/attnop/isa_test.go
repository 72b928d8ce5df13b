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
// in /proc/cpuinfo (which also account for what the kernel saves): AVX-512 with VNNI's integer
// loops where avx512f, avx512bw and avx512_vnni, AVX-512 where avx512f, AVX2 where avx2 and fma,
// none otherwise; each level capped as asked.
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
			if slices.Contains(flags, "avx512bw") && slices.Contains(flags, "avx512_vnni") {
				want = 3
			}
		}
	}
	defer selectISA(isaCap()) // as TestMain left it
	for _, most := range []int{0, 3, 2, 1} {
		w := want
		if most > 0 {
			w = min(want, most)
		}
		if got := selectISA(most); got != w {
			t.Errorf("selectISA(%d) = %d; /proc/cpuinfo's flags say %d", most, got, w)
		}
	}
}
