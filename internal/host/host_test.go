package host

import "testing"

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
