package server

import (
	"context"
	"net/http"

	"edgechat/reply"
)

// streamMessage writes a reply as the Messages API streams it: message_start, then for each
// block (thinking, text, tool_use) content_block_start, its deltas and content_block_stop,
// then message_delta with the stop reason and usage, and message_stop. A failure mid-stream
// is an error event. Status and notice events go out as SSE comments.
func (s *Server) streamMessage(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, c completion) *reply.Summary {
	sw := startSSE(w)
	start := anthropicMessage{ID: c.id, Type: "message", Role: "assistant", Model: c.model, Content: []anthropicBlock{}}
	sw.event("message_start", map[string]any{"type": "message_start", "message": start})
	sw.event("ping", map[string]string{"type": "ping"})
	sw.flush()

	b := blockStream{sw: sw, index: -1}
	sum, gone, failure := s.relay(ctx, sw, events, func(ev reply.Event) {
		switch ev.Kind {
		case reply.EventThinking:
			b.delta("thinking", map[string]any{"type": "thinking_delta", "thinking": ev.Text})
		case reply.EventText:
			b.delta("text", map[string]any{"type": "text_delta", "text": ev.Text})
		case reply.EventToolCall:
			if p := ev.Tool; p != nil {
				if p.ID != "" {
					b.open(anthropicBlock{Type: "tool_use", ID: p.ID, Name: p.Name, Input: []byte("{}")})
				}
				if p.Arguments != "" {
					b.delta("tool_use", map[string]any{"type": "input_json_delta", "partial_json": p.Arguments})
				}
			}
		}
	})
	if gone {
		return sum
	}
	if failure != nil {
		sw.event("error", anthropicErrorOf(failure))
		sw.flush()
		return sum
	}
	if b.index < 0 {
		b.open(anthropicBlock{Type: "text"})
	}
	b.close()
	stop := stopReason(sum)
	sw.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": anthropicUsage{InputTokens: sum.PromptTokens, OutputTokens: sum.GeneratedTokens}})
	sw.event("message_stop", map[string]string{"type": "message_stop"})
	sw.flush()
	return sum
}

// blockStream writes the content blocks of a streamed message, one open at a time.
type blockStream struct {
	sw    *sseWriter
	index int    // the open block's index, -1 before the first
	kind  string // the open block's type, "" when none is open
}

// open closes the block that is open and starts b.
func (bs *blockStream) open(b anthropicBlock) {
	bs.close()
	bs.index++
	bs.kind = b.Type
	switch b.Type {
	case "text":
		b.Text = ""
		bs.sw.event("content_block_start", map[string]any{"type": "content_block_start", "index": bs.index, "content_block": map[string]string{"type": "text", "text": ""}})
	case "thinking":
		bs.sw.event("content_block_start", map[string]any{"type": "content_block_start", "index": bs.index, "content_block": map[string]string{"type": "thinking", "thinking": "", "signature": ""}})
	default:
		bs.sw.event("content_block_start", map[string]any{"type": "content_block_start", "index": bs.index, "content_block": b})
	}
}

// delta sends a delta of a block of kind, opening one when another kind is open.
func (bs *blockStream) delta(kind string, d map[string]any) {
	if bs.kind != kind {
		bs.open(anthropicBlock{Type: kind})
	}
	bs.sw.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": bs.index, "delta": d})
}

func (bs *blockStream) close() {
	if bs.kind == "" {
		return
	}
	if bs.kind == "thinking" {
		bs.sw.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": bs.index, "delta": map[string]string{"type": "signature_delta", "signature": ""}})
	}
	bs.sw.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": bs.index})
	bs.kind = ""
}
