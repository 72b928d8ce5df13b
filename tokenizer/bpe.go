package tokenizer

import "unsafe"

// The merge loop of the BPE model (the reference's Word::merge_all), shared by every BPE
// pipeline: a piece's starting symbols are merged by rank, lowest first.

// noMerge is the value of a pair that has no merge; every real merge sorts before it.
const noMerge = ^uint64(0)

// smallWord is the longest piece merged by rescanning; longer ones use a heap.
const smallWord = 48

// bpeWork is reusable scratch space for merging one piece.
type bpeWork struct {
	syms  []int32
	pairs []uint64
	prev  []int32
	next  []int32
	heap  []uint64
}

func (m *bpeModel) pair(a, b int32) uint64 {
	return m.merges.get(uint64(uint32(a))<<32 | uint64(uint32(b)))
}

// mergeTable is an open-addressing hash table from pair keys to merge values (noMerge when
// absent); faster than a Go map on this hot path. A slot holds its key plus one (zero marks an
// empty slot, so a new table needs no filling) beside its value: one cache line per probe.
type mergeTable struct {
	slots []mergeSlot
	shift uint
	n     int // keys put
}

type mergeSlot struct{ key, val uint64 } // key+1, 0 when empty

func newMergeTable(n int) mergeTable {
	size, shift := 1, uint(64)
	for size < 2*n+1 {
		size, shift = size*2, shift-1
	}
	slots := make([]mergeSlot, size)
	adviseHuge(slots)
	return mergeTable{slots: touchPages(slots), shift: shift}
}

// touchPages writes to every memory page of s (with the zero it holds) and returns it. A
// large table is fresh memory from the system, and its lookups read a slot before writing it:
// the read would map a shared page of zeros and the write then fault again to replace it (a
// second fault and a flush of the processor's address cache, costly on a virtual machine —
// half the faults of a Gemma 3 load), where a write first faults once.
func touchPages[T any](s []T) []T {
	var zero T
	if size := unsafe.Sizeof(zero); size > 0 && uintptr(len(s))*size >= 1<<16 {
		for i := uintptr(0); i < uintptr(len(s)); i += 4096/size + 1 {
			s[i] = zero
		}
	}
	return s
}

func (t *mergeTable) slot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> t.shift }

func (t *mergeTable) get(k uint64) uint64 {
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		switch t.slots[i].key {
		case k + 1:
			return t.slots[i].val
		case 0:
			return noMerge
		}
	}
}

// put sets k's value (k below 2⁶⁴-1); the table grows when half full.
func (t *mergeTable) put(k, v uint64) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	i := t.slot(k)
	for t.slots[i].key != k+1 && t.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	if t.slots[i].key == 0 {
		t.n++
	}
	t.slots[i] = mergeSlot{k + 1, v}
}

// putAll puts every entry's key with its value; of entries with the same key, the one with the
// largest value (a merge's value starts with its rank: the later merge) is kept. The entries,
// which it reorders, are first grouped by the region of the table their slot lies in, then put
// region by region: each region's slots stay in the cache while it fills, where putting in the
// given order writes all over a table larger than the cache (Gemma 3's is 16 MB). The grouping
// is done in place (no copy of the entries: fewer fresh memory pages a load).
func (t *mergeTable) putAll(ents []mergeSlot) {
	for 2*(t.n+len(ents)) > len(t.slots) {
		t.grow()
	}
	bits := uint(64) - t.shift
	rb := min(bits, putRegionBits)
	if len(ents) >= 1<<12 && rb > 0 {
		region := func(k uint64) uint64 { return t.slot(k) >> (bits - rb) }
		// American flag sort: next[r] is where the next entry of region r goes, end[r] where
		// its part ends; every entry is swapped straight to its region's part.
		next, end := make([]int, 1<<rb), make([]int, 1<<rb)
		for _, e := range ents {
			end[region(e.key)]++
		}
		at := 0
		for r, n := range end {
			next[r], end[r] = at, at+n
			at += n
		}
		for r := range next {
			for next[r] < end[r] {
				e := ents[next[r]]
				for {
					to := region(e.key)
					if int(to) == r {
						break
					}
					ents[next[to]], e = e, ents[next[to]]
					next[to]++
				}
				ents[next[r]] = e
				next[r]++
			}
		}
	}
	for _, e := range ents {
		t.putLatest(e.key, e.val)
	}
}

