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
	"strings"
	"time"

	"edgechat/inference"
)

// handleChat serves POST /v1/chat/completions.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	if s.shuttingDown() {
		writeError(w, shuttingDownError())
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, newError(http.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large",
				"the request body is over the server's limit of "+byteSize(tooBig.Limit)))
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
	reply := reply{id: newID(), created: start.Unix(), model: s.opt.ModelName}
	var sum *inference.Summary
	if cr.Stream {
		includeUsage := cr.StreamOptions != nil && cr.StreamOptions.IncludeUsage
		sum = s.stream(ctx, w, events, reply, includeUsage)
	} else {
		sum = s.complete(ctx, w, events, reply)
	}
	if sum == nil {
		slog.Info("chat completion: the client went away", "id", reply.id, "duration", time.Since(start).Round(time.Millisecond))
	} else {
		slog.Info("chat completion", "id", reply.id, "stream", cr.Stream, "finish", sum.FinishReason,
			"prompt_tokens", sum.PromptTokens, "completion_tokens", sum.GeneratedTokens,
			"backend", sum.Backend, "duration", time.Since(start).Round(time.Millisecond))
	}
}

// reply identifies one completion in every object written for it.
type reply struct {
	id      string
	created int64
	model   string
}

// collected is what a reply stream held by the time it ended.
type collected struct {
	sum     *inference.Summary
	notices []string
}

// errNoSummary stands for a stream that closed without its final event.
var errNoSummary = errors.New("the reply ended without a summary")

// finalSummary completes the summary of a stream that ended: a missing one becomes an error,
// and an error always has its text.
func finalSummary(sum *inference.Summary) *inference.Summary {
	if sum == nil {
		sum = &inference.Summary{FinishReason: inference.FinishError, Err: errNoSummary}
	}
	if sum.FinishReason == inference.FinishError && sum.Error == "" && sum.Err != nil {
		sum.Error = sum.Err.Error()
	}
	if sum.FinishReason == inference.FinishError && sum.Error == "" {
		sum.Error = "the model failed without saying why"
	}
	return sum
}

// complete collects the whole reply and writes one chat.completion object.
func (s *Server) complete(ctx context.Context, w http.ResponseWriter, events <-chan inference.Event, rp reply) *inference.Summary {
	var text, thinking strings.Builder
	var c collected
	for ev := range events {
		switch ev.Kind {
		case inference.EventText:
			text.WriteString(ev.Text)
		case inference.EventThinking:
			thinking.WriteString(ev.Text)
		case inference.EventNotice:
			c.notices = append(c.notices, ev.Text)
		case inference.EventDone:
			c.sum = ev.Done
		}
	}
	sum := finalSummary(c.sum)
	finish, ok := finishReason(sum)
	switch {
	case ok:
	case ctx.Err() != nil && s.hardStop.Err() == nil:
		return sum // the client went away: nobody to answer
	case sum.FinishReason == inference.FinishCancelled:
		writeError(w, shuttingDownError())
		return sum
	default:
		writeError(w, newError(http.StatusInternalServerError, "server_error", "generation_failed", "the model failed while replying: "+sum.Error))
		return sum
	}
	writeJSON(w, http.StatusOK, chatCompletion{
		ID: rp.id, Object: "chat.completion", Created: rp.created, Model: rp.model,
		Choices:   []choice{{Message: assistantMessage{Role: "assistant", Content: text.String(), ReasoningContent: thinking.String()}, FinishReason: finish}},
		Usage:     usageOf(sum),
		XEdgeChat: statsOf(sum, c.notices),
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
