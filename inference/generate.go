package inference

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"edgechat/reply"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/chat"
	"edgechat/inference/sample"
	"edgechat/inference/think"
	"edgechat/inference/tokenizer"
)

// DefaultMaxTokens is the reply budget when a request sets none.
const DefaultMaxTokens = 2048

// emitFunc sends an event; it returns false when the consumer has gone (ctx cancelled).
type emitFunc func(reply.Event) bool

// generate produces one reply on the model's decoder. It runs on the goroutine that owns the
// model and always returns a summary (the caller sends it as the final event).
func (m *Model) generate(ctx context.Context, req reply.Request, run *ort.RunOptions, emit emitFunc) *reply.Summary {
	start := time.Now()
	sum := &reply.Summary{}
	fail := func(err error) *reply.Summary {
		if ctx.Err() != nil || isTerminated(err) {
			sum.FinishReason = reply.FinishCancelled
			return sum
		}
		sum.FinishReason, sum.Err = reply.FinishError, err
		return sum
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	msgs, prompt, inThinking, err := m.fitPrompt(req, maxTokens)
	if err != nil {
		return fail(err)
	}
	if dropped := len(req.Messages) - len(msgs); dropped > 0 {
		sum.TrimmedMessages = dropped
		if !emit(reply.Event{Kind: reply.EventNotice, Text: fmt.Sprintf("Context trimmed: the %d oldest messages no longer fit and were left out", dropped)}) {
			return fail(ctx.Err())
		}
	}
	sum.PromptIDs, sum.PromptTokens = prompt, len(prompt)

	reused := commonPrefix(m.dec.Cached(), prompt)
	if reused == len(prompt) {
		reused-- // the last prompt token must run to give the next token's logits
	}
	m.dec.Truncate(reused)
	sum.ReusedTokens = reused

	prefillStart := time.Now()
	logits, err := m.forward(prompt[reused:], run)
	if err != nil {
		m.dec.Truncate(reused) // keep the cache consistent with what it holds
		return fail(err)
	}
	prefill := time.Since(prefillStart)
	sum.PrefillTPS = float64(len(prompt)-reused) / prefill.Seconds()

	s := sample.New(m.samplingParams(req.Sampling), m.dec.Vocab())
	history := append(make([]int, 0, len(prompt)+maxTokens), prompt...)
	out := newReplyStream(m.Tokenizer, req.Stop, inThinking, emit)
	avail := m.dec.Capacity() - len(prompt)
	if sl, ok := m.dec.(interface{ Slides() bool }); ok && sl.Slides() {
		avail = maxTokens // the window slides: the oldest tokens fall out of the cache
	}
	var decodeStart time.Time
	sum.FinishReason = reply.FinishLength
	for n := 0; n < min(maxTokens, avail); n++ {
		if ctx.Err() != nil {
			sum.FinishReason = reply.FinishCancelled
			break
		}
		id := s.Sample(logits, history)
		if n == 0 {
			sum.TTFT = time.Since(start)
			decodeStart = time.Now()
		}
		if m.EOS[id] {
			sum.FinishReason = reply.FinishStop
			break
		}
		history = append(history, id)
		sum.IDs = append(sum.IDs, id)
		stop, ok := out.add(id)
		if !ok {
			sum.FinishReason = reply.FinishCancelled
			break
		}
		if stop {
			sum.FinishReason = reply.FinishStop
			break
		}
		if n+1 == min(maxTokens, avail) {
			break // no more tokens wanted: the last one needs no forward pass
		}
		if logits, err = m.forward([]int{id}, run); err != nil {
			break // a failed run leaves the cache as it was; the summary reports err below
		}
	}
	out.flush()
	if err == nil && (sum.FinishReason == reply.FinishStop || sum.FinishReason == reply.FinishLength) {
		reply := reply.Message{Role: "assistant", Content: out.answer.String(), Thinking: out.thinking.String()}
		m.nextTurn = &nextTurn{history: append(slices.Clone(msgs), reply), thinking: req.Thinking}
	}
	sum.GeneratedTokens = len(sum.IDs)
	if d := time.Since(decodeStart); sum.GeneratedTokens > 1 && !decodeStart.IsZero() {
		sum.DecodeTPS = float64(sum.GeneratedTokens-1) / d.Seconds()
	}
	if err != nil {
		return fail(err) // keeps the counts of what was generated before the failure
	}
	return sum
}

// fitPrompt drops the oldest turns until prompt and reply budget fit the context, and
// returns the kept messages, the prompt's ids and whether the prompt opens a <think> block.
func (m *Model) fitPrompt(req reply.Request, maxTokens int) ([]reply.Message, []int, bool, error) {
	if len(req.Messages) == 0 {
		return nil, nil, false, errors.New("the conversation is empty")
	}
	limit := m.dec.Capacity()
	reserve := replyReserve(maxTokens, limit)
	count := func(cm []chat.Message) (int, error) {
		ids, err := m.PromptIDs(fromChat(cm), req.Thinking)
		return len(ids), err
	}
	kept, _, err := chat.Fit(chatMessages(req.Messages, false), limit, reserve, count)
	if errors.Is(err, chat.ErrTooLong) {
		return nil, nil, false, fmt.Errorf("%w: %v", errPromptTooLong, err)
	}
	if err != nil {
		return nil, nil, false, err
	}
	msgs := fromChat(kept)
	ids, inThinking, err := m.promptIDs(msgs, req.Thinking)
	return msgs, ids, inThinking, err
}

// errPromptTooLong marks a request whose last message cannot fit the context at all.
var errPromptTooLong = errors.New("the message is too long for this model's context")

// replyReserve is the room kept for the reply when fitting a prompt: the reply budget, but
// never more than half the context.
func replyReserve(maxTokens, context int) int {
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	return min(maxTokens, context/2)
}

func fromChat(cm []chat.Message) []reply.Message {
	out := make([]reply.Message, len(cm))
	for i, c := range cm {
		out[i] = reply.Message{Role: c.Role, Content: c.Content, Thinking: c.ReasoningContent}
	}
	return out
}

func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func isTerminated(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), "terminate")
}

