package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"

	"edgechat/reply"
)

// Assembler reads tool calls out of the JSON a model writes after Open, as it arrives, and
// turns it into reply.ToolCallParts: a call's id and name once its name is complete, then its
// arguments as they are written. It expects the call shape the format's grammar enforces:
// {"name": NAME, ARGS_KEY: ARGUMENTS}, in a list for list formats. One goroutine owns it.
type Assembler struct {
	f     *Format
	next  int // index of the next call in the reply
	state asmState
	head  []byte // the current call's bytes up to its arguments
	depth int    // nesting inside the arguments
	inStr bool
	esc   bool
	ws    []byte // whitespace after the arguments, held until it is known to be theirs
	calls []reply.ToolCall
	args  []byte
	done  bool
	newID func() string
}

type asmState uint8

const (
	asmStart asmState = iota // before the call (or the list's '[')
	asmHead                  // inside the call, before its arguments
	asmArgs                  // inside the arguments
	asmAfter                 // after a call: ',' or ']' in a list
)

// ErrMalformed is the error of output that is not a call in the format's shape.
var ErrMalformed = errors.New("the model's tool call is not in its format")

// NewAssembler reads the calls of one reply; first is the index its first call gets.
func NewAssembler(f *Format, first int) *Assembler {
	return &Assembler{f: f, next: first, newID: NewID}
}

// Add takes the next bytes and returns the parts they complete.
func (a *Assembler) Add(bs []byte) ([]reply.ToolCallPart, error) {
	var parts []reply.ToolCallPart
	var frag []byte
	flush := func() {
		if len(frag) > 0 {
			parts = append(parts, reply.ToolCallPart{Index: a.next - 1, Arguments: string(frag)})
			a.args = append(a.args, frag...)
			frag = nil
		}
	}
	for _, c := range bs {
		if a.done {
			if isSpace(c) {
				continue
			}
			return parts, fmt.Errorf("%w: %q after the calls ended", ErrMalformed, c)
		}
		switch a.state {
		case asmStart:
			switch {
			case isSpace(c):
			case c == '[' && a.f.List && len(a.head) == 0:
				a.head = append(a.head, c) // marks the list open
			case c == '{':
				a.state, a.head = asmHead, append(a.head[:0], c)
			default:
				return parts, fmt.Errorf("%w: %q where a call should begin", ErrMalformed, c)
			}
		case asmHead:
			a.head = append(a.head, c)
			name, ok, err := parseHead(a.head, a.f.ArgsKey)
			if err != nil {
				return parts, err
			}
			if ok {
				id := a.newID()
				a.calls = append(a.calls, reply.ToolCall{ID: id, Name: name})
				parts = append(parts, reply.ToolCallPart{Index: a.next, ID: id, Name: name})
				a.next++
				a.state, a.depth, a.inStr, a.esc, a.args = asmArgs, 0, false, false, nil
			}
		case asmArgs:
			end, err := a.argByte(c, &frag)
			if err != nil {
				return parts, err
			}
			if end {
				flush()
				a.calls[len(a.calls)-1].Arguments = json.RawMessage(append([]byte(nil), a.args...))
				a.state, a.ws = asmAfter, nil
				if !a.f.List {
					a.done = true
				}
			}
		case asmAfter:
			switch {
			case isSpace(c):
			case c == ',':
				a.state = asmStart
			case c == ']':
				a.done = true
			default:
				return parts, fmt.Errorf("%w: %q between calls", ErrMalformed, c)
			}
		}
	}
	flush()
	return parts, nil
}

// argByte takes one byte of the arguments; end reports the call's closing brace.
func (a *Assembler) argByte(c byte, frag *[]byte) (end bool, err error) {
	if a.inStr {
		switch {
		case a.esc:
			a.esc = false
		case c == '\\':
			a.esc = true
		case c == '"':
			a.inStr = false
		}
		*frag = append(*frag, c)
		return false, nil
	}
	if a.depth == 0 && isSpace(c) {
		if len(a.args)+len(*frag) > 0 { // whitespace before the arguments is not theirs
			a.ws = append(a.ws, c)
		}
		return false, nil
	}
	if a.depth == 0 && c == '}' && len(a.args)+len(*frag) > 0 {
		return true, nil // the call's own brace
	}
	*frag = append(append(*frag, a.ws...), c)
	a.ws = a.ws[:0]
	switch c {
	case '"':
		a.inStr = true
	case '{', '[':
		a.depth++
	case '}', ']':
		if a.depth == 0 {
			return false, fmt.Errorf("%w: unbalanced %q in the arguments", ErrMalformed, c)
		}
		a.depth--
	}
	return false, nil
}

// parseHead reads `{ "name" : "NAME" , "ARGS" :` from the start of head; ok is false while
// it is incomplete.
func parseHead(head []byte, argsKey string) (name string, ok bool, err error) {
	p := headParser{b: head}
	p.expect('{')
	key := p.str()
	if p.short {
		return "", false, nil
	}
	if key != "name" {
		return "", false, fmt.Errorf("%w: the call's first key is %q, not \"name\"", ErrMalformed, key)
	}
	p.expect(':')
	name = p.str()
	p.expect(',')
	key = p.str()
	p.expect(':')
	if p.bad != nil {
		return "", false, p.bad
	}
	if p.short {
		return "", false, nil
	}
	if key != argsKey {
		return "", false, fmt.Errorf("%w: the call's second key is %q, not %q", ErrMalformed, key, argsKey)
	}
	return name, true, nil
}

// headParser reads a call's head; short marks running out of bytes, bad a wrong byte.
type headParser struct {
	b     []byte
	i     int
	short bool
	bad   error
}

func (p *headParser) space() {
	for p.i < len(p.b) && isSpace(p.b[p.i]) {
		p.i++
	}
}

func (p *headParser) expect(c byte) {
	if p.short || p.bad != nil {
		return
	}
	p.space()
	switch {
	case p.i == len(p.b):
		p.short = true
	case p.b[p.i] != c:
		p.bad = fmt.Errorf("%w: %q where %q should be", ErrMalformed, p.b[p.i], c)
	default:
		p.i++
	}
}

// str reads a JSON string.
func (p *headParser) str() string {
	p.expect('"')
	if p.short || p.bad != nil {
		return ""
	}
	start := p.i - 1
	for esc := false; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case esc:
			esc = false
		case c == '\\':
			esc = true
		case c == '"':
			p.i++
			var s string
			if err := json.Unmarshal(p.b[start:p.i], &s); err != nil {
				p.bad = fmt.Errorf("%w: %v", ErrMalformed, err)
			}
			return s
		}
	}
	p.short = true
	return ""
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// Calls returns the calls read so far, with their whole arguments once complete.
func (a *Assembler) Calls() []reply.ToolCall { return a.calls }

// Done reports whether the calls are complete: the call's closing brace, or the list's ']'.
func (a *Assembler) Done() bool { return a.done }

// Idle reports whether the assembler is between calls (none open).
func (a *Assembler) Idle() bool { return a.state == asmStart && len(a.head) == 0 || a.done }
