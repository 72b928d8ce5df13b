package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"edgechat/reply"
)

// stream writes the reply as Server-Sent Events: chat.completion.chunk objects, then
// "data: [DONE]". Status and notice events go out as SSE comments, which clients ignore.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, rp completion, includeUsage bool) *reply.Summary {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sw := newSSEWriter(w, rp)
	empty := ""
	sw.chunk(delta{Role: "assistant", Content: &empty}, nil)
	sw.flush()

	var notices []string
	var done *reply.Summary
	for ev := range events {
		switch ev.Kind {
		case reply.EventText:
			sw.chunk(delta{Content: &ev.Text}, nil)
		case reply.EventThinking:
			sw.chunk(delta{ReasoningContent: &ev.Text}, nil)
		case reply.EventNotice:
			notices = append(notices, ev.Text)
			sw.comment(ev.Text)
		case reply.EventStatus:
			sw.comment(ev.Text)
		case reply.EventDone:
			done = ev.Done
		}
		if sw.err != nil {
			return nil // the client went away; the caller cancels and drains
		}
		if len(events) == 0 { // flush once per burst of events, not per event
			sw.flush()
		}
	}
	sum := reply.Ended(ctx, done)
	if ctx.Err() != nil && s.hardStop.Err() == nil {
		return sum // the client went away
	}
	if finish, ok := finishReason(sum); ok {
		var stats *edgechatStats
		if !includeUsage {
			stats = statsOf(sum, notices)
		}
		sw.chunk(delta{}, &finish, func(ch *chatChunk) { ch.XEdgeChat = stats })
		if includeUsage {
			sw.write(chatChunk{
				ID: rp.id, Object: "chat.completion.chunk", Created: rp.created, Model: rp.model,
				Choices: []chunkChoice{}, Usage: usageOf(sum), XEdgeChat: statsOf(sum, notices),
			})
		}
	} else if sum.FinishReason == reply.FinishCancelled {
		sw.write(errorBody{shuttingDownError()})
	} else {
		sw.write(errorBody{newError(http.StatusInternalServerError, "server_error", "generation_failed", "the model failed while replying: "+sum.ErrorText())})
	}
	sw.raw("data: [DONE]\n\n")
	sw.flush()
	return sum
}

// sseWriter writes SSE events to a response; after the first write error it writes nothing
// more and keeps the error. It is owned by the handler's goroutine.
type sseWriter struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	rp   completion
	buf  bytes.Buffer
	enc  *json.Encoder
	err  error
	base chatChunk
}

func newSSEWriter(w http.ResponseWriter, rp completion) *sseWriter {
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), rp: rp}
	sw.enc = json.NewEncoder(&sw.buf)
	sw.enc.SetEscapeHTML(false)
	sw.base = chatChunk{ID: rp.id, Object: "chat.completion.chunk", Created: rp.created, Model: rp.model, Choices: make([]chunkChoice, 1)}
	return sw
}

// chunk writes a chat.completion.chunk with one choice; edit, if set, adjusts it first.
func (sw *sseWriter) chunk(d delta, finish *string, edit ...func(*chatChunk)) {
	ch := sw.base
	ch.Choices[0] = chunkChoice{Delta: d, FinishReason: finish}
	for _, e := range edit {
		e(&ch)
	}
	sw.write(ch)
}

// write sends v as one "data:" event.
func (sw *sseWriter) write(v any) {
	if sw.err != nil {
		return
	}
	sw.buf.Reset()
	sw.buf.WriteString("data: ")
	if sw.err = sw.enc.Encode(v); sw.err != nil {
		return
	}
	sw.buf.WriteByte('\n')
	_, sw.err = sw.w.Write(sw.buf.Bytes())
}

// comment sends text as an SSE comment line.
func (sw *sseWriter) comment(text string) {
	sw.raw(": " + strings.ReplaceAll(strings.ReplaceAll(text, "\r", " "), "\n", " ") + "\n\n")
}

func (sw *sseWriter) raw(s string) {
	if sw.err == nil {
		_, sw.err = sw.w.Write([]byte(s))
	}
}

func (sw *sseWriter) flush() {
	if sw.err == nil {
		sw.err = sw.rc.Flush()
	}
}
