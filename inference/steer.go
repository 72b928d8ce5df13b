package inference

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"edgechat/inference/sample/grammar"
	"edgechat/inference/toolcall"
	"edgechat/reply"
)

// steer constrains one reply token by token: a JSON answer (a response format) through the
// answer's grammar, tool calls through the grammar of the calls once the model opens one (or
// from the first token when a call is required), and nothing at all in free text. For each
// token it says where the token goes (the text, or a tool call) and when the reply ends. The
// goroutine that decodes owns it.
type steer struct {
	m       *Model
	phase   phase
	answer  *grammar.Masks // the response format's grammar, nil for free text
	calls   *grammar.Masks // the grammar of what follows Open, nil when no call may be made
	format  *toolcall.Format
	open    []int // tokens that open a call
	close   int   // the token that ends a call (list), -1 for none
	eos     []int
	maxCall int // most calls (0: any number)

	match    *grammar.Matcher
	masker   grammar.Masker
	asm      *toolcall.Assembler
	forced   []int // tokens chosen already, sent before anything is sampled
	answered bool  // the answer has begun (more than whitespace)
	done     []reply.ToolCall
	parts    []reply.ToolCallPart // parts of calls the last token completed
}

type phase uint8

const (
	phFree    phase = iota // free text; the model may open a call
	phAnswer               // the answer follows the response format
	phCall                 // inside a call (or a list of them)
	phBetween              // after a call: another, or the end
)

