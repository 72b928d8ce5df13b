package tokenizer

import (
	"fmt"
	"unicode/utf8"
)

// byteTrie is a trie over the bytes of a vocabulary, its edges in an open-addressing table
// keyed by node<<8|byte: one probe per byte, no allocation, for WordPiece's longest match and
// Unigram's prefix search.
type byteTrie struct {
	edges mergeTable // node<<8|byte → child
	id    []int32    // token id ending at each node, -1 if none
}

func (t *byteTrie) init(n int) {
	t.edges = newMergeTable(n)
	t.id = append(t.id[:0], -1)
}

// add inserts tok (non-empty) with id; a later add of the same token replaces the id.
func (t *byteTrie) add(tok string, id int32) {
	node := uint64(0)
	for i := 0; i < len(tok); i++ {
		k := node<<8 | uint64(tok[i])
		next := t.edges.get(k)
		if next == noMerge {
			next = uint64(len(t.id))
			t.id = append(t.id, -1)
			t.edges.put(k, next)
		}
		node = next
	}
	t.id[node] = id
}

// child returns the node after byte b from node, or -1.
func (t *byteTrie) child(node int32, b byte) int32 {
	v := t.edges.get(uint64(node)<<8 | uint64(b))
	if v == noMerge {
		return -1
	}
	return int32(v)
}

// walk returns the node reached from node by s, or -1.
func (t *byteTrie) walk(node int32, s string) int32 {
	for i := 0; i < len(s) && node >= 0; i++ {
		node = t.child(node, s[i])
	}
	return node
}

// newByteTrie holds every token of ids.
func newByteTrie(ids map[string]int32) byteTrie {
	var t byteTrie
	n := 0
	for tok := range ids {
		n += len(tok)
	}
	t.init(n)
	for tok, id := range ids {
		if tok != "" {
			t.add(tok, id)
		}
	}
	return t
}

// wordPiece is the WordPiece model: greedy longest match from the start of the word, later
// subwords carrying the continuing-subword prefix; a word with a part that matches nothing,
// or longer than max_input_chars_per_word characters, is one unk.
type wordPiece struct {
	vocabInfo
	trie       byteTrie
	prefixNode int32 // the trie node of the continuing-subword prefix, -1 if no token has it
	prefix     string
	unk        int32
	maxChars   int
	byteLevel  bool
}

func newWordPiece(c *component, vocab map[string]int32, byteLevel bool) (*wordPiece, error) {
	m := &wordPiece{vocabInfo: vocabInfo{ids: vocab}, byteLevel: byteLevel}
	var unk string
	if err := c.required("unk_token", &unk); err != nil {
		return nil, err
	}
	if err := c.required("continuing_subword_prefix", &m.prefix); err != nil {
		return nil, err
	}
	if err := c.required("max_input_chars_per_word", &m.maxChars); err != nil {
		return nil, err
	}
	id, ok := vocab[unk]
	if !ok {
		return nil, fmt.Errorf("WordPiece unk_token %q is not in the vocab (the reference fails on the first unknown word)", unk)
	}
	m.unk = id
	if err := m.setTokens(); err != nil {
		return nil, err
	}
	m.trie = newByteTrie(vocab)
	m.prefixNode = m.trie.walk(0, m.prefix)
	return m, nil
}

func (m *wordPiece) describe() string {
	return fmt.Sprintf("WordPiece (%d tokens, prefix %q, unk %q, max %d characters)", len(m.ids), m.prefix, m.tokens[m.unk], m.maxChars)
}

func (m *wordPiece) encode(w *work, piece string, ids []int) []int {
	if m.byteLevel {
		w.buf = byteLevelString(w.buf[:0], piece)
		piece = string(w.buf)
	}
	if len(piece) > m.maxChars && utf8.RuneCountInString(piece) > m.maxChars {
		return append(ids, int(m.unk))
	}
	start0 := len(ids)
	for start := 0; start < len(piece); {
		node := int32(0)
		if start > 0 {
			node = m.prefixNode
		}
		best, bestEnd := int32(-1), 0
		for i := start; i < len(piece) && node >= 0; i++ {
			if node = m.trie.child(node, piece[i]); node >= 0 && m.trie.id[node] >= 0 {
				best, bestEnd = m.trie.id[node], i+1
			}
		}
		if best < 0 {
			return append(ids[:start0], int(m.unk))
		}
		ids = append(ids, int(best))
		start = bestEnd
	}
	return ids
}

// wordLevel is the WordLevel model: the whole piece is a token, or unk.
type wordLevel struct {
	vocabInfo
	unk       int32 // -1 when the unk token is not in the vocab: such words are dropped
	byteLevel bool
}

func newWordLevel(c *component, vocab map[string]int32, byteLevel bool) (*wordLevel, error) {
	m := &wordLevel{vocabInfo: vocabInfo{ids: vocab}, byteLevel: byteLevel}
	var unk string
	if err := c.required("unk_token", &unk); err != nil {
		return nil, err
	}
	m.unk = m.lookup(unk)
	return m, m.setTokens()
}

func (m *wordLevel) describe() string { return fmt.Sprintf("WordLevel (%d tokens)", len(m.ids)) }

func (m *wordLevel) encode(w *work, piece string, ids []int) []int {
	if m.byteLevel {
		w.buf = byteLevelString(w.buf[:0], piece)
		piece = string(w.buf)
	}
	if id, ok := m.ids[piece]; ok {
		return append(ids, int(id))
	}
	if m.unk >= 0 {
		ids = append(ids, int(m.unk))
	}
	return ids
}
