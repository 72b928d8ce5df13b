package rss

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

const privateSupported = true

var getProcessMemoryInfo = windows.NewLazySystemDLL("kernel32.dll").NewProc("K32GetProcessMemoryInfo")

// processMemoryCountersEx is PROCESS_MEMORY_COUNTERS_EX (psapi.h).
type processMemoryCountersEx struct {
	cb                         uint32
	pageFaultCount             uint32
	peakWorkingSetSize         uintptr
	workingSetSize             uintptr
	quotaPeakPagedPoolUsage    uintptr
	quotaPagedPoolUsage        uintptr
	quotaPeakNonPagedPoolUsage uintptr
	quotaNonPagedPoolUsage     uintptr
	pagefileUsage              uintptr
	peakPagefileUsage          uintptr
	privateUsage               uintptr
}

// private is the process's private bytes (PrivateUsage): the commit charge no file backs,
// which bounds the private working set Task Manager shows.
func private() (int64, error) {
	var c processMemoryCountersEx
	c.cb = uint32(unsafe.Sizeof(c))
	r, _, err := getProcessMemoryInfo.Call(uintptr(windows.CurrentProcess()), uintptr(unsafe.Pointer(&c)), uintptr(c.cb))
	if r == 0 {
		return 0, fmt.Errorf("GetProcessMemoryInfo: %w", err)
	}
	return int64(c.privateUsage), nil
}
