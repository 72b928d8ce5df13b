package grammar

import (
	"bytes"
	"slices"
)

// litTrie is a small trie of byte strings: the texts of an enum, or an object's keys (each
// JSON-encoded, closing quote included). Node 0 is the root.
type litTrie struct {
	nodes []litNode
	edges []litEdge
	// below[n] has bit i set when string i ends at or under node n (keys: property i).
	below []uint64
}

type litNode struct {
	first, n int32 // edges[first:first+n], sorted by byte
	term     int32 // index of the string ending here, or -1
}

type litEdge struct {
	b    byte
	next int32
}

// newLitTrie builds the trie of texts; duplicates are one string (the first index).
func newLitTrie(texts []string) *litTrie {
	type building struct {
		kids map[byte]int32
		term int32
	}
	nodes := []building{{kids: map[byte]int32{}, term: -1}}
	below := []uint64{0}
	for i, s := range texts {
		n := int32(0)
		for j := 0; j < len(s); j++ {
			if i < 64 {
				below[n] |= 1 << i
			}
			next, ok := nodes[n].kids[s[j]]
			if !ok {
				next = int32(len(nodes))
				nodes = append(nodes, building{kids: map[byte]int32{}, term: -1})
				below = append(below, 0)
				nodes[n].kids[s[j]] = next
			}
			n = next
		}
		if i < 64 {
			below[n] |= 1 << i
		}
		if nodes[n].term < 0 {
			nodes[n].term = int32(i)
		}
	}
	t := &litTrie{below: below}
	for _, b := range nodes {
		keys := make([]byte, 0, len(b.kids))
		for k := range b.kids {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		t.nodes = append(t.nodes, litNode{first: int32(len(t.edges)), n: int32(len(keys)), term: b.term})
		for _, k := range keys {
			t.edges = append(t.edges, litEdge{k, b.kids[k]})
		}
	}
	return t
}

// newKeyTrie is the trie of an object's property names as they appear in JSON, from after the
// opening quote to the closing one.
func newKeyTrie(names []string) *litTrie {
	texts := make([]string, len(names))
	for i, n := range names {
		b, _ := canonical(n)
		texts[i] = string(b[1:])
	}
	return newLitTrie(texts)
}

// next is the node after n by byte b, or -1.
func (t *litTrie) next(n int32, b byte) int32 {
	nd := t.nodes[n]
	for _, e := range t.edges[nd.first : nd.first+nd.n] {
		if e.b == b {
			return e.next
		}
	}
	return -1
}

// shortest returns the shortest bytes from node n to the end of a string whose index is in
// want (nil: any), and that string's index; ok is false when none is below n.
func (t *litTrie) shortest(n int32, want func(i int32) bool) (tail []byte, idx int32, ok bool) {
	type item struct {
		node int32
		path []byte
	}
	queue := []item{{n, nil}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		nd := t.nodes[it.node]
		if nd.term >= 0 && (want == nil || want(nd.term)) {
			return it.path, nd.term, true
		}
		for _, e := range t.edges[nd.first : nd.first+nd.n] {
			queue = append(queue, item{e.next, append(bytes.Clone(it.path), e.b)})
		}
	}
	return nil, -1, false
}
