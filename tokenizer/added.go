package tokenizer

import "unicode/utf8"

// finish registers the added tokens as the reference's add_tokens does — each takes the id of
// the same content in the vocab or among the tokens added before, else the next free id after
// the model's vocabulary (the file's ids are not read: the reference renumbers silently) — and
// builds the decode table.
func (t *Pipeline) finish(tokens []addedTokenJSON) {
	voc := t.model.vocab()
	a := &t.added
	a.byContent = make(map[string]int, len(tokens))
	a.contents = map[int]addedTokenJSON{}
	specialSet := map[string]bool{}
	var specials, plain []addedTokenJSON
	for _, tok := range tokens {
		if tok.Special && tok.Content != "" && !specialSet[tok.Content] {
			specials = append(specials, tok)
			specialSet[tok.Content] = true
		}
	}
	seen := map[addedTokenJSON]bool{}
	next := voc.size
	for _, tok := range tokens {
		key := tok
		key.ID = 0
		if tok.Content == "" || seen[key] {
			continue
		}
		id, ok := a.byContent[tok.Content]
		if !ok {
			if v, inVocab := voc.get(tok.Content); inVocab {
				id = int(v)
			} else {
				id, next = next, next+1
			}
		}
		a.byContent[tok.Content] = id
		a.contents[id] = tok
		if !specialSet[tok.Content] {
			plain = append(plain, tok)
		}
		seen[key] = true
	}
	for _, tok := range append(specials, plain...) {
		id := a.byContent[tok.Content]
		flags := a.contents[id].flags()
		if tok.Normalized {
			a.normalized.add(t.norm.apply(tok.Content), id, flags)
		} else {
			a.raw.add(tok.Content, id, flags)
		}
	}
	t.vocabSize = voc.idLimit()
	for id := range a.contents {
		t.vocabSize = max(t.vocabSize, id+1)
	}
	t.specials = specialSet
}

// decoding returns the decode table, built on first use.
func (t *Pipeline) decoding() *decodeTable {
	t.decodeOnce.Do(func() { t.buildDecoding(t.specials) })
	return &t.decodeTab
}

func (tok addedTokenJSON) flags() uint8 {
	var flags uint8
	if tok.SingleWord {
		flags |= addedSingleWord
	}
	if tok.Lstrip {
		flags |= addedLstrip
	}
	if tok.Rstrip {
		flags |= addedRstrip
	}
	return flags
}

// buildDecoding fills the decode table: every id's token string, whether skip_special drops
// it, and for the ByteLevel decoder the model tokens' bytes.
func (t *Pipeline) buildDecoding(specialSet map[string]bool) {
	voc := t.model.vocab()
	voc.fillTokens()
	d := &t.decodeTab
	n := t.vocabSize
	d.kind, d.special, d.toks = make([]uint8, n), make([]bool, n), make([]string, n)
	for id, ok := range voc.has {
		if ok {
			d.kind[id], d.toks[id] = kindModel, voc.tokens[id]
		}
	}
	for id, tok := range t.added.contents {
		d.kind[id], d.toks[id] = kindAdded, tok.Content
	}
	for s := range specialSet { // ids whose text is a special token's: few, found by content
		for _, id := range []int{int(voc.lookup(s)), t.added.byContent[s]} {
			if id >= 0 && id < n && d.kind[id] != kindNone && d.toks[id] == s {
				d.special[id] = true
			}
		}
	}
	if !t.dec.byteLevelOnly {
		return
	}
	d.off = make([]uint32, n+1)
	d.bytes = make([]byte, 0, n*6)
	for id := range n {
		d.off[id] = uint32(len(d.bytes))
		if d.kind[id] == kindModel {
			d.bytes, _ = appendByteLevelDecode(d.bytes, d.toks[id])
		}
	}
	d.off[n] = uint32(len(d.bytes))
}

// addedVocab finds added tokens in app-controlled text.
type addedVocab struct {
	byContent  map[string]int
	contents   map[int]addedTokenJSON // by id: the token last registered with it
	raw        trie                   // tokens matched on the text as given ("normalized": false)
	normalized trie                   // tokens matched after normalization ("normalized": true)
}

