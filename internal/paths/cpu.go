package paths

import (
	"os"
	"runtime"
	"strings"
)

// CPUModel names the processor ("" if unknown).
func CPUModel() string {
	if runtime.GOOS == "windows" {
		return os.Getenv("PROCESSOR_IDENTIFIER")
	}
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && (strings.TrimSpace(k) == "model name" || strings.TrimSpace(k) == "Model") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
