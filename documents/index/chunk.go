package index

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"edgechat/documents/extract"
)

// Chunk is a passage of a document: a few paragraphs from one page or one heading's section.
type Chunk struct {
	Page    int
	Heading string
	Text    string
}

// Default chunk sizes in bytes: about 300 tokens of English with 50 of overlap, so a
// 2,048-token context still takes a few passages beside the question and the reply.
const (
	ChunkBytes   = 1200
	OverlapBytes = 200
)

// Split cuts each section into chunks of at most size bytes, at paragraph ends where it
// can, then lines, sentences and words. Consecutive chunks of a section share overlap
// bytes (whole words) so a fact cut at a boundary is whole in one of them. Chunks never
// span two sections: each keeps its page and heading.
func Split(secs []extract.Section, size, overlap int) []Chunk {
	if size <= 0 {
		size = ChunkBytes
	}
	overlap = min(max(overlap, 0), size/2)
	var out []Chunk
	for _, s := range secs {
		for _, text := range splitText(s.Text, size, overlap) {
			out = append(out, Chunk{Page: s.Page, Heading: s.Heading, Text: text})
		}
	}
	return out
}

// splitText packs pieces (paragraphs, or smaller when a paragraph is too long) into chunks.
func splitText(text string, size, overlap int) []string {
	text = strings.TrimSpace(text)
	if len(text) <= size {
		if text == "" {
			return nil
		}
		return []string{text}
	}
	var chunks []string
	var cur strings.Builder
	tailLen := 0 // the overlap carried from the last chunk, at the start of cur
	emit := func() {
		c := strings.TrimSpace(cur.String())
		cur.Reset()
		tailLen = 0
		if c == "" {
			return
		}
		chunks = append(chunks, c)
		t := tail(c, overlap)
		cur.WriteString(t)
		tailLen = len(t)
	}
	for _, p := range pieces(text, size-overlap, size) {
		if cur.Len()+len(p) > size && cur.Len() > tailLen {
			emit()
		}
		if cur.Len()+len(p) > size { // a word almost a chunk long: no overlap before it
			cur.Reset()
			tailLen = 0
		}
		cur.WriteString(p)
	}
	if c := strings.TrimSpace(cur.String()); c != "" && cur.Len() > tailLen { // more than the overlap
		chunks = append(chunks, c)
	}
	return chunks
}

// separators, coarsest first: paragraphs, lines, sentences, then words ("": after any white
// space, as strings.Fields sees words — a form feed or a no-break space separates them too).
var separators = []string{"\n\n", "\n", ". ", ""}

// pieces cuts text into parts of at most max bytes, each ending with its separator, using
// the coarsest separator that works; a word stays whole up to hard bytes (a chunk's size),
// and a longer one is cut at hard bytes (on a UTF-8 boundary).
func pieces(text string, max, hard int) []string {
	return cut(text, max, hard, 0)
}

func cut(text string, max, hard, level int) []string {
	if len(text) <= max {
		return []string{text}
	}
	if level == len(separators) {
		if len(text) <= hard {
			return []string{text}
		}
		var out []string
		for len(text) > hard {
			i := hard
			for i > 0 && !utf8Start(text[i]) {
				i--
			}
			if i == 0 {
				i = hard
			}
			out = append(out, text[:i])
			text = text[i:]
		}
		return append(out, text)
	}
	var out []string
	parts := strings.SplitAfter(text, separators[level])
	if separators[level] == "" {
		parts = splitAfterSpace(text)
	}
	for _, part := range parts {
		if part == "" {
			continue
		}
		if len(part) > max {
			out = append(out, cut(part, max, hard, level+1)...)
		} else {
			out = append(out, part)
		}
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// splitAfterSpace cuts text after each run of white space.
func splitAfterSpace(text string) []string {
	var out []string
	start, inSpace := 0, false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if inSpace && !space {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = space
	}
	return append(out, text[start:])
}

// tail is the end of s, at most n bytes, starting at a word.
func tail(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s + " "
	}
	t := s[len(s)-n:]
	if i := strings.IndexFunc(t, unicode.IsSpace); i >= 0 {
		_, n := utf8.DecodeRuneInString(t[i:])
		t = t[i+n:]
	}
	return t + " "
}
