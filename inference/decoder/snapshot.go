package decoder

import "edgechat/inference"

// Saved caches of each decoder kind, for the conversation LRU (statecache.go): only the rows
// the cache holds are copied.

// dynamicState is a saved dynamic-decoder cache: the rows of every KV tensor and their ids.
type dynamicState struct {
	ids  []int
	rows [][]byte
}

// Snapshot copies the cached rows.
func (d *dynamicDecoder) Snapshot() (inference.State, int64) {
	n := d.kv.heads * d.kv.n * d.kv.headDim * d.kv.elem
	st := dynamicState{ids: append([]int(nil), d.ids...), rows: make([][]byte, len(d.kv.bufs[d.kv.cur]))}
	for i, b := range d.kv.bufs[d.kv.cur] {
		st.rows[i] = append([]byte(nil), b[:n]...)
	}
	return st, int64(n) * int64(len(st.rows))
}

// Restore puts a snapshot back.
func (d *dynamicDecoder) Restore(s inference.State) {
	st := s.(dynamicState)
	n := len(st.ids)
	if err := d.kv.ensure(n); err != nil {
		d.Truncate(0)
		return
	}
	for i, b := range st.rows {
		copy(d.kv.bufs[d.kv.cur][i], b)
	}
	d.kv.n = n
	d.kv.touched = max(d.kv.touched, n)
	d.ids = append(d.ids[:0], st.ids...)
}

// staticState is a saved composite cache: the whole right-aligned window and its ids.
type staticState struct {
	ids    []int
	filled int
	cache  [][]float32
}

// Snapshot copies the window (the conversation LRU keeps it).
func (d *staticDecoder) Snapshot() (inference.State, int64) {
	st := staticState{ids: append([]int(nil), d.ids...), filled: d.filled}
	var size int64
	for _, c := range d.cache {
		st.cache = append(st.cache, append([]float32(nil), c...))
		size += int64(len(c)) * 4
	}
	return st, size
}

// Restore puts a snapshot back.
func (d *staticDecoder) Restore(s inference.State) {
	st := s.(staticState)
	for i, c := range st.cache {
		copy(d.cache[i], c)
	}
	d.ids, d.filled = append(d.ids[:0], st.ids...), st.filled
}

// bundleState is a saved bundle cache: the first n rows of every head of every buffer.
type bundleState struct {
	ids  []int
	rows [][]byte
}

// Snapshot copies the cached rows (the conversation LRU keeps them).
func (d *bundleDecoder) Snapshot() (inference.State, int64) {
	n, rb := len(d.ids), d.kvRowBytes
	st := bundleState{ids: append([]int(nil), d.ids...)}
	var size int64
	for _, b := range d.kvBufs {
		rows := make([]byte, d.kvHeads*n*rb)
		for h := range d.kvHeads {
			copy(rows[h*n*rb:(h+1)*n*rb], b[h*d.rows*rb:h*d.rows*rb+n*rb])
		}
		st.rows = append(st.rows, rows)
		size += int64(len(rows))
	}
	return st, size
}

// Restore puts a snapshot back.
func (d *bundleDecoder) Restore(s inference.State) {
	st := s.(bundleState)
	n, rb := len(st.ids), d.kvRowBytes
	for i, b := range d.kvBufs {
		for h := range d.kvHeads {
			copy(b[h*d.rows*rb:h*d.rows*rb+n*rb], st.rows[i][h*n*rb:(h+1)*n*rb])
		}
	}
	d.ids = append(d.ids[:0], st.ids...)
}
