package grammar

// walker makes a state's mask. In general it walks the vocabulary's trie from the state,
// advancing a copy of it by each node's byte and skipping the node's whole subtree at the
// first byte the grammar refuses. Inside a string (where nearly every token is allowed and a
// walk would visit the whole trie) it starts from the vocabulary's table of tokens that are
// plain string content, and walks only the tokens that close the string, and for a key the
// tokens that follow the object's key names.
type walker struct {
	ms     *Masks
	levels []stackSet // levels[d]: the state after the first d bytes of the trie path
	a, b   stackSet
}

func (w *walker) init(ms *Masks) {
	w.ms = ms
	w.levels = make([]stackSet, ms.v.maxLen+1)
}

func (w *walker) mask(cur *stackSet) []uint64 {
	v := w.ms.v
	mask := make([]uint64, words(v.size))
	w.levels[0].copyFrom(cur)
	if len(cur.end) == 1 && len(cur.stack(0)) > 0 { // an empty stack: the value is done
		stk := cur.stack(0)
		if f := stk[len(stk)-1]; (f.mode == mString || f.mode == mKey) && f.st == sNormal {
			w.inString(cur, f, mask)
			return mask
		}
	}
	w.walk(mask, 0, int32(len(v.tb)))
	return mask
}

// walk adds to mask the tokens of trie nodes [from, to) that levels[0] allows; from must be
// at depth 1.
func (w *walker) walk(mask []uint64, from, to int32) {
	v, g := w.ms.v, w.ms.g
	for i := from; i < to; {
		d := v.dep[i]
		if !g.advance(&w.levels[d], &w.levels[d-1], v.tb[i]) {
			i = v.skip[i]
			continue
		}
		for _, id := range v.ids[v.at[i]:v.at[i+1]] {
			mask[id>>6] |= 1 << (id & 63)
		}
		i++
	}
}

// inString makes the mask of a state whose only stack has an open string (or key) on top,
// at a character boundary.
func (w *walker) inString(cur *stackSet, f frame, mask []uint64) {
	v := w.ms.v
	tab := v.strings()
	var special [256]bool // first bytes whose tokens are walked on the trie instead
	free := true          // a token may be plain content from its first byte
	if f.mode == mKey && f.cnt >= 0 {
		obj := f.n
		special['"'], special['\\'] = true, true
		nd := obj.keys.nodes[f.cnt]
		for _, e := range obj.keys.edges[nd.first : nd.first+nd.n] {
			special[e.b] = true
		}
		free = obj.additional != nil && !obj.ordered
	}
	if free {
		limited := f.mode == mString && f.n.maxLen >= 0
		if !limited {
			copy(mask, tab.bodySet)
		} else {
			room := int32(f.n.maxLen) - f.cnt
			for i, id := range tab.body {
				if tab.bodyChars[i] <= room {
					mask[id>>6] |= 1 << (id & 63)
				}
			}
		}
		for _, id := range tab.closers {
			if !special[v.toks[id][0]] && w.accepts(cur, v.toks[id]) {
				mask[id>>6] |= 1 << (id & 63)
			}
		}
	}
	for b, walk := range special {
		if !walk {
			continue
		}
		for _, id := range v.byFirst[b] {
			mask[id>>6] &^= 1 << (id & 63)
		}
		if r := v.rootChild[b]; r >= 0 {
			w.walk(mask, r, v.skip[r])
		}
	}
}

// accepts reports whether the grammar in state cur allows the bytes bs.
func (w *walker) accepts(cur *stackSet, bs []byte) bool {
	g := w.ms.g
	w.a.copyFrom(cur)
	for _, c := range bs {
		if !g.advance(&w.b, &w.a, c) {
			return false
		}
		w.a, w.b = w.b, w.a
	}
	return true
}
