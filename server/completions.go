package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"edgechat/reply"
)

// handleCompletions serves POST /v1/completions, OpenAI's plain completion: the model
// continues the prompt as given (a base model's use), with no chat template.
func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	s.serveReply(w, r, "completion", func(body []byte) (*generation, *apiError) {
		var cr completionRequest
		if err := json.Unmarshal(body, &cr); err != nil {
			return nil, jsonError(err)
		}
		if aerr := completionPolicy.check(body); aerr != nil {
			return nil, aerr
		}
		req, aerr := cr.toInference()
		if aerr != nil {
			return nil, aerr
		}
		return &generation{req: req, stream: cr.Stream, idPrefix: "cmpl-", answer: func(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, c completion) *reply.Summary {
			if cr.Stream {
				return s.stream(ctx, w, events, textChunks(c), cr.includeUsage())
			}
			return s.complete(ctx, w, events, func(col reply.Collected, finish string) any {
				return textCompletion{
					ID: c.id, Object: "text_completion", Created: c.created, Model: c.model,
					Choices:   []textChoice{{Text: col.Text, FinishReason: &finish}},
					Usage:     usageOf(col.Summary),
					XEdgeChat: statsOf(col.Summary, col.Notices),
				}
			})
		}}, nil
	})
}

// completionRequest is the part of OpenAI's completions request EdgeChat understands; of the
// other fields, completionPolicy accepts the few that ask for nothing (echo false, best_of 1…)
// and refuses the rest.
type completionRequest struct {
	Model  string          `json:"model"`
	Prompt json.RawMessage `json:"prompt"`
	sampling
}

// toInference checks the fields and builds the engine request.
func (cr *completionRequest) toInference() (reply.Request, *apiError) {
	var req reply.Request
	p, aerr := parsePrompt(cr.Prompt)
	if aerr != nil {
		return req, aerr
	}
	req.Prompt = p
	if err := cr.apply(&req, cr.MaxTokens); err != nil {
		return req, err
	}
	return req, nil
}

// parsePrompt accepts one prompt: a string, or an array of token ids. A batch (an array of
// strings or of id arrays) is refused: one completion per request.
func parsePrompt(raw json.RawMessage) (*reply.Prompt, *apiError) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return nil, badRequest("invalid_prompt", "prompt: required; give the text to continue, or an array of token ids")
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return &reply.Prompt{Text: text}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, badRequest("invalid_prompt", "prompt: expected a string or an array of token ids")
	}
	if len(items) == 0 {
		return nil, badRequest("invalid_prompt", "prompt: the array of token ids is empty")
	}
	ids := make([]int, len(items))
	for i, it := range items {
		if it = bytes.TrimSpace(it); len(it) > 0 && (it[0] == '"' || it[0] == '[') {
			return nil, badRequest("invalid_prompt", "prompt: a batch of prompts (an array of strings or of token arrays) is not supported; send one prompt per request")
		}
		if err := json.Unmarshal(it, &ids[i]); err != nil || ids[i] < 0 {
			return nil, badRequest("invalid_prompt", fmt.Sprintf("prompt[%d]: %s is not a token id (a whole number from 0)", i, it))
		}
	}
	return &reply.Prompt{IDs: ids}, nil
}

// textCompletion is a text_completion object, whole or as a stream chunk.
type textCompletion struct {
	ID        string         `json:"id"`
	Object    string         `json:"object"` // "text_completion"
	Created   int64          `json:"created"`
	Model     string         `json:"model"`
	Choices   []textChoice   `json:"choices"`
	Usage     *usage         `json:"usage,omitempty"`
	XEdgeChat *edgechatStats `json:"x_edgechat,omitempty"`
}

type textChoice struct {
	Text         string    `json:"text"`
	Index        int       `json:"index"`
	Logprobs     *struct{} `json:"logprobs"` // always null
	FinishReason *string   `json:"finish_reason"`
}

// textChunks is the completions API's stream: text_completion objects with one choice each.
func textChunks(c completion) chunkFormat {
	base := textCompletion{ID: c.id, Object: "text_completion", Created: c.created, Model: c.model}
	one := func(text string, finish *string) textCompletion {
		ch := base
		ch.Choices = []textChoice{{Text: text, FinishReason: finish}}
		return ch
	}
	return chunkFormat{
		piece: func(_ reply.EventKind, text string) any { return one(text, nil) },
		last: func(finish string, stats *edgechatStats) any {
			ch := one("", &finish)
			ch.XEdgeChat = stats
			return ch
		},
		usage: func(u *usage, stats *edgechatStats) any {
			ch := base
			ch.Choices, ch.Usage, ch.XEdgeChat = []textChoice{}, u, stats
			return ch
		},
	}
}