// newSteer prepares req's constraints; nil when the reply is free text.
func (m *Model) newSteer(req reply.Request) (*steer, error) {
	if req.Prompt != nil {
		return nil, nil
	}
	if err := m.checkTools(req); err != nil {
		return nil, err
	}
	mode := req.ToolChoice.Mode
	tools := req.Tools
	if mode == reply.ToolNone {
		tools = nil
	}
	if len(tools) == 0 && req.Format == nil {
		return nil, nil
	}
	s := &steer{m: m, close: -1, format: m.toolFormat}
	for id := range m.EOS {
		s.eos = append(s.eos, id)
	}
	if req.Format != nil {
		f := req.Format
		ms, err := m.masks(f.Type+"\x00"+string(f.Schema), func() (*grammar.Grammar, error) {
			switch f.Type {
			case reply.FormatJSONObject:
				return grammar.JSONObject(), nil
			case reply.FormatJSONSchema:
				return grammar.Compile(f.Schema)
			}
			return nil, fmt.Errorf("response format %q: use %q or %q", f.Type, reply.FormatJSONObject, reply.FormatJSONSchema)
		})
		if err != nil {
			return nil, err
		}
		s.answer, s.phase, s.match = ms, phAnswer, ms.Matcher()
	}
	if len(tools) > 0 {
		if err := s.prepareCalls(req, tools); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// prepareCalls sets up the grammar of the calls and the tokens that open and close them.
func (s *steer) prepareCalls(req reply.Request, tools []reply.Tool) error {
	m, f := s.m, s.format
	mode := req.ToolChoice.Mode
	if mode == reply.ToolFunction {
		for _, t := range tools {
			if t.Name == req.ToolChoice.Name {
				tools = []reply.Tool{t}
				break
			}
		}
	}
	one := req.OneToolCall || f.OneCall || mode == reply.ToolFunction
	if one {
		s.maxCall = 1
	}
	key := fmt.Sprintf("calls\x00%s\x00%v", f.Name, one)
	for _, t := range tools {
		key += "\x00" + t.Name + "\x00" + string(t.Parameters)
	}
	ms, err := m.masks(key, func() (*grammar.Grammar, error) { return f.Grammar(tools, one) })
	if err != nil {
		return err
	}
	s.calls = ms
	for _, text := range []string{f.Open, f.AltOpen} {
		if text == "" {
			continue
		}
		id, ok := m.Tokenizer.TokenID(text)
		if !ok {
			return reply.ToolsError(fmt.Errorf("this model's template writes tool calls after %q, which its tokenizer lacks", text))
		}
		s.open = append(s.open, id)
	}
	if f.Close != "" {
		if id, ok := m.Tokenizer.TokenID(f.Close); ok {
			s.close = id
		}
	}
	if mode == reply.ToolRequired || mode == reply.ToolFunction {
		s.answer = nil
		if len(s.open) > 0 && f.Open != "" {
			s.forced = []int{s.open[0]}
			s.phase = phBetween // the forced Open starts the call
		} else {
			s.startCall(nil)
		}
	}
	return nil
}

// next returns the token the steer chooses itself (ok false: sample one, masked by mask):
// tokens already decided, the shortest completion of the JSON when only left tokens remain
// for it, or the only token allowed.
func (s *steer) next(left int) (int, bool) {
	if s == nil {
		return 0, false
	}
	if len(s.forced) == 0 {
		s.plan(left)
	}
	if len(s.forced) > 0 {
		id := s.forced[0]
		s.forced = s.forced[1:]
		return id, true
	}
	return 0, false
}

// plan decides tokens ahead when the reply must end soon or has one way to go on.
func (s *steer) plan(left int) {
	switch s.phase {
	case phAnswer, phCall:
		if s.match.Done() {
			s.finishJSON()
			return
		}
		need := s.match.Completion()
		if len(need) == 0 && s.match.CanEnd() && left <= 2 {
			s.finishJSON() // a number at the root: end it here
			return
		}
		if left > len(need)+1+s.closeCost() {
			return // even spelled byte by byte it fits
		}
		ids := s.spell(need)
		if left > len(ids)+1+s.closeCost() {
			return
		}
		s.forced = ids
		if s.phase == phCall && s.close >= 0 {
			s.forced = append(s.forced, s.close)
		}
	case phBetween:
		if s.maxCall > 0 && len(s.done) >= s.maxCall || s.format.List && len(s.done) > 0 || len(s.open) == 0 || left <= 1 {
			s.forced = []int{s.eos[0]}
		}
	}
}

// fits reports whether token id leaves room to complete the JSON within left tokens (this one
// included): a token may lengthen what the JSON needs to end (it opens an object, starts a
// required key), so near the budget's end the sampled token is checked, and another drawn
// when it does not fit. The completion's next byte always fits.
func (s *steer) fits(id, left int) bool {
	if s == nil || s.phase != phAnswer && s.phase != phCall {
		return true
	}
	if s.phase == phAnswer && (s.isOpen(id) || s.match.CanEnd() && s.isEOS(id)) {
		return true
	}
	need, ok := s.match.CompletionAfter(s.m.vocab.Bytes(id))
	if !ok {
		return false
	}
	if need+s.closeCost() <= left-1 {
		return true
	}
	mt := s.calls
	if s.phase == phAnswer {
		mt = s.answer
	}
	probe := mt.Matcher()
	probe.Restore(s.match)
	if probe.Accept(id) != nil {
		return false
	}
	return len(s.spell(probe.Completion()))+s.closeCost() <= left-1
}

// closeCost is the tokens a call needs after its JSON (its closing token).
func (s *steer) closeCost() int {
	if s.phase == phCall && s.close >= 0 {
		return 1
	}
	return 0
}

func (s *steer) isEOS(id int) bool { return s.m.EOS[id] }

// finishing is the next token of the shortest completion (the close or end when none is
// left).
func (s *steer) finishing() int {
	if need := s.match.Completion(); len(need) > 0 {
		if ids := s.spell(need); len(ids) > 0 {
			return ids[0]
		}
	}
	if s.phase == phCall && s.close >= 0 {
		return s.close
	}
	return s.eos[0]
}

// spell returns tokens whose bytes are bs: the tokenizer's own tokens where they spell bs
// exactly (few of them), else one-byte tokens (every byte-level vocabulary has them; a
// SentencePiece one has byte-fallback tokens). Bytes that finish a character begun earlier
// are always one-byte tokens.
func (s *steer) spell(bs []byte) []int {
	lead := 0
	for lead < len(bs) && !utf8.RuneStart(bs[lead]) {
		lead++
	}
	out := s.byteTokens(bs[:lead])
	rest := bs[lead:]
	if len(rest) == 0 {
		return out
	}
	ids := s.m.Tokenizer.Encode(string(rest))
	var got []byte
	for _, id := range ids {
		got = append(got, s.m.vocab.Bytes(id)...)
	}
	if !bytes.Equal(got, rest) {
		return append(out, s.byteTokens(rest)...)
	}
	return append(out, ids...)
}

// byteTokens spells bs with one-byte tokens.
func (s *steer) byteTokens(bs []byte) []int {
	out := make([]int, 0, len(bs))
	for _, b := range bs {
		if id, ok := s.m.vocab.ByteToken(b); ok {
			out = append(out, id)
		}
	}
	return out
}

// finishJSON acts on a JSON value that is complete: an answer ends the reply; a call is
// followed by its closing token, if any.
func (s *steer) finishJSON() {
	switch s.phase {
	case phAnswer:
		s.forced = []int{s.eos[0]}
	case phCall:
		if s.close >= 0 {
			s.forced = []int{s.close}
		}
	}
}

// mask returns logits with the tokens that may not come next refused (logits itself, or the
// masker's buffer).
func (s *steer) mask(logits []float32) []float32 {
	if s == nil {
		return logits
	}
	switch s.phase {
	case phAnswer:
		keep := s.open
		if s.answered || s.calls == nil {
			keep = nil
		}
		if s.match.CanEnd() {
			keep = append(keep[:len(keep):len(keep)], s.eos...)
		}
		return s.masker.Apply(logits, s.match.Mask(), keep...)
	case phCall:
		return s.masker.Apply(logits, s.match.Mask())
	case phBetween:
		keep := s.eos
		if s.maxCall == 0 || len(s.done) < s.maxCall {
			keep = append(keep[:len(keep):len(keep)], s.open...)
		}
		return s.masker.Apply(logits, grammar.Mask{}, keep...)
	}
	return logits
}

// accept takes the token chosen. It returns whether the token is text for the reply stream,
// and end when the reply is complete; the calls it completed are in s.parts.
func (s *steer) accept(id int, thinking bool) (text, end bool, err error) {
	if s == nil {
		return true, false, nil
	}
	s.parts = s.parts[:0]
	if s.isOpen(id) && s.calls != nil && !thinking && (s.phase == phFree || s.phase == phBetween || s.phase == phAnswer && !s.answered) {
		s.startCall(nil)
		return false, false, nil
	}
	bs := s.m.vocab.Bytes(id)
	switch s.phase {
	case phFree:
		if s.format != nil && s.format.Open == "" && s.calls != nil && !s.answered && !thinking {
			if rest := bytes.TrimLeft(bs, " \t\r\n"); len(rest) > 0 && rest[0] == '{' {
				if s.startCall(rest) {
					return false, false, nil
				}
			}
		}
		if len(bytes.TrimSpace(bs)) > 0 {
			s.answered = true
		}
		return true, false, nil
	case phAnswer:
		if err := s.match.Accept(id); err != nil {
			return false, true, fmt.Errorf("token %d broke the response format: %w", id, err)
		}
		if len(bytes.TrimSpace(bs)) > 0 {
			s.answered = true
		}
		return true, false, nil
	case phCall:
		if id == s.close {
			s.phase = phBetween
			return false, false, nil
		}
		if err := s.match.Accept(id); err != nil {
			return false, true, fmt.Errorf("token %d broke the tool call: %w", id, err)
		}
		if err := s.feed(bs); err != nil {
			return false, true, err
		}
		if s.match.Done() && s.close < 0 {
			s.phase = phBetween
		}
		return false, false, nil
	}
	return false, false, fmt.Errorf("token %d where only the end or another tool call may come", id)
}

// startCall begins a call; first holds bytes of the opening token that belong to it (Llama
// 3's bare JSON). It reports false when those bytes cannot start a call.
func (s *steer) startCall(first []byte) bool {
	mt := s.calls.Matcher()
	if len(first) > 0 && mt.AcceptBytes(first) != nil {
		return false
	}
	s.match, s.phase = mt, phCall
	s.asm = toolcall.NewAssembler(s.format, len(s.done))
	if len(first) > 0 {
		if err := s.feed(first); err != nil {
			return false
		}
	}
	return true
}

// feed passes a call's bytes to the assembler and keeps the parts and calls it completes.
func (s *steer) feed(bs []byte) error {
	parts, err := s.asm.Add(bs)
	if err != nil {
		return err
	}
	s.parts = append(s.parts, parts...)
	if s.asm.Done() {
		s.done = append(s.done, s.asm.Calls()...)
	}
	return nil
}

func (s *steer) isOpen(id int) bool {
	for _, o := range s.open {
		if o == id {
			return true
		}
	}
	return false
}

// finish is the reply's finish reason given the loop's: tool calls when it made any and none
// is left open (the end came, or the budget ran out right after them).
func (s *steer) finish(reason string) string {
	complete := s != nil && (s.phase == phBetween || s.phase == phCall && s.match.Done())
	if complete && len(s.done) > 0 && (reason == reply.FinishStop || reason == reply.FinishLength) {
		return reply.FinishToolCalls
	}
	return reason
}

// toolCalls returns the calls the reply made (nil without a steer).
func (s *steer) toolCalls() []reply.ToolCall {
	if s == nil {
		return nil
	}
	return s.done
}