// replyStream turns sampled ids into text events: UTF-8-safe decoding, stop strings, and the
// thinking/answer split.
type replyStream struct {
	answer, thinking strings.Builder // the reply as sent, for the next turn's history
	dec              *tokenizer.StreamDecoder
	stop             *stopper
	parser           *think.Parser
	emit             emitFunc
	stopped          bool
}

func newReplyStream(tok tokenizer.Tokenizer, stops []string, inThinking bool, emit emitFunc) *replyStream {
	return &replyStream{dec: tokenizer.NewStreamDecoder(tok, true), stop: newStopper(stops), parser: think.NewParser(inThinking), emit: emit}
}

// add decodes one id; it reports whether a stop string ended the reply, and false in ok when
// the consumer has gone.
func (r *replyStream) add(id int) (stop, ok bool) {
	text, stop := r.stop.Add(r.dec.Add(id))
	r.stopped = stop
	return stop, r.send(r.parser.Add(text))
}

// flush emits whatever the decoder, stopper and parser still hold.
func (r *replyStream) flush() {
	if !r.stopped {
		text, _ := r.stop.Add(r.dec.Flush())
		r.send(r.parser.Add(text + r.stop.Flush()))
	}
	r.send(r.parser.Flush())
}

func (r *replyStream) send(segs []think.Segment) bool {
	for _, s := range segs {
		if s.Text == "" {
			continue
		}
		kind := reply.EventText
		if s.Thinking {
			kind = reply.EventThinking
			r.thinking.WriteString(s.Text)
		} else {
			r.answer.WriteString(s.Text)
		}
		if !r.emit(reply.Event{Kind: kind, Text: s.Text}) {
			return false
		}
	}
	return true
}
