package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"edgechat/reply"
)

// handleChat serves POST /v1/chat/completions.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, tooLarge)
			return
		}
		writeError(w, badRequest("unreadable_body", "could not read the request body: "+err.Error()))
		return
	}
	cr, req, aerr := decodeChatRequest(body)
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
	events, err := s.gen.Generate(ctx, req)
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
		slog.Info("chat completion refused", "reason", refused.Message)
		return
	}
	started := replay(ctx, head, events)
	cmpl := completion{id: newID(), created: start.Unix(), model: s.opt.ModelName}
	var sum *reply.Summary
	if cr.Stream {
		includeUsage := cr.StreamOptions != nil && cr.StreamOptions.IncludeUsage
		sum = s.stream(ctx, w, started, cmpl, includeUsage)
	} else {
		sum = s.complete(ctx, w, started, cmpl)
	}
	if sum == nil {
		slog.Info("chat completion: the client went away", "id", cmpl.id, "duration", time.Since(start).Round(time.Millisecond))
	} else {
		slog.Info("chat completion", "id", cmpl.id, "stream", cr.Stream, "finish", sum.FinishReason,
			"prompt_tokens", sum.PromptTokens, "completion_tokens", sum.GeneratedTokens,
			"backend", sum.Backend, "duration", time.Since(start).Round(time.Millisecond))
	}
}

// awaitStart reads a reply's events up to the first that is not a status: a request the
// model refuses outright (a prompt or max_tokens over the context) ends there, before a
// status line is written, and gets a 400 context_length_exceeded instead of a 200 with an
// error inside. It returns the events read and that refusal, if any.
func awaitStart(events <-chan reply.Event) ([]reply.Event, *apiError) {
	var head []reply.Event
	for ev := range events {
		head = append(head, ev)
		if ev.Kind == reply.EventStatus {
			continue
		}
		if ev.Kind == reply.EventDone && ev.Done != nil && errors.Is(ev.Done.Err, reply.ErrContextLength) {
			return head, badRequest("context_length_exceeded", ev.Done.Err.Error())
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

// complete collects the whole reply and writes one chat.completion object.
func (s *Server) complete(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, rp completion) *reply.Summary {
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
	writeJSON(w, http.StatusOK, chatCompletion{
		ID: rp.id, Object: "chat.completion", Created: rp.created, Model: rp.model,
		Choices:   []choice{{Message: assistantMessage{Role: "assistant", Content: c.Text, ReasoningContent: c.Thinking}, FinishReason: finish}},
		Usage:     usageOf(sum),
		XEdgeChat: statsOf(sum, c.Notices),
	})
	return sum
}

func newID() string {
	var b [12]byte
	rand.Read(b[:])
	return "chatcmpl-" + hex.EncodeToString(b[:])
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
