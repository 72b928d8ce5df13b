//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tokenizer

import (
	"os"
	"syscall"
)

// readMapped returns the bytes of the file at path and a function that lets them go: nothing
// may point into the bytes once it is called. A regular file is mapped read-only rather than
// read: its pages are the system's file cache, shared, with no copy and no fresh memory to
// fault in (a 33 MB tokenizer.json read into the heap costs ~8,000 page faults a load).
// Anything the system will not map is read as usual.
func readMapped(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if size := st.Size(); st.Mode().IsRegular() && size >= minMapped && size == int64(int(size)) {
		if data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE); err == nil {
			return data, func() { _ = syscall.Munmap(data) }, nil
		}
	}
	data, err := os.ReadFile(path)
	return data, func() {}, err
}
