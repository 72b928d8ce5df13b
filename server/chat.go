package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"edgechat/reply"
)

// handleChat serves POST /v1/chat/completions.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	s.serveReply(w, r, "chat completion", func(body []byte) (*generation, *apiError) {
		cr, req, aerr := decodeChatRequest(body)
		if aerr != nil {
			return nil, aerr
		}
		return &generation{req: req, stream: cr.Stream, idPrefix: "chatcmpl-", answer: func(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, c completion) *reply.Summary {
			if cr.Stream {
				return s.stream(ctx, w, events, chatChunks(c), cr.includeUsage())
			}
			return s.complete(ctx, w, events, func(col reply.Collected, finish string) any {
				msg := assistantMessage{Role: "assistant", ReasoningContent: col.Thinking, ToolCalls: wireToolCalls(col.ToolCalls)}
				if col.Text != "" || len(col.ToolCalls) == 0 {
					msg.Content = &col.Text
				}
				return chatCompletion{
					ID: c.id, Object: "chat.completion", Created: c.created, Model: c.model,
					Choices:   []choice{{Message: msg, FinishReason: finish}},
					Usage:     usageOf(col.Summary),
					XEdgeChat: statsOf(col.Summary, col.Notices),
				}
			})
		}}, nil
	})
}

// generation is a decoded request for a reply and how to answer it.
type generation struct {
	req      reply.Request
	stream   bool
	idPrefix string // of the completion's id: "chatcmpl-", "cmpl-"
	// answer writes the reply from its events (the first already read) and returns its
	// summary, or nil when the client went away.
	answer func(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, c completion) *reply.Summary
}

// serveReply is what the endpoints that generate share: the body's size limit, decoding it
// with decode, the queue, the engine, and a refusal the model makes at once (a prompt over
// the context) answered as a 400 before any header; kind names the endpoint in the log.
func (s *Server) serveReply(w http.ResponseWriter, r *http.Request, kind string, decode func(body []byte) (*generation, *apiError)) {
	if s.shuttingDown() {
		writeError(w, shuttingDownError())
		return
	}
	tooLarge := newError(http.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large",
		"the request body is over the server's limit of "+byteSize(s.opt.MaxBodyBytes))
	if r.ContentLength > s.opt.MaxBodyBytes { // said so up front: no need to wait for it
		writeError(w, tooLarge)
		return
	}
	timed, _ := r.Body.(*timedBody)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes))
	if err != nil {
		// The read deadline stays: net/http reads what is left of the body before it answers,
		// and must not wait for a slow client to send it.
		var tooBig *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooBig):
			writeError(w, tooLarge)
		case errors.As(err, &netErr) && netErr.Timeout():
			writeError(w, newError(http.StatusRequestTimeout, "invalid_request_error", "request_timeout", fmt.Sprintf(
				"the request body came too slowly: it must start within %v and then keep coming at %s/s or faster", s.opt.ReadTimeout, byteSize(bodyMinRate))))
		default:
			writeError(w, badRequest("unreadable_body", "could not read the request body: "+err.Error()))
		}
		return
	}
	timed.done()
	g, aerr := decode(body)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if aerr := s.queue.acquire(r.Context(), s.closing); aerr != nil {
		writeError(w, aerr)
		return
	}
	defer s.queue.release()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(s.hardStop, cancel)()
	start := time.Now()
	events, err := s.gen.Generate(ctx, g.req)
	if err != nil {
		writeError(w, newError(http.StatusServiceUnavailable, "server_error", "engine_unavailable", "the model cannot take the request: "+err.Error()))
		return
	}
	// However the reply ends, wait for the producer to close its channel so the next request
	// in the queue starts on an idle engine.
	defer func() {
		cancel()
		for range events {
		}
	}()
	head, refused := awaitStart(events)
	if refused != nil {
		writeError(w, refused)
		slog.Info(kind+" refused", "reason", refused.Message)
		return
	}
	c := completion{id: newID(g.idPrefix), created: start.Unix(), model: s.opt.ModelName}
	sum := g.answer(ctx, w, replay(ctx, head, events), c)
	if sum == nil {
		slog.Info(kind+": the client went away", "id", c.id, "duration", time.Since(start).Round(time.Millisecond))
	} else {
		slog.Info(kind, "id", c.id, "stream", g.stream, "finish", sum.FinishReason,
			"prompt_tokens", sum.PromptTokens, "completion_tokens", sum.GeneratedTokens,
			"backend", sum.Backend, "duration", time.Since(start).Round(time.Millisecond))
	}
}

// awaitStart reads a reply's events up to the first that is not a status or notice: a request the
// model refuses outright (a prompt or max_tokens over the context, a raw prompt it cannot
// take, a parameter such as a logit_bias id outside its vocabulary) ends there, before a
// status line is written, and gets a 400 instead of a 200 with an error inside. It returns
// the events read and that refusal, if any.
func awaitStart(events <-chan reply.Event) ([]reply.Event, *apiError) {
	var head []reply.Event
	for ev := range events {
		head = append(head, ev)
		if ev.Kind == reply.EventStatus || ev.Kind == reply.EventNotice {
			continue // notices before any text (a fallback, the ChatML stand-in) come back in head
		}
		if ev.Kind == reply.EventDone && ev.Done != nil {
			switch {
			case errors.Is(ev.Done.Err, reply.ErrContextLength):
				return head, badRequest("context_length_exceeded", ev.Done.Err.Error())
			case errors.Is(ev.Done.Err, reply.ErrInvalidPrompt):
				return head, badRequest("invalid_prompt", "prompt: "+ev.Done.Err.Error())
			case errors.Is(ev.Done.Err, reply.ErrTools):
				return head, toolsError(ev.Done.Err)
			}
			if pe := (*reply.ParamError)(nil); errors.As(ev.Done.Err, &pe) {
				return head, badRequest("invalid_"+pe.Param, pe.Error())
			}
		}
		break
	}
	return head, nil
}

// replay yields head again, then the rest of events, until ctx ends.
func replay(ctx context.Context, head []reply.Event, rest <-chan reply.Event) <-chan reply.Event {
	out := make(chan reply.Event, len(head))
	for _, ev := range head {
		out <- ev
	}
	go func() {
		defer close(out)
		for ev := range rest {
			if !reply.Emit(ctx, out, ev) {
				return
			}
		}
	}()
	return out
}

// completion identifies one completion in every object written for it.
type completion struct {
	id      string
	created int64
	model   string
}

// complete collects the whole reply and writes the object object makes of it, or the error
// that ended it.
func (s *Server) complete(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, object func(c reply.Collected, finish string) any) *reply.Summary {
	c := reply.Collect(ctx, events)
	sum := c.Summary
	finish, ok := finishReason(sum)
	switch {
	case ok:
	case ctx.Err() != nil && s.hardStop.Err() == nil:
		return sum // the client went away: nobody to answer
	case sum.FinishReason == reply.FinishCancelled:
		writeError(w, shuttingDownError())
		return sum
	default:
		writeError(w, newError(http.StatusInternalServerError, "server_error", "generation_failed", "the model failed while replying: "+sum.ErrorText()))
		return sum
	}
	writeJSON(w, http.StatusOK, object(c, finish))
	return sum
}

func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
