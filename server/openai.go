package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"edgechat/reply"
)

// chatRequest is the part of OpenAI's chat completion request EdgeChat understands; of the
// other fields, chatPolicy accepts the few that ask for nothing and refuses the rest.
// chat_template_kwargs.enable_thinking is the extension vLLM and llama.cpp accept too.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	sampling
	MaxCompletionTokens *int `json:"max_completion_tokens"`
	ChatTemplateKwargs  *struct {
		EnableThinking *bool `json:"enable_thinking"`
	} `json:"chat_template_kwargs"`
	// Tools, tool_choice and parallel_tool_calls as OpenAI defines them (see tools.go); the
	// legacy functions and function_call are refused, naming them.
	Tools             json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls"`
	Functions         json.RawMessage `json:"functions"`
	FunctionCall      json.RawMessage `json:"function_call"`
	// ResponseFormat constrains the reply to JSON or a JSON schema.
	ResponseFormat json.RawMessage `json:"response_format"`
}

// sampling holds the fields the chat and the completions requests share: the reply budget,
// sampling, logit bias, stop strings, n and streaming. top_k, min_p and repetition_penalty
// are the extensions vLLM and llama.cpp accept too.
type sampling struct {
	MaxTokens         *int               `json:"max_tokens"`
	Temperature       *float64           `json:"temperature"`
	TopP              *float64           `json:"top_p"`
	TopK              *int               `json:"top_k"`
	MinP              *float64           `json:"min_p"`
	RepetitionPenalty *float64           `json:"repetition_penalty"`
	PresencePenalty   *float64           `json:"presence_penalty"`
	FrequencyPenalty  *float64           `json:"frequency_penalty"`
	LogitBias         map[string]float64 `json:"logit_bias"`
	Seed              *int64             `json:"seed"`
	Stop              json.RawMessage    `json:"stop"`
	N                 *int               `json:"n"`
	Stream            bool               `json:"stream"`
	StreamOptions     *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// includeUsage says whether a stream ends with a usage chunk.
func (sp *sampling) includeUsage() bool {
	return sp.StreamOptions != nil && sp.StreamOptions.IncludeUsage
}

// apply checks the shared fields and sets them on req; maxTokens is the reply budget the
// request gives (chat prefers max_completion_tokens).
func (sp *sampling) apply(req *reply.Request, maxTokens *int) *apiError {
	if sp.N != nil && *sp.N != 1 {
		return badRequest("invalid_n", "n: only one choice per request is supported (n=1)")
	}
	if maxTokens != nil {
		if *maxTokens < 0 {
			return badRequest("invalid_max_tokens", fmt.Sprintf("max_tokens: %d is negative; give a positive number of tokens, or leave it out for the default", *maxTokens))
		}
		req.MaxTokens = *maxTokens
		req.StrictMaxTokens = true // over the context: 400, as OpenAI answers
	}
	if err := sp.checkRanges(); err != nil {
		return err
	}
	bias, aerr := parseLogitBias(sp.LogitBias)
	if aerr != nil {
		return aerr
	}
	req.Sampling = reply.Sampling{
		Temperature: sp.Temperature, TopP: sp.TopP, TopK: sp.TopK, MinP: sp.MinP,
		RepetitionPenalty: sp.RepetitionPenalty, PresencePenalty: sp.PresencePenalty,
		FrequencyPenalty: sp.FrequencyPenalty, Seed: sp.Seed, LogitBias: bias,
	}
	stop, err := parseStop(sp.Stop)
	if err != nil {
		return badRequest("invalid_stop", err.Error())
	}
	req.Stop = stop
	return nil
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// ReasoningContent is an earlier assistant turn's reasoning, as this server returns it.
	ReasoningContent string `json:"reasoning_content"`
	// ToolCalls are an assistant turn's calls; ToolCallID is the call a "tool" turn answers.
	ToolCalls  []messageToolCall `json:"tool_calls"`
	ToolCallID string            `json:"tool_call_id"`
	Name       string            `json:"name"`
}

// contentPart is one element of a message's content array.
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// decodeChatRequest parses and checks a request body and turns it into an engine request.
func decodeChatRequest(body []byte) (chatRequest, reply.Request, *apiError) {
	var cr chatRequest
	if err := json.Unmarshal(body, &cr); err != nil {
		return cr, reply.Request{}, jsonError(err)
	}
	if aerr := chatPolicy.check(body); aerr != nil {
		return cr, reply.Request{}, aerr
	}
	req, aerr := cr.toInference()
	return cr, req, aerr
}

// jsonError explains a body that did not decode.
func jsonError(err error) *apiError {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return badRequest("invalid_type", fmt.Sprintf("%s: expected %s, got %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value))
	}
	return badRequest("invalid_json", "the request body is not valid JSON: "+strings.TrimPrefix(err.Error(), "json: "))
}

func jsonKind(goKind string) string {
	switch goKind {
	case "float64", "float32":
		return "a number"
	case "int", "int64":
		return "a whole number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	case "struct", "ptr":
		return "an object"
	}
	return goKind
}

// toInference checks the fields and builds the engine request.
func (cr *chatRequest) toInference() (reply.Request, *apiError) {
	req := reply.Request{Thinking: true}
	if len(cr.Messages) == 0 {
		return req, badRequest("invalid_messages", "messages: at least one message is required")
	}
	req.Messages = make([]reply.Message, 0, len(cr.Messages))
	for i, m := range cr.Messages {
		msg, err := m.toInference()
		if err != nil {
			return req, badRequest("invalid_messages", fmt.Sprintf("messages[%d]: %v", i, err))
		}
		req.Messages = append(req.Messages, msg)
	}
	if err := cr.parseChatTools(&req); err != nil {
		return req, err
	}
	format, aerr := parseResponseFormat(cr.ResponseFormat)
	if aerr != nil {
		return req, aerr
	}
	req.Format = format
	maxTokens := cr.MaxCompletionTokens
	if maxTokens == nil {
		maxTokens = cr.MaxTokens
	}
	if err := cr.apply(&req, maxTokens); err != nil {
		return req, err
	}
	if k := cr.ChatTemplateKwargs; k != nil && k.EnableThinking != nil {
		req.Thinking = *k.EnableThinking
	}
	return req, nil
}

// checkRanges rejects sampling values outside what OpenAI accepts.
func (cr *sampling) checkRanges() *apiError {
	ranges := []struct {
		name     string
		v        *float64
		min, max float64
	}{
		{"temperature", cr.Temperature, 0, 2},
		{"top_p", cr.TopP, 0, 1},
		{"min_p", cr.MinP, 0, 1},
		{"presence_penalty", cr.PresencePenalty, -2, 2},
		{"frequency_penalty", cr.FrequencyPenalty, -2, 2},
		{"repetition_penalty", cr.RepetitionPenalty, 0, 10},
	}
	for _, r := range ranges {
		if r.v != nil && (*r.v < r.min || *r.v > r.max) {
			return badRequest("invalid_"+r.name, fmt.Sprintf("%s: %g is out of range; use a value from %g to %g", r.name, *r.v, r.min, r.max))
		}
	}
	if cr.RepetitionPenalty != nil && *cr.RepetitionPenalty == 0 {
		return badRequest("invalid_repetition_penalty", "repetition_penalty: must be above 0 (1 means no penalty)")
	}
	if cr.TopK != nil && *cr.TopK < 0 {
		return badRequest("invalid_top_k", fmt.Sprintf("top_k: %d is negative; use 0 for no limit", *cr.TopK))
	}
	return nil
}

// toInference converts one message; content is a string, null, or an array of text parts.
func (m chatMessage) toInference() (reply.Message, error) {
	role := m.Role
	switch role {
	case "system", "user", "assistant", "tool":
	case "developer": // OpenAI's newer name for the system role
		role = "system"
	case "":
		return reply.Message{}, errors.New(`role is missing; use "system", "user", "assistant" or "tool"`)
	default:
		return reply.Message{}, fmt.Errorf(`role %q is not supported; use "system", "user", "assistant" or "tool"`, m.Role)
	}
	text, err := contentText(m.Content)
	if err != nil {
		return reply.Message{}, err
	}
	msg := reply.Message{Role: role, Content: text}
	switch role {
	case "assistant":
		msg.Thinking = m.ReasoningContent
		if msg.ToolCalls, err = toolCallsOf(m.ToolCalls); err != nil {
			return reply.Message{}, err
		}
	case "tool":
		if m.ToolCallID == "" {
			return reply.Message{}, errors.New("tool_call_id is missing: a tool message answers the call with that id")
		}
		msg.ToolCallID, msg.Name = m.ToolCallID, m.Name
	}
	if len(m.ToolCalls) > 0 && role != "assistant" {
		return reply.Message{}, fmt.Errorf("tool_calls: only an assistant message calls tools, not a %s message", role)
	}
	return msg, nil
}

func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("content: expected a string or an array of {\"type\":\"text\",\"text\":…} parts")
	}
	var b strings.Builder
	for i, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("content[%d]: part type %q is not supported; this model reads text only", i, p.Type)
		}
		if i > 0 {
			b.WriteByte('\n') // as vLLM joins text parts
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// parseStop accepts a string, an array of strings, or null.
func parseStop(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		if one == "" {
			return nil, nil
		}
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("stop: expected a string or an array of strings")
	}
	var out []string
	for _, s := range many {
		if s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}
