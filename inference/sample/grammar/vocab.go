package grammar

import (
	"bytes"
	"slices"
	"sync"
)

// Vocab is a model's vocabulary as bytes, arranged for constrained decoding: a trie of the
// tokens' byte strings laid out in preorder (a node's subtree is the run of nodes after it up
// to skip[node]), so that walking it from a grammar state prunes whole subtrees at the first
// byte the state refuses. It is built once per tokenizer and is safe for concurrent use.
type Vocab struct {
	size  int      // logits width
	toks  [][]byte // bytes of each token; nil for tokens never allowed (special tokens)
	first []int16  // first byte of each token, -1 for none

	// The trie, in preorder. Node i holds byte tb[i] at depth dep[i] (1 for the root's
	// children); its subtree ends before skip[i]; the tokens whose bytes end at it are
	// ids[at[i]:at[i+1]].
	tb   []byte
	dep  []uint16
	skip []int32
	at   []int32
	ids  []int32
	// rootChild[b] is the node of the one-byte prefix b, or -1.
	rootChild [256]int32
	// byFirst[b] lists the tokens whose bytes start with b.
	byFirst [256][]int32
	// byteToken[b] is a token whose bytes are exactly b, or -1.
	byteToken [256]int32
	maxLen    int

	strOnce sync.Once
	str     *stringTable
}

// NewVocab builds the vocabulary from each token's bytes (as the token adds them to the
// output); a nil or empty entry is a token constrained decoding never allows. size is the
// logits width, which may exceed len(tokens).
func NewVocab(tokens [][]byte, size int) *Vocab {
	v := &Vocab{size: max(size, len(tokens)), toks: make([][]byte, max(size, len(tokens))), first: make([]int16, max(size, len(tokens)))}
	order := make([]int32, 0, len(tokens))
	for id, t := range tokens {
		v.first[id] = -1
		if len(t) == 0 {
			continue
		}
		v.toks[id] = t
		v.first[id] = int16(t[0])
		order = append(order, int32(id))
		v.byFirst[t[0]] = append(v.byFirst[t[0]], int32(id))
		v.maxLen = max(v.maxLen, len(t))
	}
	for id := len(tokens); id < v.size; id++ {
		v.first[id] = -1
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := bytes.Compare(tokens[a], tokens[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	for b := range v.rootChild {
		v.rootChild[b], v.byteToken[b] = -1, -1
	}
	v.build(order)
	return v
}

// build lays the trie out from the tokens sorted by their bytes: each token shares the
// path of its longest common prefix with the one before it.
func (v *Vocab) build(order []int32) {
	var path []int32 // nodes from depth 1 down to the current one
	var prev []byte
	closeTo := func(depth int) {
		for len(path) > depth {
			v.skip[path[len(path)-1]] = int32(len(v.tb))
			path = path[:len(path)-1]
		}
	}
	for _, id := range order {
		t := v.toks[id]
		lcp := 0
		for lcp < len(t) && lcp < len(prev) && t[lcp] == prev[lcp] {
			lcp++
		}
		closeTo(lcp)
		for d := lcp; d < len(t); d++ {
			n := int32(len(v.tb))
			v.tb = append(v.tb, t[d])
			v.dep = append(v.dep, uint16(d+1))
			v.skip = append(v.skip, 0)
			v.at = append(v.at, int32(len(v.ids)))
			if d == 0 {
				v.rootChild[t[0]] = n
			}
			path = append(path, n)
		}
		v.ids = append(v.ids, id)
		if len(t) == 1 && v.byteToken[t[0]] < 0 {
			v.byteToken[t[0]] = id
		}
		prev = t
	}
	closeTo(0)
	v.at = append(v.at, int32(len(v.ids)))
}

// Size is the logits width.
func (v *Vocab) Size() int { return v.size }

// Nodes is the number of trie nodes (for figures).
func (v *Vocab) Nodes() int { return len(v.tb) }

// Bytes returns the bytes token id adds, nil when constrained decoding never allows it.
func (v *Vocab) Bytes(id int) []byte {
	if id < 0 || id >= len(v.toks) {
		return nil
	}
	return v.toks[id]
}

// ByteToken returns a token whose bytes are exactly b.
func (v *Vocab) ByteToken(b byte) (int, bool) {
	id := v.byteToken[b]
	return int(id), id >= 0
}

// stringTable says, for every token, what it does to a JSON string it continues from a
// character boundary (no escape or UTF-8 sequence open).
type stringTable struct {
	// body: the whole token is string content (it may end inside an escape or a character);
	// its chars[i] characters start in it.
	body      []int32
	bodyChars []int32
	bodySet   []uint64
	// closers: the token's string content ends at an unescaped quote inside it, after which
	// the grammar above the string goes on.
	closers     []int32
	closerChars []int32
}

func (v *Vocab) strings() *stringTable {
	v.strOnce.Do(func() {
		t := &stringTable{bodySet: make([]uint64, words(v.size))}
		for id, tok := range v.toks {
			if tok == nil {
				continue
			}
			f := frame{mode: mString}
			chars, closed, ok := int32(0), false, true
			for _, b := range tok {
				st, start := strByte(&f, b)
				if st == strDead {
					ok = false
					break
				}
				if st == strClosed {
					closed = true
					break
				}
				if start {
					chars++
				}
			}
			switch {
			case !ok:
			case closed:
				t.closers = append(t.closers, int32(id))
				t.closerChars = append(t.closerChars, chars)
			default:
				t.body = append(t.body, int32(id))
				t.bodyChars = append(t.bodyChars, chars)
				t.bodySet[id>>6] |= 1 << (id & 63)
			}
		}
		v.str = t
	})
	return v.str
}

func words(n int) int { return (n + 63) / 64 }
