//go:build windows

package env

import (
	"errors"
	"syscall"
	"unsafe"
)

// Slots of the OrtApi function table (see providers_unix.go).
const (
	slotGetErrorMessage  = 2
	slotReleaseStatus    = 93
	slotGetProviders     = 125
	slotReleaseProviders = 126
)

// listProviders calls GetAvailableProviders in the library at path.
func listProviders(path string) ([]string, error) {
	dll, err := syscall.LoadDLL(path)
	if err != nil {
		return nil, err
	}
	proc, err := dll.FindProc("OrtGetApiBase")
	if err != nil {
		return nil, err
	}
	base, _, _ := proc.Call()
	getAPI := *(*uintptr)(cMemory(base))
	api, _, _ := syscall.SyscallN(getAPI, uintptr(apiVersion))
	if api == 0 {
		return nil, errors.New("this ONNX Runtime does not support the API version EdgeChat uses")
	}
	slot := func(i int) uintptr { return *(*uintptr)(cMemory(api + uintptr(i)*unsafe.Sizeof(uintptr(0)))) }
	var list **byte
	var n int32
	st, _, _ := syscall.SyscallN(slot(slotGetProviders), uintptr(unsafe.Pointer(&list)), uintptr(unsafe.Pointer(&n)))
	if st != 0 {
		msg, _, _ := syscall.SyscallN(slot(slotGetErrorMessage), st)
		e := errors.New(goString(msg))
		syscall.SyscallN(slot(slotReleaseStatus), st)
		return nil, e
	}
	ptrs := unsafe.Slice(list, n)
	out := make([]string, 0, n)
	for _, p := range ptrs {
		out = append(out, goString(uintptr(unsafe.Pointer(p))))
	}
	if st, _, _ := syscall.SyscallN(slot(slotReleaseProviders), uintptr(unsafe.Pointer(list)), uintptr(n)); st != 0 {
		syscall.SyscallN(slot(slotReleaseStatus), st)
	}
	return out, nil
}

func goString(p uintptr) string {
	if p == 0 {
		return ""
	}
	var b []byte
	for i := uintptr(0); ; i++ {
		c := *(*byte)(cMemory(p + i))
		if c == 0 {
			return string(b)
		}
		b = append(b, c)
	}
}

// cMemory turns an address ONNX Runtime returned (memory it owns, never Go's heap) into a
// pointer.
func cMemory(addr uintptr) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(nil), addr) }
