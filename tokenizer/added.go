package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// buildAdded registers the added tokens for matching and decoding.
func (t *BPE) buildAdded(tokens []addedTokenJSON) {
	a := &t.added
	a.byContent = make(map[string]int, len(tokens))
	d := &t.decoding
	d.added = make(map[int]string, len(tokens))
	for _, tok := range tokens {
		if tok.ID < 0 {
			continue
		}
		a.byContent[tok.Content] = tok.ID
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
		if tok.Normalized {
			a.normalized.add(t.normalize(tok.Content), tok.ID, flags)
		} else {
			a.raw.add(tok.Content, tok.ID, flags)
		}
		for len(d.kind) <= tok.ID {
			d.kind = append(d.kind, kindNone)
		}
		d.kind[tok.ID] = kindAdded
		if tok.Special {
			d.kind[tok.ID] = kindSpecial
		}
		d.added[tok.ID] = tok.Content
		t.vocabSize = max(t.vocabSize, tok.ID+1)
	}
}

// addedVocab finds added tokens in app-controlled text.
type addedVocab struct {
	byContent  map[string]int
	raw        trie // tokens matched on the text as given ("normalized": false)
	normalized trie // tokens matched after normalization ("normalized": true)
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
// and the joiners.
func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.In(r, unicode.Nl, unicode.Other_Alphabetic, unicode.M, unicode.Nd, unicode.Pc) ||
		r == 0x200C || r == 0x200D
}

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
