package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"edgechat/reply"

	"edgechat/inference/think"
)

// reader turns one HTTP reply into events. It runs on the Generate goroutine, which owns it.
type reader struct {
	c     *Client
	ctx   context.Context
	out   chan<- reply.Event
	start time.Time

	think       *think.Parser
	first, last time.Time // when the first and latest reply text arrived
	pieces      int       // deltas with text, to count tokens when the server sends no usage
	emitted     bool      // an event reached the consumer
	finish      string
	usage       *wireUsage
}

// wireChunk is the part of a chat.completion.chunk (or chat.completion) the reader uses.
type wireChunk struct {
	Choices []struct {
		Delta        wireDelta  `json:"delta"`
		Message      *wireDelta `json:"message"`
		FinishReason *string    `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

type wireDelta struct {
	Content          *string `json:"content"`
	ReasoningContent *string `json:"reasoning_content"`
	Reasoning        *string `json:"reasoning"` // Ollama, newer vLLM
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// errStopped means the consumer cancelled while an event was being sent.
var errStopped = errors.New("stopped")

// readStream reads Server-Sent Events until "data: [DONE]".
func (r *reader) readStream(body io.Reader) *reply.Summary {
	r.think = think.NewParser(false)
	sse := newSSEReader(body)
	for {
		data, err := sse.next()
		if err == io.EOF && r.finish != "" {
			break // the reply finished; the server just left out [DONE]
		}
		if err != nil {
			return r.fail(r.streamError(err))
		}
		if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
			break
		}
		if err := r.chunk(data); err != nil {
			return r.fail(err)
		}
	}
	if err := r.flush(); err != nil {
		return r.fail(err)
	}
	return r.summary()
}

// streamError explains why an event stream ended early.
func (r *reader) streamError(err error) error {
	var se *streamError
	switch {
	case err == io.EOF:
		return fmt.Errorf("the remote server at %s closed the connection mid-reply", r.c.base)
	case errors.As(err, &se):
		return fmt.Errorf("the remote server at %s reported an error: %s", r.c.base, se.msg)
	}
	return fmt.Errorf("the connection to the remote server at %s broke mid-reply: %w", r.c.base, err)
}

// readCompletion reads a non-streamed chat.completion object.
func (r *reader) readCompletion(body io.Reader) *reply.Summary {
	r.think = think.NewParser(false)
	b, err := io.ReadAll(io.LimitReader(body, 64<<20))
	if err != nil {
		return r.fail(fmt.Errorf("the connection to the remote server at %s broke mid-reply: %w", r.c.base, err))
	}
	if err := r.chunk(b); err != nil {
		return r.fail(err)
	}
	if err := r.flush(); err != nil {
		return r.fail(err)
	}
	return r.summary()
}

// chunk handles one JSON object from the server.
func (r *reader) chunk(data []byte) error {
	if msg, _ := errorMessage(data); msg != "" {
		return fmt.Errorf("the remote server at %s reported an error: %s", r.c.base, msg)
	}
	var ch wireChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("the remote server at %s sent a reply that is not OpenAI-compatible JSON (%v) — check that the address in Settings → Remote is its /v1 API", r.c.base, err)
	}
	if ch.Usage != nil {
		r.usage = ch.Usage
	}
	for _, choice := range ch.Choices {
		d := choice.Delta
		if choice.Message != nil {
			d = *choice.Message
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			r.finish = *choice.FinishReason
		}
		reasoning := d.ReasoningContent
		if reasoning == nil {
			reasoning = d.Reasoning
		}
		if reasoning != nil && *reasoning != "" {
			r.count()
			if err := r.emit(reply.Event{Kind: reply.EventThinking, Text: *reasoning}); err != nil {
				return err
			}
		}
		if d.Content != nil && *d.Content != "" {
			r.count()
			for _, seg := range r.think.Add(*d.Content) {
				if err := r.emitSegment(seg); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// count notes that a piece of reply text arrived.
func (r *reader) count() {
	now := time.Now()
	if r.first.IsZero() {
		r.first = now
	}
	r.last = now
	r.pieces++
}

func (r *reader) flush() error {
	for _, seg := range r.think.Flush() {
		if err := r.emitSegment(seg); err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) emitSegment(seg think.Segment) error {
	kind := reply.EventText
	if seg.Thinking {
		kind = reply.EventThinking
	}
	return r.emit(reply.Event{Kind: kind, Text: seg.Text})
}

// emit sends ev unless the consumer has cancelled.
func (r *reader) emit(ev reply.Event) error {
	select {
	case r.out <- ev:
		r.emitted = true
		return nil
	case <-r.ctx.Done():
		return errStopped
	}
}

// fail ends the reply with err; before any output the error marks the server unavailable.
func (r *reader) fail(err error) *reply.Summary {
	if r.ctx.Err() != nil || errors.Is(err, errStopped) {
		sum := r.summary()
		sum.FinishReason = reply.FinishCancelled
		return sum
	}
	sum := r.summary()
	sum.FinishReason = reply.FinishError
	sum.Err = &Error{Server: r.c.base, BeforeOutput: !r.emitted, msg: err.Error(), err: err}
	return sum
}

// summary reports what the reply cost, measured here when the server sends no usage.
func (r *reader) summary() *reply.Summary {
	sum := &reply.Summary{FinishReason: reply.FinishStop, GeneratedTokens: r.pieces}
	if r.finish == "length" {
		sum.FinishReason = reply.FinishLength
	}
	if r.usage != nil {
		sum.PromptTokens, sum.GeneratedTokens = r.usage.PromptTokens, r.usage.CompletionTokens
	}
	if !r.first.IsZero() {
		sum.TTFT = r.first.Sub(r.start)
		if d := r.last.Sub(r.first); sum.GeneratedTokens > 1 && d > 0 {
			sum.DecodeTPS = float64(sum.GeneratedTokens-1) / d.Seconds()
		}
	}
	return sum
}
