//go:build !linux && !windows

package host

func systemCPUTimes() (cpuTimes, bool) { return cpuTimes{}, false }
