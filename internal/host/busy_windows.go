package host

import (
	"syscall"
	"unsafe"
)

var getSystemTimes = syscall.NewLazyDLL("kernel32.dll").NewProc("GetSystemTimes")

// systemCPUTimes reads GetSystemTimes: kernel time includes idle time.
func systemCPUTimes() (cpuTimes, bool) {
	var idle, kernel, user syscall.Filetime
	if r, _, _ := getSystemTimes.Call(uintptr(unsafe.Pointer(&idle)), uintptr(unsafe.Pointer(&kernel)), uintptr(unsafe.Pointer(&user))); r == 0 {
		return cpuTimes{}, false
	}
	ft := func(f syscall.Filetime) uint64 { return uint64(f.HighDateTime)<<32 | uint64(f.LowDateTime) }
	return cpuTimes{idle: ft(idle), total: ft(kernel) + ft(user)}, true
}
