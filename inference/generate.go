package inference

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"edgechat/reply"

	"edgechat/inference/sample"
	"edgechat/inference/think"
	"edgechat/tokenizer"
)

// maxRedraws bounds how often a sampled token that leaves no room to complete a constrained
// reply is drawn again before the shortest completion is taken.
const maxRedraws = 16

// emitFunc sends an event; it returns false when the consumer has gone (ctx cancelled).
type emitFunc func(reply.Event) bool

// generate produces one reply on the model's decoder: fit the conversation, prefill, decode.
// It runs on the goroutine that owns the model and always returns a summary (the caller
// sends it as the final event).
func (m *Model) generate(ctx context.Context, conv *conversation, req reply.Request, emit emitFunc) *reply.Summary {
	start := time.Now()
	sum := &reply.Summary{}
	fail := func(err error) *reply.Summary {
		if ctx.Err() != nil {
			sum.FinishReason = reply.FinishCancelled
			return sum
		}
		sum.FinishReason, sum.Err = reply.FinishError, err
		return sum
	}
	maxTokens, err := m.replyBudget(req)
	if err != nil {
		return fail(err)
	}
	if err := m.checkLogitBias(req.Sampling.LogitBias); err != nil {
		return fail(err)
	}
	st, err := m.newSteer(req)
	if err != nil {
		return fail(err)
	}
	keptFrom, prompt, err := conv.fit(m.dec.Capacity(), maxTokens)
	if err != nil {
		return fail(err)
	}
	if dropped := keptFrom - conv.head; dropped > 0 {
		sum.TrimmedMessages = dropped
		if !emit(reply.Event{Kind: reply.EventNotice, Text: fmt.Sprintf("Context trimmed: the %d oldest messages no longer fit and were left out", dropped)}) {
			return fail(ctx.Err())
		}
	}
	sum.PromptIDs, sum.PromptTokens = prompt.ids, len(prompt.ids)
	logits, err := m.prefill(ctx, prompt.ids, sum)
	if err != nil {
		return fail(err)
	}
	var out *replyStream
	if conv.raw {
		out = newRawStream(m.Tokenizer, req.Stop, prompt.ids, emit)
	} else {
		out = newReplyStream(m.Tokenizer, req.Stop, prompt.inThinking, emit)
	}
	err = m.decode(ctx, logits, prompt.ids, req, maxTokens, out, st, sum, start)
	if err == nil && !conv.raw && (sum.FinishReason == reply.FinishStop || sum.FinishReason == reply.FinishLength) {
		answer := reply.Message{Role: "assistant", Content: out.answer.String(), Thinking: out.thinking.String(), ToolCalls: st.toolCalls()}
		m.nextTurn = &nextTurn{history: append(conv.kept(keptFrom), answer), opts: conv.opts}
	}
	if err != nil {
		return fail(err) // keeps the counts of what was generated before the failure
	}
	return sum
}

// prefill runs the prompt past what the cache already holds and returns the last token's
// logits; it records the reuse and the prefill speed in sum.
func (m *Model) prefill(ctx context.Context, prompt []int, sum *reply.Summary) ([]float32, error) {
	reused := commonPrefix(m.dec.Cached(), prompt)
	if reused == len(prompt) {
		reused-- // the last prompt token must run to give the next token's logits
	}
	m.dec.Truncate(reused)
	sum.ReusedTokens = reused
	t := time.Now()
	logits, err := m.dec.Forward(ctx, prompt[reused:])
	if err != nil {
		m.dec.Truncate(reused) // keep the cache consistent with what it holds
		return nil, err
	}
	if d := time.Since(t); d > 0 { // Windows' clock can see no time pass over a short prefill
		sum.PrefillTPS = float64(len(prompt)-reused) / d.Seconds()
	}
	return logits, nil
}

