package tokenizer

import (
	"hash/maphash"
	"iter"
	"strings"
	"unsafe"
)

// vocabTable maps a vocabulary's tokens to ids as a map[string]int32 would (a later entry of
// the same token replaces the id), built without an allocation per entry: the tokens lie one
// after another in one buffer, and an open-addressing table of hash tags and entry numbers
// points into it (no string and no map entry per token: Gemma 3 has 262k).
type vocabTable struct {
	text  []byte       // the tokens, one after another; never changed below len once written
	str   string       // text as a string (the same bytes)
	ents  []vocabEntry // entry e's token is str[ents[e].start:ents[e+1].start]; one more at the end
	slots []uint64     // hash>>32<<32 | entry+1; 0 when empty
	seed  maphash.Seed
	sink  uint64 // keeps the early reads of addMany
}

type vocabEntry struct {
	start uint32
	id    int32
}

// newVocabTable returns a table sized for about n tokens.
func newVocabTable(n int) *vocabTable {
	t := &vocabTable{seed: maphash.MakeSeed()}
	t.ents = append(make([]vocabEntry, 0, n+1), vocabEntry{})
	t.text = make([]byte, 0, 8*n)
	t.slots = make([]uint64, slotsFor(n))
	adviseHuge(t.ents[:cap(t.ents)])
	adviseHuge(t.text[:cap(t.text)])
	adviseHuge(t.slots)
	touchPages(t.slots)
	return t
}

// vocabFromMap holds the entries of a map.
func vocabFromMap(m map[string]int32) *vocabTable {
	t := newVocabTable(len(m))
	for tok, id := range m {
		t.add(tok, id)
	}
	return t
}

// slotsFor is the table size for n entries: a power of two with n at most 3/4 of it (the hash
// tags in the slots keep long probes cheap).
func slotsFor(n int) int {
	size := 8
	for 3*size < 4*n {
		size *= 2
	}
	return size
}

// len is the number of distinct tokens.
func (t *vocabTable) len() int { return len(t.ents) - 1 }

// find returns the slot of key (whose hash is h): the entry's slot, or the empty slot where it
// would go.
func (t *vocabTable) find(key string, h uint64) (slot uint64, entry int, found bool) {
	mask := uint64(len(t.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return i, -1, false
		}
		if s>>32 == tag {
			e := uint32(s) - 1
			if t.str[t.ents[e].start:t.ents[e+1].start] == key {
				return i, int(e), true
			}
		}
	}
}

// get returns the id of tok.
func (t *vocabTable) get(tok string) (int32, bool) {
	if _, e, ok := t.find(tok, maphash.String(t.seed, tok)); ok {
		return t.ents[e].id, true
	}
	return -1, false
}

// getBytes is get of a byte slice's contents.
func (t *vocabTable) getBytes(tok []byte) (int32, bool) { return t.get(bytesView(tok)) }

// bytesView is b's contents as a string that shares them: b must not change while it is used.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// add sets key's id.
func (t *vocabTable) add(key string, id int32) { t.addHashed(key, maphash.String(t.seed, key), id) }

// addHashed is add of a key whose hash is h.
func (t *vocabTable) addHashed(key string, h uint64, id int32) {
	slot, e, ok := t.find(key, h)
	if ok {
		t.ents[e].id = id
		return
	}
	if 4*(t.len()+1) > 3*len(t.slots) {
		t.grow()
		slot, _, _ = t.find(key, h)
	}
	e = t.len()
	t.text = append(t.text, key...)
	// The bytes a string already covers are never written again, so str may share them.
	t.str = unsafe.String(unsafe.SliceData(t.text), len(t.text))
	t.ents[e].id = id
	t.ents = append(t.ents, vocabEntry{start: uint32(len(t.text))})
	t.slots[slot] = h>>32<<32 | uint64(e+1)
}

// grow doubles the slots and places every entry again.
func (t *vocabTable) grow() {
	t.slots = touchPages(make([]uint64, 2*len(t.slots)))
	for e := range t.len() {
		tok := t.str[t.ents[e].start:t.ents[e+1].start]
		h := maphash.String(t.seed, tok)
		slot, _, _ := t.find(tok, h)
		t.slots[slot] = h>>32<<32 | uint64(e+1)
	}
}