// putLatest is put, but where k is present with a larger value than v that value stays.
func (t *mergeTable) putLatest(k, v uint64) {
	mask := uint64(len(t.slots) - 1)
	i := t.slot(k)
	for t.slots[i].key != k+1 && t.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	switch {
	case t.slots[i].key == 0:
		t.n++
	case t.slots[i].val > v:
		return
	}
	t.slots[i] = mergeSlot{k + 1, v}
}

// putRegionBits is log₂ of the number of table regions putAll sorts by.
const putRegionBits = 12

func (t *mergeTable) grow() {
	old := t.slots
	*t = newMergeTable(max(len(old), 4))
	for _, s := range old {
		if s.key != 0 {
			t.put(s.key-1, s.val)
		}
	}
}

// merge applies the merges to the symbols in w.syms and appends the result to ids.
func (m *bpeModel) merge(w *bpeWork, ids []int) []int {
	if len(w.syms) <= smallWord {
		return m.mergeSmall(w, ids)
	}
	return m.mergeLong(w, ids)
}

// mergeSmall applies merges lowest rank first, leftmost first among equal ranks, rescanning
// the pairs after every merge.
func (m *bpeModel) mergeSmall(w *bpeWork, ids []int) []int {
	syms, pairs := w.syms, w.pairs[:0]
	for i := 0; i+1 < len(syms); i++ {
		pairs = append(pairs, m.pair(syms[i], syms[i+1]))
	}
	for {
		best, bv := -1, noMerge
		for i, v := range pairs {
			if v < bv {
				best, bv = i, v
			}
		}
		if best < 0 {
			break
		}
		syms[best] = int32(uint32(bv))
		syms = append(syms[:best+1], syms[best+2:]...)
		pairs = append(pairs[:best], pairs[best+1:]...)
		if best > 0 {
			pairs[best-1] = m.pair(syms[best-1], syms[best])
		}
		if best < len(pairs) {
			pairs[best] = m.pair(syms[best], syms[best+1])
		}
	}
	for _, s := range syms {
		ids = append(ids, int(s))
	}
	w.syms, w.pairs = syms, pairs
	return ids
}

// mergeLong gives the same result as mergeSmall in O(n log n): symbols form a linked list and
// candidate merges wait in a min-heap keyed by rank<<32|position; stale entries are skipped.
// This is the reference's algorithm (Word::merge_all), so a text of any length is linear-ish.
func (m *bpeModel) mergeLong(w *bpeWork, ids []int) []int {
	syms := w.syms
	n := len(syms)
	if n == 0 {
		return ids
	}
	prev, next := grow(w.prev, n), grow(w.next, n)
	h := w.heap[:0]
	for i := 0; i < n; i++ {
		prev[i], next[i] = int32(i-1), int32(i+1)
	}
	next[n-1] = -1
	push := func(pos int32) {
		if v := m.pair(syms[pos], syms[next[pos]]); v != noMerge {
			h = heapPush(h, v>>32<<32|uint64(pos))
		}
	}
	for i := 0; i+1 < n; i++ {
		push(int32(i))
	}
	for len(h) > 0 {
		var top uint64
		top, h = heapPop(h)
		pos := int32(uint32(top))
		if syms[pos] < 0 || next[pos] < 0 {
			continue
		}
		v := m.pair(syms[pos], syms[next[pos]])
		if v>>32 != top>>32 {
			continue // the pair at pos changed since this entry was pushed
		}
		right := next[pos]
		syms[pos], syms[right] = int32(uint32(v)), -1
		next[pos] = next[right]
		if next[pos] >= 0 {
			prev[next[pos]] = pos
			push(pos)
		}
		if prev[pos] >= 0 {
			push(prev[pos])
		}
	}
	for i := int32(0); i >= 0; i = next[i] {
		ids = append(ids, int(syms[i]))
	}
	w.prev, w.next, w.heap = prev, next, h
	return ids
}

func grow(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func heapPush(h []uint64, v uint64) []uint64 {
	h = append(h, v)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	return h
}

func heapPop(h []uint64) (uint64, []uint64) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(h) && h[l] < h[small] {
			small = l
		}
		if r := l + 1; r < len(h) && h[r] < h[small] {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	return top, h
}
