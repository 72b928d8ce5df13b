package tokenizer

// addedVocab finds added tokens in app-controlled text.
type addedVocab struct {
	byContent  map[string]int
	raw        trie // tokens matched on the text as given ("normalized": false)
	normalized trie // tokens matched after normalization ("normalized": true)
}

// trie matches a set of strings leftmost-longest, as the reference's Aho-Corasick automaton
// (MatchKind::LeftmostLongest) does.
type trie struct {
	nodes []trieNode
	first [256]bool
}

type trieNode struct {
	next map[byte]int32
	id   int // -1 when no token ends here
}

func (t *trie) add(s string, id int) {
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
	t.nodes[n].id = id
	t.first[s[0]] = true
}

// longest returns the length and id of the longest token at the start of s (0 if none).
func (t *trie) longest(s string) (int, int) {
	n, bestLen, bestID := int32(0), 0, -1
	for i := 0; i < len(s); i++ {
		c, ok := t.nodes[n].next[s[i]]
		if !ok {
			break
		}
		n = c
		if t.nodes[n].id >= 0 {
			bestLen, bestID = i+1, t.nodes[n].id
		}
	}
	return bestLen, bestID
}

// split calls f for every stretch of s, in order: f(text, -1) for text between tokens and
// f(token, id) for a token.
func (t *trie) split(s string, f func(seg string, id int)) {
	start := 0
	if len(t.nodes) > 0 {
		for i := 0; i < len(s); i++ {
			if !t.first[s[i]] {
				continue
			}
			n, id := t.longest(s[i:])
			if n == 0 {
				continue
			}
			if start < i {
				f(s[start:i], -1)
			}
			f(s[i:i+n], id)
			start = i + n
			i += n - 1
		}
	}
	if start < len(s) {
		f(s[start:], -1)
	}
}
