package tokenizer

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// unkPenalty is how much lower than the lowest piece score an unknown character scores.
const unkPenalty = 10.0

// unigram is the Unigram model: the segmentation of a piece whose pieces' scores sum highest
// (Viterbi over every vocab entry that starts at each character), a character no entry covers
// alone being unk; runs of unk are fused and, with byte_fallback, spelled as <0xNN> tokens.
// It follows the reference's encode_optimized, ties included: earlier candidates win.
type unigram struct {
	vocabInfo
	scores       []float64
	trie         byteTrie
	minScore     float64
	unk          int32 // -1 without unk_id: unknown characters are dropped (the reference errs)
	byteFallback bool
	fallback     [256]int32
	byteLevel    bool
}

// unigramWork is the Viterbi scratch space.
type unigramWork struct {
	score []float64
	start []int32 // where the best path ending here starts; -1 unreached
	id    []int32
}

func newUnigram(c *component, pieces []scoredPiece, byteLevel bool) (*unigram, error) {
	m := &unigram{unk: -1, byteLevel: byteLevel}
	var unk *int
	if _, err := c.nullable("unk_id", &unk); err != nil {
		return nil, err
	}
	if _, err := c.nullable("byte_fallback", &m.byteFallback); err != nil {
		return nil, err
	}
	if unk != nil {
		if len(pieces) == 0 {
			return nil, c.errorf("empty vocabulary")
		}
		if *unk < 0 || *unk >= len(pieces) {
			return nil, c.errorf("unk_id %d is outside the vocabulary", *unk)
		}
		m.unk = int32(*unk)
	}
	m.ids = make(map[string]int32, len(pieces))
	m.tokens, m.has = make([]string, len(pieces)), make([]bool, len(pieces))
	m.scores = make([]float64, len(pieces))
	m.size = len(pieces)
	n := 0
	for _, p := range pieces {
		n += len(p.token)
	}
	m.trie.init(n)
	m.minScore = math.Inf(1)
	for id, p := range pieces {
		m.ids[p.token] = int32(id)
		m.tokens[id], m.has[id], m.scores[id] = p.token, true, p.score
		if p.token != "" {
			m.trie.add(p.token, int32(id))
		}
		m.minScore = min(m.minScore, p.score)
	}
	for b := range m.fallback {
		m.fallback[b] = m.lookup(fmt.Sprintf("<0x%02X>", b))
	}
	return m, nil
}

func (m *unigram) describe() string {
	d := fmt.Sprintf("Unigram (%d pieces)", len(m.tokens))
	if m.byteFallback {
		d += ", byte_fallback"
	}
	return d
}

func (m *unigram) encode(w *work, piece string, ids []int) []int {
	if m.byteLevel {
		w.buf = byteLevelString(w.buf[:0], piece)
		piece = string(w.buf)
	}
	n := len(piece)
	if n == 0 {
		return ids
	}
	u := &w.uni
	if cap(u.score) < n+1 {
		u.score, u.start, u.id = make([]float64, n+1), make([]int32, n+1), make([]int32, n+1)
	}
	score, start, id := u.score[:n+1], u.start[:n+1], u.id[:n+1]
	for i := range start {
		start[i], score[i] = -1, 0
	}
	unkScore := m.minScore - unkPenalty
	for pos := 0; pos < n; {
		till := score[pos]
		mblen := 1
		if piece[pos] >= utf8.RuneSelf {
			_, mblen = utf8.DecodeRuneInString(piece[pos:])
		}
		single := false
		node := int32(0)
		for i := pos; i < n; i++ {
			if node = m.trie.child(node, piece[i]); node < 0 {
				break
			}
			tok := m.trie.id[node]
			if tok < 0 {
				continue
			}
			end := i + 1
			if cand := m.scores[tok] + till; start[end] < 0 || cand > score[end] {
				score[end], start[end], id[end] = cand, int32(pos), tok
			}
			if end-pos == mblen {
				single = true
			}
		}
		if !single {
			end := pos + mblen
			if cand := unkScore + till; start[end] < 0 || cand > score[end] {
				score[end], start[end], id[end] = cand, int32(pos), m.unk
			}
		}
		pos += mblen
	}
	return m.backtrack(w, piece, ids)
}

// backtrack appends the ids of the best path: fused runs of unk looked up whole, then spelled
// in bytes or given the unk id.
func (m *unigram) backtrack(w *work, piece string, ids []int) []int {
	u := &w.uni
	first := len(ids)
	unkEnd := -1 // end of the unk run being fused (walking backwards)
	flush := func(from int) {
		if unkEnd < 0 {
			return
		}
		ids = m.appendUnk(ids, piece[from:unkEnd])
		unkEnd = -1
	}
	end := len(piece)
	for end > 0 {
		s := int(u.start[end])
		if s < 0 { // unreachable: an unknown character without unk_id
			end--
			for end > 0 && u.start[end] < 0 {
				end--
			}
			continue
		}
		tok := u.id[end]
		if tok == m.unk {
			if unkEnd < 0 {
				unkEnd = end
			}
		} else {
			flush(end)
			ids = append(ids, int(tok))
		}
		end = s
	}
	flush(0)
	// The ids went in backwards, each unk run's bytes forwards: reverse by runs.
	slices.Reverse(ids[first:])
	return ids
}

// appendUnk appends the ids of a fused unk run (in reverse order, to be reversed with the rest).
func (m *unigram) appendUnk(ids []int, s string) []int {
	if id, ok := m.ids[s]; ok {
		return append(ids, int(id))
	}
	if m.byteFallback {
		ok := true
		for i := 0; i < len(s); i++ {
			ok = ok && m.fallback[s[i]] >= 0
		}
		if ok {
			for i := len(s) - 1; i >= 0; i-- {
				ids = append(ids, int(m.fallback[s[i]]))
			}
			return ids
		}
	}
	if m.unk < 0 {
		return ids
	}
	return append(ids, int(m.unk))
}
