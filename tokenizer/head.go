package tokenizer

import "unicode/utf8"

// headWindow bounds the start of the input the normalizer runs on again to find its head.
const headWindow = 256

// head returns normalizer.head for a pre-tokenizer with a Metaspace whose prepend_scheme is
// first, the only step that asks, and 1 (the text starts the input) for the others, without
// running the normalizer again.
func (t *Pipeline) head(text string, keeps bool) int {
	for _, st := range t.pre.steps {
		if m, ok := st.(metaspace); ok && m.scheme == prependFirst {
			return t.norm.head(text, keeps)
		}
	}
	if keeps {
		return 1
	}
	return 0
}

// head returns the length of the start of the normalized text that stands for the start of
// text (original offset 0; see preStep), following the Rust library's offsets through each
// step: none when a step dropped the first character (keeps false); an expansion of the first
// character ("½" → "1⁄2") keeps its offsets, all of it; a Precompiled charsmap gives its
// output the offsets of the characters it replaces in turn (charsmap.head). It runs the
// steps again on the first headWindow bytes of text only.
func (n normalizer) head(text string, keeps bool) int {
	if !keeps || text == "" {
		return 0
	}
	s := text
	if len(s) > headWindow {
		end := headWindow
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		s = s[:end]
	}
	_, h := utf8.DecodeRuneInString(s)
	for _, st := range n {
		if m, ok := st.(*charsmap); ok {
			s, h = m.head(s, h)
		} else if f, ok := st.(formStep); ok {
			s, h = f.head(s, h)
		} else {
			// The other steps map each character on its own (a composition keeps the
			// offsets of its first character): the head is what the head maps to.
			hs, _ := st.apply(s[:h])
			s, _ = st.apply(s)
			h = len(hs)
		}
		if s == "" {
			return 0
		}
		if _, w := utf8.DecodeRuneInString(s); h < w {
			h = w
		}
		h = min(h, len(s))
	}
	return h
}

// head returns s normalized and the length of the start of it whose offsets lie in the first
// h bytes of s, as the Rust library computes them: each cluster's replacement takes the
// offsets of the cluster's characters in turn, extra characters those of the one before, and
// a removal is charged to the character before it, so that removals at the very start are
// lost and the next characters take the removed ones' offsets.
func (m *charsmap) head(s string, h int) (string, int) {
	var ch []change
	replace := func(old, repl string) {
		diff := utf8.RuneCountInString(repl) - utf8.RuneCountInString(old)
		for _, r := range repl {
			ch = append(ch, change{r, 0})
		}
		switch {
		case diff > 0:
			for i := len(ch) - diff; i < len(ch); i++ {
				ch[i].n = 1
			}
		case diff < 0 && len(ch) > 0:
			ch[len(ch)-1].n += diff
		}
	}
	modified := false
	for i := 0; i < len(s); {
		n := graphemeLen(s[i:])
		g := s[i : i+n]
		i += n
		if n < 6 {
			if norm, ok := m.transform(g); ok {
				modified = true
				replace(g, norm)
				continue
			}
		}
		for j := 0; j < len(g); {
			r, w := utf8.DecodeRuneInString(g[j:])
			if norm, ok := m.transform(g[j : j+w]); ok {
				modified = true
				replace(g[j:j+w], norm)
			} else {
				ch = append(ch, change{r, 0})
			}
			j += w
		}
	}
	if !modified {
		return s, h
	}
	return alignHead(s, h, ch)
}

// change is one character of a normalizer's output as the Rust library's transform takes it:
// n is 0 when it replaces the next character of the input, 1 when it is inserted (it takes the
// offsets of the character before), -k when it also removes the k characters after that one.
type change struct {
	r rune
	n int
}

// alignHead returns the output that ch spells and the length of its start whose offsets lie in
// the first h bytes of s, the input ch was made from: the Rust library gives each output
// character the offsets of the input character it replaces, counting them in turn, whatever
// character it came from.
func alignHead(s string, h int, ch []change) (string, int) {
	out := make([]byte, 0, len(s))
	head, old := 0, 0 // old: bytes of s consumed
	inHead := true
	for _, c := range ch {
		if inHead {
			if c.n > 0 {
				inHead = old < 1 || old-1 < h
			} else {
				inHead = old < h
			}
		}
		out = utf8.AppendRune(out, c.r)
		if inHead {
			head = len(out)
		}
		if c.n <= 0 {
			for k := 0; k < 1-min(c.n, 0) && old < len(s); k++ {
				_, w := utf8.DecodeRuneInString(s[old:])
				old += w
			}
		}
	}
	return string(out), head
}
