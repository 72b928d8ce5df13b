package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// A SentencePiece-style BPE (Llama 2, Mistral, Gemma) has no pre-tokenizer: the whole
// normalized text is one piece of a million symbols, merged through one large heap. It can be
// cut before each "▁" that follows a character x when no token of the vocabulary holds "x▁":
// a merge makes a token, so no merge can join symbols across such a cut, the pairs on either
// side never meet, and merging the parts one by one gives the reference's result exactly.
// (Llama 2's vocabulary has no such token; Gemma 3's has one, ">▁</", so it is not cut after
// ">".) Each part is a word, merged by rescanning, and
// repeated words come from a cache, as the reference's word cache does.

const (
	metaChar = "▁"
	// splitLongPiece is the shortest piece worth cutting.
	splitLongPiece = 64
	// cacheWordLen and cacheWords bound the per-encoder word cache.
	cacheWordLen = 48
	cacheWords   = 1 << 14
)

// metaJoins returns the characters some token holds right before "▁" (never cut after them)
// and whether pieces may be cut at all: only plain character models qualify (no byte-level
// alphabet, no subword prefix or suffix, no ignore_merges, which looks up whole pieces).
func (m *bpeModel) metaJoins() (map[rune]bool, bool) {
	if m.byteLevel || m.prefix != "" || m.suffix != "" || m.ignoreMerges || m.lookup(metaChar) < 0 {
		return nil, false
	}
	joins := map[rune]bool{'▁': true}
	for tok, i := range m.table.within(metaChar) {
		if i > 0 {
			r, _ := utf8.DecodeLastRuneInString(tok[:i])
			joins[r] = true
		}
	}
	return joins, true
}

// encodeCut appends the ids of a long plain piece, merged part by part (see above). A cut is
// made only where the character before "▁" is a token of its own: around unknown characters
// (unk, fused unk runs, byte fallback) the piece stays whole.
func (m *bpeModel) encodeCut(w *work, piece string, ids []int) []int {
	start := 0
	for i := 1; i < len(piece); {
		j := strings.Index(piece[i:], metaChar)
		if j < 0 {
			break
		}
		i += j
		r, n := utf8.DecodeLastRuneInString(piece[:i])
		if !m.metaJoin[r] && m.known(piece[i-n:i]) {
			ids = m.encodeWord(w, piece[start:i], ids)
			start = i
		}
		i += len(metaChar)
	}
	return m.encodeWord(w, piece[start:], ids)
}

// known reports whether the character c has a token of its own.
func (m *bpeModel) known(c string) bool { return m.charID(c) >= 0 }

// encodeWord appends the ids of one plain part, from the cache when it was merged before.
func (m *bpeModel) encodeWord(w *work, word string, ids []int) []int {
	if len(word) > cacheWordLen {
		return m.encodeLong(w, word, ids)
	}
	if got, ok := w.cache[word]; ok {
		for _, id := range got {
			ids = append(ids, int(id))
		}
		return ids
	}
	from := len(ids)
	w.syms = m.symbols(w, word)
	ids = m.merge(&w.bpeWork, ids)
	if len(w.cache) < cacheWords {
		if w.cache == nil {
			w.cache = make(map[string][]int32)
		}
		got := make([]int32, len(ids)-from)
		for k, id := range ids[from:] {
			got[k] = int32(id)
		}
		w.cache[strings.Clone(word)] = got
	}
	return ids
}

// runeJoins records, for each character, whether some token holds it before another
// character (it may join what follows) and after another (it may join what precedes). Two
// characters a, b can be cut apart when a never joins what follows or b never joins what
// precedes: no token holds "ab", so no merge joins them. In Llama 2's vocabulary most CJK
// ideographs are tokens only alone, so a long run of them, which has no "▁" to cut at, is cut
// between them.
type runeJoins struct {
	before, after []uint64 // bit sets over code points
}

func newRuneJoins(ids *vocabTable) *runeJoins {
	j := &runeJoins{before: make([]uint64, (utf8.MaxRune+64)/64), after: make([]uint64, (utf8.MaxRune+64)/64)}
	for e := range ids.len() {
		tok := ids.token(e)
		if len(tok) < 2 { // one byte: one character
			continue
		}
		prev := ^uint32(0) // none yet
		for _, r := range tok {
			c := uint32(r) // unsigned: shifts and masks without sign fix-ups
			if prev != ^uint32(0) {
				j.before[prev>>6] |= 1 << (prev & 63)
				j.after[c>>6] |= 1 << (c & 63)
			}
			prev = c
		}
	}
	return j
}

func (j *runeJoins) apart(a, b rune) bool {
	x, y := uint32(a), uint32(b)
	return j.before[x>>6]&(1<<(x&63)) == 0 || j.after[y>>6]&(1<<(y&63)) == 0
}

// encodeLong appends the ids of a long part with no "▁" to cut at, cut between characters
// that no token joins (see runeJoins) and are tokens of their own.
func (m *bpeModel) encodeLong(w *work, word string, ids []int) []int {
	m.joinsOnce.Do(func() { m.joins = newRuneJoins(m.table) })
	start, prev, prevAt := 0, rune(-1), 0
	for i, r := range word {
		if prev >= 0 && m.joins.apart(prev, r) && m.known(word[prevAt:i]) && m.known(word[i:i+utf8.RuneLen(r)]) {
			ids = m.encodePart(w, word[start:i], ids)
			start = i
		}
		prev, prevAt = r, i
	}
	return m.encodePart(w, word[start:], ids)
}

// encodePart appends the ids of a part that is not cut further.
func (m *bpeModel) encodePart(w *work, part string, ids []int) []int {
	if len(part) <= cacheWordLen {
		return m.encodeWord(w, part, ids)
	}
	w.syms = m.symbols(w, part)
	return m.merge(&w.bpeWork, ids)
}
