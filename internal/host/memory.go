package host

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// PhysicalMemory is the machine's RAM in bytes (MemTotal), or 0 where it is unknown.
func PhysicalMemory() int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return memTotal(string(b))
}

// memTotal reads MemTotal from the text of /proc/meminfo.
func memTotal(meminfo string) int64 {
	for _, line := range strings.Split(meminfo, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