// decode samples tokens from logits and feeds them back until the end-of-sequence token, a
// stop string, the budget or the context's end, streaming the text through out and tool calls
// as events. st (nil for free text) masks the logits and routes the tokens of a constrained
// reply. Where the decoder can check several rows in one run, an unconstrained reply drafts
// with prompt lookup (see drafting). It sets the finish reason, ids, TTFT (from start), decode
// speed and lookup counts in sum; the error is a failed run.
func (m *Model) decode(ctx context.Context, logits []float32, prompt []int, req reply.Request, maxTokens int, out *replyStream, st *steer, sum *reply.Summary, start time.Time) error {
	s := sample.New(m.samplingParams(req.Sampling), m.dec.Vocab())
	s.SetPromptLen(len(prompt))
	avail := m.dec.Capacity() - len(prompt)
	if m.slides() {
		avail = maxTokens // the window slides: the oldest tokens fall out of the cache
	}
	budget := min(maxTokens, avail)
	// Which limit a reply that runs out of tokens meets.
	sum.StopCause = reply.StopMaxTokens
	if avail < maxTokens {
		sum.StopCause, sum.ContextTokens = reply.StopContext, m.dec.Capacity()
	}
	history := append(make([]int, 0, len(prompt)+budget), prompt...)
	var spec *speculator
	if st == nil { // drafts are checked without the grammar's mask: a constrained reply has none
		spec = m.drafting(req)
	}
	var (
		decodeStart time.Time
		err         error
		queue       []int // tokens already chosen, to be sent before the next run
		runs        int   // decoder runs after the prompt's
	)
	sum.FinishReason = reply.FinishLength
	for n := 0; n < budget; n++ {
		if ctx.Err() != nil {
			sum.FinishReason = reply.FinishCancelled
			break
		}
		var id int
		if len(queue) > 0 {
			id, queue = queue[0], queue[1:]
		} else if chosen, ok := st.next(budget - n); ok {
			id = chosen
		} else {
			masked := st.mask(logits)
			id = s.Sample(masked, history)
			for tries := 0; !st.fits(id, budget-n); tries++ {
				if tries == maxRedraws { // the model's logits give nothing that fits: finish it
					id = st.finishing()
					break
				}
				masked[id] = float32(math.Inf(-1))
				id = s.Sample(masked, history)
			}
		}
		if n == 0 {
			sum.TTFT = time.Since(start)
			decodeStart = time.Now()
		}
		if m.EOS[id] {
			sum.FinishReason, sum.StopCause, sum.ContextTokens = reply.FinishStop, reply.StopEndOfText, 0
			break
		}
		history = append(history, id)
		sum.IDs = append(sum.IDs, id)
		text, end, serr := st.accept(id, out.reasoning())
		if serr != nil {
			err = serr
			break
		}
		stop, ok := false, true
		if text {
			stop, ok = out.add(id)
		} else {
			ok = out.drain() && out.calls(st.parts)
		}
		if !ok {
			sum.FinishReason = reply.FinishCancelled
			break
		}
		if stop || end {
			sum.FinishReason, sum.StopCause, sum.ContextTokens = reply.FinishStop, reply.StopEndOfText, 0
			if stop {
				sum.StopCause = reply.StopString
			}
			break
		}
		if n+1 == budget || len(queue) > 0 {
			continue // no more tokens wanted, or the next one is chosen: no run needed
		}
		if spec != nil {
			var run bool
			if queue, run, err = spec.step(ctx, s, history, budget-n-1); err != nil {
				break
			}
			if run {
				runs++
				continue
			}
		}
		ran := time.Now()
		if logits, err = m.dec.Forward(ctx, []int{id}); err != nil {
			break // a failed run leaves the cache as it was; the caller reports err
		}
		spec.timed(1, time.Since(ran))
		runs++
	}
	sum.FinishReason = st.finish(sum.FinishReason)
	if sum.FinishReason != reply.FinishStop && sum.FinishReason != reply.FinishLength {
		sum.StopCause, sum.ContextTokens = "", 0 // cancelled, failed, or a tool call
	}
	spec.done(m)
	if spec != nil {
		st := spec.drafter.Stats
		sum.Lookup = &reply.LookupStats{Drafted: st.Drafted, Accepted: st.Accepted, Runs: runs}
	}
	out.flush()
	sum.GeneratedTokens = len(sum.IDs)
	if d := time.Since(decodeStart); sum.GeneratedTokens > 1 && !decodeStart.IsZero() && d > 0 {
		sum.DecodeTPS = float64(sum.GeneratedTokens-1) / d.Seconds()
	}
	return err
}

// replyBudget is the request's reply budget, never more than the model can hold: the
// context, or for a sliding window the longer of the window and the model's configured
// context. A strict request over it is refused instead of cut.
func (m *Model) replyBudget(req reply.Request) (int, error) {
	limit := m.dec.Capacity()
	if m.slides() {
		limit = max(limit, m.Folder.ContextLength())
	}
	if req.MaxTokens > limit && req.StrictMaxTokens {
		return 0, reply.ContextLength(fmt.Errorf("max_tokens is %d but this model's context holds %d tokens, prompt included — ask for fewer tokens, or leave max_tokens out", req.MaxTokens, limit))
	}
	return min(cmpPositive(req.MaxTokens, reply.DefaultMaxTokens), limit), nil
}

// slides reports whether the decoder's window slides (the oldest tokens fall out of the
// cache), so a reply may run past the window.
func (m *Model) slides() bool {
	sl, ok := m.dec.(Sliding)
	return ok && sl.Slides()
}

func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// replyStream turns sampled ids into text events: UTF-8-safe decoding, stop strings, and the
// thinking/answer split (none for a raw completion: parser is nil).
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

// newRawStream streams a raw completion: the text that continues prompt (a decoder that strips
// the output's first space keeps the one before the first new word), with no <think> parsing.
func newRawStream(tok tokenizer.Tokenizer, stops []string, prompt []int, emit emitFunc) *replyStream {
	return &replyStream{dec: tokenizer.NewStreamDecoderAfter(tok, true, prompt), stop: newStopper(stops), emit: emit}
}

// add decodes one id; it reports whether a stop string ended the reply, and false in ok when
// the consumer has gone.
func (r *replyStream) add(id int) (stop, ok bool) {
	text, stop := r.stop.Add(r.dec.Add(id))
	r.stopped = stop
	return stop, r.send(r.split(text))
}

// reasoning reports whether the reply is inside its <think> block.
func (r *replyStream) reasoning() bool { return r.parser != nil && r.parser.Reasoning() }

// drain sends the text the decoder and the stop-string matcher hold back, as a tool call
// begins: the text before a call goes out before it.
func (r *replyStream) drain() bool {
	if r.stopped {
		return true
	}
	text, _ := r.stop.Add(r.dec.Flush())
	return r.send(r.split(text + r.stop.Flush()))
}

// calls sends tool call parts as events.
func (r *replyStream) calls(parts []reply.ToolCallPart) bool {
	for _, p := range parts {
		if !r.emit(reply.Event{Kind: reply.EventToolCall, Tool: &p}) {
			return false
		}
	}
	return true
}

// split cuts text into thinking and answer segments.
func (r *replyStream) split(text string) []think.Segment {
	if r.parser == nil {
		return []think.Segment{{Text: text}}
	}
	return r.parser.Add(text)
}

// flush emits whatever the decoder, stopper and parser still hold.
func (r *replyStream) flush() {
	if !r.stopped {
		text, _ := r.stop.Add(r.dec.Flush())
		r.send(r.split(text + r.stop.Flush()))
	}
	if r.parser != nil {
		r.send(r.parser.Flush())
	}
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
