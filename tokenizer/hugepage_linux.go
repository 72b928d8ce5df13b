package tokenizer

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks Linux to back the memory of s with 2 MB pages where it can (the system's
// transparent huge pages in their usual "madvise" mode): a fresh 16 MB table then costs a few
// page faults instead of ~4,000 (each ~5-20 µs on a virtual machine). Only the 2 MB-aligned
// stretches inside s can take them; the advice stays on those addresses after s is freed,
// which at worst lets the kernel use large pages for other heap objects there later. It is
// for large tables that are written whole while a tokenizer loads.
func adviseHuge[T any](s []T) {
	size := uintptr(len(s)) * unsafe.Sizeof(*new(T))
	if size < hugeMin {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	start := uintptr(p)
	from, to := (start+hugePage-1)&^(hugePage-1), (start+size)&^(hugePage-1)
	if from >= to {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, from-start)), to-from), madvHugePage)
}

const hugePage = 2 << 20

// madvHugePage is Linux's MADV_HUGEPAGE, the same on every architecture (the standard
// library's syscall package spells it only for some; the tokenizer imports no x/sys).
const madvHugePage = 14

// hugeMin is the size from which adviseHuge asks for large pages.
const hugeMin = 2 << 20
