package host

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestCountCores(t *testing.T) {
	// Two packages of two cores with hyper-threading: eight logical CPUs, four cores.
	var cpuinfo string
	for _, pc := range [][2]string{{"0", "0"}, {"0", "1"}, {"1", "0"}, {"1", "1"}, {"0", "0"}, {"0", "1"}, {"1", "0"}, {"1", "1"}} {
		cpuinfo += "processor\t: x\nphysical id\t: " + pc[0] + "\ncore id\t\t: " + pc[1] + "\n\n"
	}
	if n := countCores(cpuinfo); n != 4 {
		t.Errorf("countCores = %d, want 4", n)
	}
	if n := countCores("processor\t: 0\n"); n != 0 {
		t.Errorf("no core ids: %d, want 0", n)
	}
	if PhysicalCores() < 1 {
		t.Error("PhysicalCores < 1")
	}
}

func TestMemTotal(t *testing.T) {
	if n := memTotal("MemFree:  10 kB\nMemTotal:       24684400 kB\n"); n != 24684400*1024 {
		t.Errorf("memTotal = %d", n)
	}
	if n := memTotal("nothing"); n != 0 {
		t.Errorf("memTotal of garbage = %d", n)
	}
}

func TestProcStatTimes(t *testing.T) {
	for _, tc := range []struct {
		stat        string
		idle, total uint64
		ok          bool
	}{
		{"cpu  100 5 50 800 20 1 2 3 0 0\ncpu0 1 2 3 4\n", 820, 981, true},
		{"cpu  10 0 10 80\n", 80, 100, true},
		{"cpu0 1 2 3 4\n", 0, 0, false},
		{"cpu  x 0 0 0\n", 0, 0, false},
		{"", 0, 0, false},
	} {
		got, ok := procStatTimes(tc.stat)
		if ok != tc.ok || got.idle != tc.idle || got.total != tc.total {
			t.Errorf("%q: %+v %v; want idle %d total %d %v", tc.stat, got, ok, tc.idle, tc.total, tc.ok)
		}
	}
}

// A busy loop on every processor shows as a busy machine; the probe's own sleep does not.
func TestCPUBusy(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPUBusy reads /proc/stat here")
	}
	var stop atomic.Bool
	for range runtime.NumCPU() {
		go func() {
			for !stop.Load() { // spin on purpose: every processor busy
			}
		}()
	}
	busy, ok := CPUBusy(300 * time.Millisecond)
	stop.Store(true)
	if !ok || busy < 0.5 {
		t.Errorf("with every CPU spinning: busy %.2f, ok %v; want > 0.5", busy, ok)
	}
}

func TestInt8Refusal(t *testing.T) {
	for _, tc := range []struct {
		arch            string
		avx512, avxVNNI bool
		refused         bool
	}{
		{"amd64", false, false, true},
		{"amd64", true, false, false},
		{"amd64", false, true, false},
		{"386", false, false, true},
		{"arm64", false, false, false},
		{"riscv64", false, false, false},
	} {
		if got := int8Refusal(tc.arch, tc.avx512, tc.avxVNNI); (got != "") != tc.refused {
			t.Errorf("int8Refusal(%s, avx512vnni %v, avxvnni %v) = %q, refused want %v", tc.arch, tc.avx512, tc.avxVNNI, got, tc.refused)
		}
	}
}
