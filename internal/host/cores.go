package host

import (
	"os"
	"runtime"
	"strings"
	"sync"
)

var physicalCores = sync.OnceValue(func() int {
	if n := linuxPhysicalCores(); n > 0 {
		return n
	}
	return runtime.NumCPU()
})

// PhysicalCores is the number of physical CPU cores (logical CPUs where that is unknown),
// the default intra-op thread count.
func PhysicalCores() int { return physicalCores() }

// linuxPhysicalCores counts distinct (physical id, core id) pairs in /proc/cpuinfo.
func linuxPhysicalCores() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return min(countCores(string(b)), runtime.NumCPU())
}

// countCores counts distinct (physical id, core id) pairs in the text of /proc/cpuinfo.
func countCores(cpuinfo string) int {
	seen := map[string]bool{}
	phys, core := "", ""
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			if core != "" {
				seen[phys+"/"+core] = true
			}
			phys, core = "", ""
			continue
		}
		switch strings.TrimSpace(k) {
		case "physical id":
			phys = strings.TrimSpace(v)
		case "core id":
			core = strings.TrimSpace(v)
		}
	}
	if core != "" {
		seen[phys+"/"+core] = true
	}
	return len(seen)
}
