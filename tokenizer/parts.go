package tokenizer

import (
	"sort"
	"strings"
)

// Part is a piece of a prompt: text the app controls (Special: added tokens are matched) or
// text a person wrote (matched as plain text only).
type Part struct {
	Text    string
	Special bool
}

// EncodeParts tokenizes a prompt made of parts. Added tokens are matched only inside Special
// parts; the plain text between two added tokens is normalized and pre-tokenized as one piece,
// across part boundaries, so the ids equal EncodeSpecial of the joined text wherever the
// non-special parts hold no token strings. A token's lstrip, rstrip and single_word look at
// the joined text, as they would in EncodeSpecial of it.
func (t *Pipeline) EncodeParts(parts []Part) []int {
	st := t.state()
	defer t.pool.Put(st)
	var b strings.Builder
	var regions [][2]int // byte ranges of the Special parts
	for _, p := range parts {
		text := validUTF8(p.Text)
		if p.Special && text != "" {
			if n := len(regions); n > 0 && regions[n-1][1] == b.Len() {
				regions[n-1][1] += len(text)
			} else {
				regions = append(regions, [2]int{b.Len(), b.Len() + len(text)})
			}
		}
		b.WriteString(text)
	}
	s := b.String()
	var ids []int
	if regions == nil {
		regions = [][2]int{} // no part may hold a token
	}
	t.added.raw.find(s, regions, func(start, end, id int) {
		if id >= 0 {
			ids = append(ids, id)
			return
		}
		ids = t.encodeGap(st, s[start:end], start == 0, inRegion(regions, start, end), ids)
	})
	return ids
}

// encodeGap encodes the text between two raw-matched added tokens: normalized, then, if it is
// all app text, cut at the added tokens matched after normalization.
func (t *Pipeline) encodeGap(st *encodeState, text string, first, app bool, ids []int) []int {
	norm, keeps := t.norm.applyFirst(text)
	head := 0
	if first {
		head = t.head(text, keeps)
	}
	if !app {
		return t.encodeNormalized(st, norm, head, ids)
	}
	t.added.normalized.find(norm, nil, func(start, end, id int) {
		if id >= 0 {
			ids = append(ids, id)
			return
		}
		ids = t.encodeNormalized(st, norm[start:end], headAt(head, start), ids)
	})
	return ids
}

// inRegion reports whether [start, end) lies inside one of the regions, which are sorted and
// do not overlap: only the last region that starts at or before start can hold it. A binary
// search keeps a prompt of many messages (many regions, many gaps) linear in its size, not
// quadratic.
func inRegion(regions [][2]int, start, end int) bool {
	i := sort.Search(len(regions), func(i int) bool { return regions[i][0] > start }) - 1
	return i >= 0 && end <= regions[i][1]
}
