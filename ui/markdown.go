package ui

import "strings"

// BlockKind tells how a Markdown block is rendered.
type BlockKind int

const (
	// BlockProse is any Markdown that is not a fenced code block.
	BlockProse BlockKind = iota
	// BlockCode is a fenced code block; Text holds the code without the fences.
	BlockCode
)

// Block is one top-level piece of a Markdown document.
type Block struct {
	Kind BlockKind
	Lang string
	Text string
}

// Splitter cuts streamed Markdown into settled blocks and one open tail block, so that a
// view re-renders only the tail per update. Add costs O(len(chunk) + length of the current
// line), whatever the length of the document. Not safe for concurrent use.
type Splitter struct {
	buf       strings.Builder
	tailStart int  // offset where the open block starts
	scan      int  // offset of the first line not yet classified
	inFence   bool // the tail is a fenced code block
	fence     string
	blank     bool // a blank line followed the tail's last content line
	tailList  bool // the tail block started with a list item
	tailEmpty bool // the tail holds only blank lines so far
}

// NewSplitter returns an empty splitter.
func NewSplitter() *Splitter { return &Splitter{tailEmpty: true} }

// Text returns the whole document so far (no copy).
func (s *Splitter) Text() string { return s.buf.String() }

// Add appends chunk and returns the blocks it settled, in order.
func (s *Splitter) Add(chunk string) []Block {
	s.buf.WriteString(chunk)
	text := s.buf.String()
	var out []Block
	for {
		nl := strings.IndexByte(text[s.scan:], '\n')
		if nl < 0 {
			// A non-blank partial line after a blank one starts a new block unless the
			// open block is a list (then the whole line decides).
			if s.blank && !s.tailList && strings.TrimSpace(text[s.scan:]) != "" {
				if b, ok := s.settle(text, s.scan); ok {
					out = append(out, b)
				}
			}
			return out
		}
		start, end := s.scan, s.scan+nl+1
		if b, ok := s.line(text, start, end); ok {
			out = append(out, b)
		}
		s.scan = end
	}
}

// line classifies the complete line text[start:end] and may settle the block before it.
func (s *Splitter) line(text string, start, end int) (Block, bool) {
	ln := strings.TrimRight(text[start:end], "\r\n")
	trim := strings.TrimSpace(ln)
	if s.inFence {
		if strings.HasPrefix(strings.TrimLeft(ln, " "), s.fence) && strings.Trim(trim, s.fence[:1]) == "" {
			b := s.block(text[s.tailStart:end])
			s.reset(end)
			return b, true
		}
		return Block{}, false
	}
	if f := fenceOpener(ln); f != "" {
		b, ok := s.settle(text, start)
		s.inFence, s.fence, s.tailEmpty = true, f, false
		return b, ok
	}
	if trim == "" {
		if !s.tailEmpty {
			s.blank = true
		}
		return Block{}, false
	}
	if s.tailEmpty {
		s.tailStart, s.tailEmpty, s.tailList = start, false, isListItem(ln)
		return Block{}, false
	}
	continues := s.tailList && (isListItem(ln) || strings.HasPrefix(ln, "  ") || strings.HasPrefix(ln, "\t"))
	if s.blank && !continues {
		b, ok := s.settle(text, start)
		s.tailEmpty, s.tailList = false, isListItem(ln)
		return b, ok
	}
	s.blank = false
	return Block{}, false
}

// settle closes the open block at offset at, returning it when it holds anything.
func (s *Splitter) settle(text string, at int) (Block, bool) {
	b := s.block(text[s.tailStart:at])
	empty := s.tailEmpty
	s.reset(at)
	return b, !empty && (b.Text != "" || b.Kind == BlockCode)
}

func (s *Splitter) reset(at int) {
	s.tailStart, s.scan = at, at
	s.inFence, s.fence, s.blank, s.tailList, s.tailEmpty = false, "", false, false, true
}

// Tail returns the open block (the part that may still change), including a partial line.
func (s *Splitter) Tail() Block {
	return s.block(s.buf.String()[s.tailStart:])
}

// Close settles everything still open and returns those blocks.
func (s *Splitter) Close() []Block {
	var out []Block
	if text := s.buf.String(); s.scan < len(text) && !s.inFence {
		if b, ok := s.line(text, s.scan, len(text)); ok {
			out = append(out, b)
		}
		s.scan = len(text)
	}
	if b := s.Tail(); b.Text != "" || b.Kind == BlockCode {
		out = append(out, b)
	}
	s.reset(s.buf.Len())
	return out
}

// block turns raw source into a Block, stripping the fences of code.
func (s *Splitter) block(src string) Block {
	first, rest, _ := strings.Cut(src, "\n")
	if f := fenceOpener(first); f != "" {
		lang := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(first), f[:1]))
		body := rest
		if i := strings.LastIndex(strings.TrimRight(body, "\r\n "), "\n"); i >= 0 {
			if last := strings.TrimSpace(body[i+1:]); last != "" && strings.Trim(last, f[:1]) == "" && len(last) >= len(f) {
				body = body[:i]
			}
		} else if last := strings.TrimSpace(body); last != "" && strings.Trim(last, f[:1]) == "" && len(last) >= len(f) {
			body = ""
		}
		return Block{Kind: BlockCode, Lang: lang, Text: strings.TrimRight(body, "\r\n")}
	}
	// Only blank lines and trailing space go: a first line's indentation may make it code.
	return Block{Kind: BlockProse, Text: strings.TrimRight(strings.TrimLeft(src, "\r\n"), " \t\r\n")}
}

// fenceOpener returns the fence (``` or ~~~, possibly longer) that ln opens, or "".
func fenceOpener(ln string) string {
	t := strings.TrimLeft(ln, " ")
	if len(ln)-len(t) > 3 || len(t) < 3 {
		return ""
	}
	c := t[0]
	if c != '`' && c != '~' {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.ContainsRune(t[n:], '`')) {
		return ""
	}
	return t[:n]
}

// isListItem reports whether ln starts a Markdown list item ("- ", "* ", "+ ", "1. ", "1) ").
func isListItem(ln string) bool {
	t := strings.TrimLeft(ln, " ")
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return true
	}
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

// SplitMarkdown cuts a whole document into blocks (for messages loaded from history).
func SplitMarkdown(doc string) []Block {
	s := NewSplitter()
	return append(s.Add(doc), s.Close()...)
}
