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
	st := dynamicState{ids: append([]int(nil), d.ids...), rows: d.kv.save()}
	var size int64
	for _, r := range st.rows {
		size += int64(len(r))
	}
	return st, size
}

// Restore puts a snapshot back; one that no longer fits leaves the cache empty.
func (d *dynamicDecoder) Restore(s inference.State) {
	st := s.(dynamicState)
	if err := d.kv.load(st.rows, len(st.ids)); err != nil {
		d.Truncate(0)
		return
	}
	d.ids = append(d.ids[:0], st.ids...)
	if d.float != nil {
		d.float.d.Truncate(0) // the shadow catches up at the next prompt
	}
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
