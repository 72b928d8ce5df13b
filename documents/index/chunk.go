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
// Chunks are slices of text, not copies: a document's chunks hold its text once, however
// much they overlap.
func splitText(text string, size, overlap int) []string {
	text = strings.TrimSpace(text)
	if len(text) <= size {
		if text == "" {
			return nil
		}
		return []string{text}
	}
	var chunks []string
	// The chunk being packed is text[start:pos]; text[start:carried] is the overlap carried
	// from the chunk before.
	start, carried, pos := 0, 0, 0
	emit := func() {
		c := strings.TrimSpace(text[start:pos])
		if c != "" {
			chunks = append(chunks, c)
			start += tailStart(text[start:pos], overlap)
		} else {
			start = pos
		}
		carried = pos
	}
	fits := func(end int) bool { return len(strings.TrimSpace(text[start:end])) <= size }
	for _, p := range pieces(text, size-overlap, size) {
		if !fits(pos+len(p)) && pos > carried {
			emit()
		}
		if !fits(pos + len(p)) { // a word almost a chunk long: no overlap before it
			start, carried = pos, pos
		}
		pos += len(p)
	}
	if c := strings.TrimSpace(text[start:pos]); c != "" && pos > carried { // more than the overlap
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

// tailStart is where the last n bytes of s start, moved on to the start of a word (0 when s
// is no longer than n; len(s) when n is 0).
func tailStart(s string, n int) int {
	if n <= 0 {
		return len(s)
	}
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	if len(s) <= n {
		return 0
	}
	i := len(s) - n
	if j := strings.IndexFunc(s[i:], unicode.IsSpace); j >= 0 {
		_, w := utf8.DecodeRuneInString(s[i+j:])
		i += j + w
	}
	return i
}
