package inference

import (
	ort "github.com/yalue/onnxruntime_go"

	"edgechat/reply"
)

// nextTurn is the conversation as the next request will render it: the messages so far and
// the reply just given. Chat templates render an earlier reply differently from how the model
// produced it (Qwen3 drops the <think> block), so without help the next turn would prefill the
// whole reply again before its first token.
type nextTurn struct {
	history  []reply.Message
	thinking bool
}

// warmNextTurn prefills the next turn's history — up to where the user's next message will
// go — while the person is still reading and typing. stop is polled between chunks; a new
// request stops the warm-up, and the cache stays consistent whatever point it reached.
func (m *Model) warmNextTurn(run *ort.RunOptions, stop func() bool) {
	w := m.nextTurn
	m.nextTurn = nil
	if w == nil {
		return
	}
	// The ids two different next messages share are the history's rendering.
	a, err := m.PromptIDs(append(w.history, reply.Message{Role: "user", Content: "a"}), w.thinking)
	if err != nil {
		return
	}
	b, err := m.PromptIDs(append(w.history, reply.Message{Role: "user", Content: "b"}), w.thinking)
	if err != nil {
		return
	}
	ids := a[:commonPrefix(a, b)]
	if len(ids) >= m.dec.Capacity() {
		return
	}
	start := commonPrefix(m.dec.Cached(), ids)
	if start == len(ids) {
		return
	}
	m.dec.Truncate(start)
	for start < len(ids) {
		if stop() {
			return
		}
		end := min(start+prefillChunk, len(ids))
		if _, err := m.forward(ids[start:end], run); err != nil {
			m.dec.Truncate(start)
			return
		}
		start = end
	}
}
