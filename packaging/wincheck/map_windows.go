package main

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"

	"edgechat/internal/residency"
)

// releaseMapped maps a 4 MB file read-only (as ONNX Runtime maps external weights), reads every
// page, and has residency.Release find the view (VirtualQuery, K32GetMappedFileNameW) and give
// its pages back (VirtualUnlock).
func releaseMapped(dir string) (string, error) {
	const size = 4 << 20
	p := filepath.Join(dir, "model weights.onnx.data")
	if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
		return "", err
	}
	name, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return "", err
	}
	f, err := windows.CreateFile(name, windows.GENERIC_READ, windows.FILE_SHARE_READ, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(f)
	m, err := windows.CreateFileMapping(f, nil, windows.PAGE_READONLY, 0, 0, nil)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(m)
	addr, err := windows.MapViewOfFile(m, windows.FILE_MAP_READ, 0, 0, 0)
	if err != nil {
		return "", err
	}
	defer windows.UnmapViewOfFile(addr)
	view := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(nil), addr)), size)
	sum := 0
	for i := 0; i < size; i += 4096 {
		sum += int(view[i])
	}
	st, err := residency.Release(dir)
	if err != nil {
		return "", err
	}
	if st.Mappings != 1 || st.Bytes < size {
		return "", fmt.Errorf("release found %d mappings of %d bytes under %s, want 1 of at least %d", st.Mappings, st.Bytes, dir, size)
	}
	return fmt.Sprintf("1 view of %d MB found and released (read sum %d)", st.Bytes>>20, sum), nil
}
