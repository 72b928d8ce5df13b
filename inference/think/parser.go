// Package think separates a streamed Qwen3 reply into its <think>…</think> reasoning and the
// answer, incrementally, as chunks of generated text arrive.
package think

import "strings"

// The tags Qwen3 wraps its reasoning in.
const (
	OpenTag  = "<think>"
	CloseTag = "</think>"
)

// Segment is a run of reply text, either reasoning (Thinking) or answer.
type Segment struct {
	Thinking bool
	Text     string
}

type state int

const (
	stateStart    state = iota // nothing but whitespace seen: a <think> may still open
	stateOpened                // right after <think>: drop leading newlines
	stateThinking              // inside the reasoning
	stateClosed                // right after </think>: drop leading newlines
	stateAnswer                // answer text; tags are plain text from here on
)

// Parser splits streamed text into Segments. A Parser is not safe for concurrent use; the
// goroutine that reads the model's output owns it.
//
// What it removes: whitespace before an opening <think> at the very start, the tags
// themselves, newlines right after <think> and right before and after </think> (as Qwen3's
// chat template and chat UIs do). A <think> after answer text has begun, and any tag in the
// answer, is plain text. Text that may be the start of a tag is held back until the next
// chunk decides it; Flush releases it as text when the stream ends. Work per chunk is
// proportional to the chunk, however long a run of held-back whitespace grows.
type Parser struct {
	state    state
	partial  string          // a possible partial tag at the end of the last chunk
	lead     strings.Builder // whitespace before anything else (stateStart)
	newlines int             // newlines held at the end of the reasoning (stateThinking)
	out      []Segment       // what the current Add or Flush returns
}

// NewParser returns a Parser for one reply. startsInThinking says the prompt itself ended
// inside <think> (it ended with "<think>" or "<think>\n"), so the reply starts with
// reasoning and only a </think> ends it.
func NewParser(startsInThinking bool) *Parser {
	p := &Parser{state: stateStart}
	if startsInThinking {
		p.state = stateOpened
	}
	return p
}

// Reasoning reports whether the text so far leaves the reply inside its reasoning.
func (p *Parser) Reasoning() bool { return p.state == stateOpened || p.state == stateThinking }

// Add consumes the next chunk and returns the segments it completes, adjacent ones of the same
// kind merged, never empty ones.
func (p *Parser) Add(chunk string) []Segment {
	p.out = nil
	s := p.partial + chunk
	p.partial = ""
	for s != "" {
		s = p.step(s)
	}
	return p.out
}

// Flush ends the reply and returns whatever was held back: a partial tag becomes text of the
// current kind.
func (p *Parser) Flush() []Segment {
	p.out = nil
	switch p.state {
	case stateStart, stateAnswer:
		p.emit(false, p.lead.String()+p.partial)
	case stateThinking:
		p.emit(true, strings.Repeat("\n", p.newlines)+p.partial)
	}
	p.partial, p.newlines = "", 0
	p.lead.Reset()
	return p.out
}

// step consumes a prefix of s and returns the rest.
func (p *Parser) step(s string) string {
	switch p.state {
	case stateStart:
		rest := strings.TrimLeft(s, " \t\r\n")
		p.lead.WriteString(s[:len(s)-len(rest)])
		switch {
		case rest == "":
			return "" // only whitespace so far: wait
		case strings.HasPrefix(rest, OpenTag):
			p.lead.Reset()
			p.state = stateOpened
			return rest[len(OpenTag):]
		case strings.HasPrefix(OpenTag, rest):
			p.partial = rest // a partial <think>: wait
			return ""
		}
		p.emit(false, p.lead.String())
		p.lead.Reset()
		p.state = stateAnswer
		return rest
	case stateOpened, stateClosed:
		s = strings.TrimLeft(s, "\n")
		if s != "" {
			p.state++ // stateOpened → stateThinking, stateClosed → stateAnswer
		}
		return s
	case stateThinking:
		if i := strings.Index(s, CloseTag); i >= 0 {
			p.think(s[:i], true)
			p.state = stateClosed
			return s[i+len(CloseTag):]
		}
		n := len(s) - partialSuffix(s, CloseTag)
		p.think(s[:n], false)
		p.partial = s[n:]
		return ""
	default: // stateAnswer
		p.emit(false, s)
		return ""
	}
}

// think emits reasoning text, holding back trailing newlines: they are dropped if </think>
// follows (closed) and emitted before the next reasoning text otherwise.
func (p *Parser) think(text string, closed bool) {
	body := strings.TrimRight(text, "\n")
	if body != "" {
		p.emit(true, strings.Repeat("\n", p.newlines)+body)
		p.newlines = 0
	}
	p.newlines += len(text) - len(body)
	if closed {
		p.newlines = 0
	}
}

func (p *Parser) emit(thinking bool, text string) {
	if text == "" {
		return
	}
	if n := len(p.out); n > 0 && p.out[n-1].Thinking == thinking {
		p.out[n-1].Text += text
		return
	}
	p.out = append(p.out, Segment{Thinking: thinking, Text: text})
}

// partialSuffix returns the length of the longest suffix of s that is a proper prefix of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(s), len(tag)-1); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