// toMap returns the entries as a map; its keys share the table's bytes.
func (t *vocabTable) toMap() map[string]int32 {
	m := make(map[string]int32, t.len())
	for tok, id := range t.all() {
		m[tok] = id
	}
	return m
}

// within yields every token holding sub with the offset of each occurrence in it, searching
// all the tokens at once.
func (t *vocabTable) within(sub string) iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		e := 0
		for at := 0; ; at++ {
			i := strings.Index(t.str[at:], sub)
			if i < 0 {
				return
			}
			at += i
			for t.ents[e+1].start <= uint32(at) {
				e++
			}
			start, end := int(t.ents[e].start), int(t.ents[e+1].start)
			if at+len(sub) <= end && !yield(t.str[start:end], at-start) {
				return
			}
		}
	}
}

// all yields every token and its id, in the order first added.
func (t *vocabTable) all() iter.Seq2[string, int32] {
	return func(yield func(string, int32) bool) {
		for e := range t.len() {
			if !yield(t.str[t.ents[e].start:t.ents[e+1].start], t.ents[e].id) {
				return
			}
		}
	}
}

// getMany sets ents[i] to the entry of keys[i], -1 when absent. It looks up a batch in stages,
// each stage's memory reads independent of one another so that the processor overlaps their
// cache misses: on a large vocabulary most of a lookup's time is waiting for memory.
func (t *vocabTable) getMany(keys []string, ents []int32) {
	var hs [lookupBatch]uint64
	var found [lookupBatch]uint32
	mask := uint64(len(t.slots) - 1)
	for len(keys) > 0 {
		n := min(len(keys), lookupBatch)
		for i, k := range keys[:n] {
			hs[i] = maphash.String(t.seed, k)
		}
		for i := range n { // the first slot holding the key's tag, or none (0)
			tag, j := hs[i]>>32, hs[i]&mask
			for s := t.slots[j]; s != 0; s = t.slots[j] {
				if s>>32 == tag {
					found[i] = uint32(s)
					break
				}
				j = (j + 1) & mask
			}
		}
		for i, k := range keys[:n] {
			if e := found[i]; e != 0 {
				found[i] = 0
				if t.str[t.ents[e-1].start:t.ents[e].start] == k {
					ents[i] = int32(e - 1)
					continue
				}
				// Another token with the same tag: look further.
				if _, e, ok := t.find(k, hs[i]); ok {
					ents[i] = int32(e)
					continue
				}
			}
			ents[i] = -1
		}
		keys, ents = keys[n:], ents[n:]
	}
}

// token is entry e's token.
func (t *vocabTable) token(e int) string { return t.str[t.ents[e].start:t.ents[e+1].start] }

// isJoin reports whether entry e (which may be past the last) is the token a followed by b.
func (t *vocabTable) isJoin(e int, a, b []byte) bool {
	if e >= t.len() {
		return false
	}
	tok := t.token(e)
	return len(tok) == len(a)+len(b) && tok[:len(a)] == bytesView(a) && tok[len(a):] == bytesView(b)
}

// addMany is add of each token with its id, in order, a batch at a time (see getMany).
func (t *vocabTable) addMany(toks [][]byte, ids []int32) {
	var hs [lookupBatch]uint64
	for len(toks) > 0 {
		n := min(len(toks), lookupBatch)
		var sink uint64
		mask := uint64(len(t.slots) - 1)
		for i, tok := range toks[:n] { // bring the first slots into the cache together
			hs[i] = maphash.Bytes(t.seed, tok)
			sink += t.slots[hs[i]&mask]
		}
		t.sink += sink
		for i, tok := range toks[:n] {
			t.addHashed(bytesView(tok), hs[i], ids[i])
		}
		toks, ids = toks[n:], ids[n:]
	}
}

// lookupBatch is the number of keys getMany looks up together.
const lookupBatch = 64
