package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"edgechat/reply"
)

// stream writes the reply as Server-Sent Events: the chunks f makes, then "data: [DONE]".
// Status and notice events go out as SSE comments, which clients ignore.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, f chunkFormat, includeUsage bool) *reply.Summary {
	sw := startSSE(w)
	if f.first != nil {
		sw.write(f.first)
		sw.flush()
	}

	var notices []string
	sum, gone, failure := s.relay(ctx, sw, events, func(ev reply.Event) {
		switch ev.Kind {
		case reply.EventText, reply.EventThinking:
			sw.write(f.piece(ev.Kind, ev.Text))
		case reply.EventToolCall:
			if f.call != nil && ev.Tool != nil {
				sw.write(f.call(*ev.Tool))
			}
		case reply.EventNotice:
			notices = append(notices, ev.Text)
		}
	})
	if gone {
		return sum // the client went away; the caller cancels and drains
	}
	if failure != nil {
		sw.write(errorBody{failure})
	} else {
		finish, _ := finishReason(sum)
		var stats *edgechatStats
		if !includeUsage {
			stats = statsOf(sum, notices)
		}
		sw.write(f.last(finish, stats))
		if includeUsage {
			sw.write(f.usage(usageOf(sum), statsOf(sum, notices)))
		}
	}
	sw.raw("data: [DONE]\n\n")
	sw.flush()
	return sum
}

// relay passes a reply's events to handle as they come (status and notice events also go
// out as SSE comments), flushing once per burst, and says how the reply ended: its summary;
// gone when the client went away (nothing more to write); failure, the error to send, when
// the reply failed or was cut off by a shutdown.
func (s *Server) relay(ctx context.Context, sw *sseWriter, events <-chan reply.Event, handle func(reply.Event)) (sum *reply.Summary, gone bool, failure *apiError) {
	var done *reply.Summary
	for ev := range events {
		switch ev.Kind {
		case reply.EventNotice, reply.EventStatus:
			sw.comment(ev.Text)
		case reply.EventDone:
			done = ev.Done
		}
		handle(ev)
		if sw.err != nil {
			return nil, true, nil
		}
		if len(events) == 0 { // flush once per burst of events, not per event
			sw.flush()
		}
	}
	sum = reply.Ended(ctx, done)
	switch _, ok := finishReason(sum); {
	case ctx.Err() != nil && s.hardStop.Err() == nil:
		return sum, true, nil
	case ok:
		return sum, false, nil
	case sum.FinishReason == reply.FinishCancelled:
		return sum, false, shuttingDownError()
	}
	return sum, false, newError(http.StatusInternalServerError, "server_error", "generation_failed", "the model failed while replying: "+sum.ErrorText())
}

// chunkFormat makes one API's stream objects.
type chunkFormat struct {
	// first goes out before the reply (nil: nothing).
	first any
	// piece carries a text or thinking event.
	piece func(kind reply.EventKind, text string) any
	// call carries a piece of a tool call (nil: the API has none).
	call func(p reply.ToolCallPart) any
	// last gives the finish reason, and the stats when no usage chunk follows.
	last func(finish string, stats *edgechatStats) any
	// usage is the chunk after the last that gives the usage (stream_options.include_usage).
	usage func(u *usage, stats *edgechatStats) any
}

// chatChunks is the chat API's stream: chat.completion.chunk objects, the first with the
// assistant's role.
func chatChunks(c completion) chunkFormat {
	base := chatChunk{ID: c.id, Object: "chat.completion.chunk", Created: c.created, Model: c.model}
	one := func(d delta, finish *string) chatChunk {
		ch := base
		ch.Choices = []chunkChoice{{Delta: d, FinishReason: finish}}
		return ch
	}
	empty := ""
	return chunkFormat{
		first: one(delta{Role: "assistant", Content: &empty}, nil),
		piece: func(kind reply.EventKind, text string) any {
			if kind == reply.EventThinking {
				return one(delta{ReasoningContent: &text}, nil)
			}
			return one(delta{Content: &text}, nil)
		},
		call: func(p reply.ToolCallPart) any {
			return one(delta{ToolCalls: []toolCallDelta{toolCallDeltaOf(p)}}, nil)
		},
		last: func(finish string, stats *edgechatStats) any {
			ch := one(delta{}, &finish)
			ch.XEdgeChat = stats
			return ch
		},
		usage: func(u *usage, stats *edgechatStats) any {
			ch := base
			ch.Choices, ch.Usage, ch.XEdgeChat = []chunkChoice{}, u, stats
			return ch
		},
	}
}

// sseWriter writes SSE events to a response; after the first write error it writes nothing
// more and keeps the error. It is owned by the handler's goroutine.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

// startSSE answers 200 with an event stream and returns its writer.
func startSSE(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return newSSEWriter(w)
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	sw := &sseWriter{w: w, rc: http.NewResponseController(w)}
	sw.enc = json.NewEncoder(&sw.buf)
	sw.enc.SetEscapeHTML(false)
	return sw
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

// event sends v as one event named name ("event: name" then its data), as the Messages and
// Responses APIs stream.
func (sw *sseWriter) event(name string, v any) {
	sw.raw("event: " + name + "\n")
	sw.write(v)
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
