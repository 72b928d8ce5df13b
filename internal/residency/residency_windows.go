package residency

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

const memMapped = 0x40000 // MEM_MAPPED: a view of a section (a mapped file)

var getMappedFileName = windows.NewLazySystemDLL("kernel32.dll").NewProc("K32GetMappedFileNameW")

func resident(string) (int64, error) { return 0, nil }

// pageOutWhile only runs f: Windows trims a working set under pressure by itself, and the
// release after loading takes the table's views out of it.
func pageOutWhile(_ string, f func()) { f() }

// release removes the views of files under dir from the working set. VirtualUnlock on pages
// that are not locked does exactly that and never discards data (written pages go to the
// modified list), so no page the process wrote can be lost; the pages wait on the standby
// list and come back as soft faults.
func release(dir string) (Stats, error) {
	want := strings.ToLower(strings.TrimPrefix(filepath.Clean(dir), filepath.VolumeName(dir)))
	want = strings.TrimSuffix(want, `\`) + `\`
	var st Stats
	proc := windows.CurrentProcess()
	buf := make([]uint16, windows.MAX_LONG_PATH)
	var mbi windows.MemoryBasicInformation
	for addr := uintptr(0); ; addr = mbi.BaseAddress + mbi.RegionSize {
		if err := windows.VirtualQuery(addr, &mbi, unsafe.Sizeof(mbi)); err != nil {
			break // past the last region of the address space
		}
		if mbi.RegionSize == 0 {
			break
		}
		if mbi.Type != memMapped || mbi.State != windows.MEM_COMMIT {
			continue
		}
		n, _, _ := getMappedFileName.Call(uintptr(proc), mbi.BaseAddress, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
		if n == 0 {
			continue
		}
		if !underDevicePath(windows.UTF16ToString(buf[:n]), want) {
			continue
		}
		st.Mappings++
		err := windows.VirtualUnlock(mbi.BaseAddress, mbi.RegionSize)
		if err != nil && !errors.Is(err, windows.ERROR_NOT_LOCKED) {
			return st, fmt.Errorf("release a view of %s: %w", dir, err)
		}
		st.Bytes += int64(mbi.RegionSize)
	}
	return st, nil
}