// Flags of an added token.
const (
	addedSingleWord uint8 = 1 << iota // matches only between non-word characters
	addedLstrip                       // takes the whitespace before it
	addedRstrip                       // takes the whitespace after it, newlines included
)

// trie matches a set of strings leftmost-longest, as the reference's Aho-Corasick automaton
// (MatchKind::LeftmostLongest) does.
type trie struct {
	nodes []trieNode
	first [256]bool
}

type trieNode struct {
	next  map[byte]int32
	id    int // -1 when no token ends here
	flags uint8
}

func (t *trie) add(s string, id int, flags uint8) {
	if s == "" {
		return
	}
	if len(t.nodes) == 0 {
		t.nodes = append(t.nodes, trieNode{id: -1})
	}
	n := int32(0)
	for i := 0; i < len(s); i++ {
		c, ok := t.nodes[n].next[s[i]]
		if !ok {
			c = int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{id: -1})
			if t.nodes[n].next == nil {
				t.nodes[n].next = map[byte]int32{}
			}
			t.nodes[n].next[s[i]] = c
		}
		n = c
	}
	t.nodes[n].id, t.nodes[n].flags = id, flags
	t.first[s[0]] = true
}

// longest returns the length, id and flags of the longest token at the start of s (length 0
// if none).
func (t *trie) longest(s string) (int, int, uint8) {
	n, bestLen, best := int32(0), 0, int32(-1)
	for i := 0; i < len(s); i++ {
		c, ok := t.nodes[n].next[s[i]]
		if !ok {
			break
		}
		n = c
		if t.nodes[n].id >= 0 {
			bestLen, best = i+1, n
		}
	}
	if best < 0 {
		return 0, -1, 0
	}
	return bestLen, t.nodes[best].id, t.nodes[best].flags
}

// find calls f(start, end, id) for every stretch of s in order, id -1 for text, as the
// reference's find_matches: tokens are found leftmost-longest and the search goes on after
// each one's text; a single_word token next to a word character is passed over; lstrip and
// rstrip widen a token over the whitespace beside it. With regions non-nil a token must lie
// inside one of them (sorted byte ranges of s), though stripping may reach beyond.
func (t *trie) find(s string, regions [][2]int, f func(start, end, id int)) {
	off := 0
	scan := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if !t.first[s[i]] {
				continue
			}
			n, id, flags := t.longest(s[i:hi])
			if n == 0 {
				continue
			}
			start, stop := i, i+n
			i = stop - 1
			if flags&addedSingleWord != 0 && (endsWithWord(s[:start]) || startsWithWord(s[stop:])) {
				continue
			}
			if flags&addedLstrip != 0 {
				start = max(start-trailingSpace(s[:start]), off)
			}
			if flags&addedRstrip != 0 {
				stop += leadingSpace(s[stop:])
			}
			if off < start {
				f(off, start, -1)
			}
			f(start, stop, id)
			off = stop
		}
	}
	if len(t.nodes) > 0 {
		if regions == nil {
			scan(0, len(s))
		}
		for _, r := range regions {
			scan(r[0], r[1])
		}
	}
	if off < len(s) {
		f(off, len(s), -1)
	}
}

// isWordChar is the reference's \w: Alphabetic, marks, decimal digits, connector punctuation
// and the joiners (Unicode 16.0).
func isWordChar(r rune) bool { return class2(r)&c2Word != 0 }

func endsWithWord(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isWordChar(r)
}

func startsWithWord(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isWordChar(r)
}

// leadingSpace returns the length of the whitespace (\s) at the start of s.
func leadingSpace(s string) int {
	i := 0
	for i < len(s) {
		_, c, w := next(s, i)
		if c&cSpace == 0 {
			break
		}
		i += w
	}
	return i
}

// trailingSpace returns the length of the whitespace (\s) at the end of s.
func trailingSpace(s string) int {
	i := len(s)
	for i > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:i])
		if class(r)&cSpace == 0 {
			break
		}
		i -= w
	}
	return len(s) - i
}
