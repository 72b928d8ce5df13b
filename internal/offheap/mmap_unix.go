//go:build unix

package offheap

import "syscall"

func mapAnon(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil // out of address space or mappings: fall back to the Go heap
	}
	return b
}

func unmap(b []byte) { _ = syscall.Munmap(b) }
