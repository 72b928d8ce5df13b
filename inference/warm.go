package inference

import (
	"context"
	"slices"

	"edgechat/reply"
)

// warmChunk is how many prompt tokens a warm-up feeds the decoder at a time: where a new
// request can stop it.
const warmChunk = 64

// nextTurn is the conversation as the next request will render it: the messages so far and
// the reply just given. Chat templates render an earlier reply differently from how the model
// produced it (Qwen3 drops the <think> block), so without help the next turn would prefill the
// whole reply again before its first token.
type nextTurn struct {
	history []reply.Message
	opts    turnOptions
}

// warmNextTurn prefills the next turn's history — up to where the user's next message will
// go — while the person is still reading and typing. stop is polled between chunks and ctx
// stops a run in flight; a new request stops the warm-up, and the cache stays consistent
// whatever point it reached.
func (m *Model) warmNextTurn(ctx context.Context, stop func() bool) {
	w := m.nextTurn
	m.nextTurn = nil
	if w == nil {
		return
	}
	ids, err := m.historyIDs(ctx, w)
	if err != nil || len(ids) >= m.dec.Capacity() {
		return
	}
	m.feed(ctx, ids, stop)
}

// feed brings the cache to hold ids, keeping what it shares with them and prefilling the rest
// warmChunk tokens at a time, until done, stop says so between chunks or ctx ends; the cache
// stays consistent whatever point it reached.
func (m *Model) feed(ctx context.Context, ids []int, stop func() bool) {
	start := commonPrefix(m.dec.Cached(), ids)
	if start == len(ids) {
		return
	}
	m.dec.Truncate(start)
	for start < len(ids) {
		if stop() || ctx.Err() != nil {
			return
		}
		end := min(start+warmChunk, len(ids))
		if _, err := m.dec.Forward(ctx, ids[start:end]); err != nil {
			m.dec.Truncate(start)
			return
		}
		start = end
	}
}

// historyIDs are the ids any next message will share: the next turn is rendered once with a
// placeholder user message, and its ids with two different bodies agree up to that message.
func (m *Model) historyIDs(ctx context.Context, w *nextTurn) ([]int, error) {
	msgs := append(slices.Clip(w.history), reply.Message{Role: "user", Content: "a"})
	r, err := m.render(ctx, msgs, 0, 0, w.opts)
	if err != nil {
		return nil, err
	}
	a := m.encode(r.parts)
	last := slices.Index(r.body, len(msgs)-1)
	if last < 0 {
		return nil, nil // the template dropped the message: nothing is known to be shared
	}
	r.parts[last].Text = "b"
	b := m.encode(r.parts)
	return a[:commonPrefix(a, b)], nil
}
