package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"edgechat/reply"
)

// The Anthropic Messages API (POST /v1/messages), which agents and coding tools speak: system,
// messages of text, tool_use and tool_result blocks, tools with input schemas, tool_choice
// auto/any/tool/none, and the streamed events message_start … message_stop.

// handleMessages serves POST /v1/messages.
func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	s.serveReply(w, r, "message", func(body []byte) (*generation, *apiError) {
		var mr messagesRequest
		req, aerr := decodeRequest(body, &mr, messagesPolicy)
		if aerr != nil {
			return nil, aerr
		}
		return &generation{req: req, stream: mr.Stream, idPrefix: "msg_", answer: func(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, c completion) *reply.Summary {
			if mr.Stream {
				return s.streamMessage(ctx, w, events, c)
			}
			return s.complete(ctx, w, events, func(col reply.Collected, _ string) any {
				return messageOf(c, col)
			})
		}}, nil
	})
}

// messagesRequest is the Messages API request; fields it does not list are refused (see
// messagesIgnored for those accepted and ignored).
type messagesRequest struct {
	Model         string           `json:"model"`
	MaxTokens     *int             `json:"max_tokens"`
	Messages      []anthropicMsg   `json:"messages"`
	System        json.RawMessage  `json:"system"`
	StopSequences []string         `json:"stop_sequences"`
	Stream        bool             `json:"stream"`
	Temperature   *float64         `json:"temperature"`
	TopP          *float64         `json:"top_p"`
	TopK          *int             `json:"top_k"`
	Tools         []anthropicTool  `json:"tools"`
	ToolChoice    *anthropicChoice `json:"tool_choice"`
	Thinking      *anthropicThink  `json:"thinking"`
}

// messagesPolicy refuses the Messages API's fields this server cannot honour (server tools,
// MCP servers: it never starts one on a request's behalf), naming them.
var messagesPolicy = newFieldPolicy(messagesRequest{}, map[string]noopRule{
	"mcp_servers": {nullOr("[]"), "this server does not connect to MCP servers on a request's behalf; leave mcp_servers out and call tools yourself"},
	"container":   {isNull, "this server runs no code containers; leave container out"},
})

type anthropicMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// anthropicBlock is one content block of a message.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type anthropicTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anthropicChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use"`
}

type anthropicThink struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// decodeChecked decodes body into v and lets p refuse the fields it cannot honour, naming them.
func decodeChecked(body []byte, v any, p fieldPolicy) *apiError {
	if err := json.Unmarshal(body, v); err != nil {
		return jsonError(err)
	}
	return p.check(body)
}

// apiRequest is the request of an API that generates a reply.
type apiRequest interface {
	toInference() (reply.Request, *apiError)
}

// decodeRequest decodes body into v, checks its fields with p and converts it.
func decodeRequest(body []byte, v apiRequest, p fieldPolicy) (reply.Request, *apiError) {
	if aerr := decodeChecked(body, v, p); aerr != nil {
		return reply.Request{}, aerr
	}
	return v.toInference()
}

// toInference checks the request and builds the engine's.
func (mr *messagesRequest) toInference() (reply.Request, *apiError) {
	req := reply.Request{Thinking: mr.Thinking != nil && mr.Thinking.Type == "enabled", Stop: mr.StopSequences}
	if mr.MaxTokens == nil || *mr.MaxTokens < 1 {
		return req, badParam("max_tokens", "invalid_max_tokens", "max_tokens: required, a positive number of tokens")
	}
	req.MaxTokens, req.StrictMaxTokens = *mr.MaxTokens, true
	sp := sampling{Temperature: mr.Temperature, TopP: mr.TopP, TopK: mr.TopK}
	if mr.Temperature != nil && *mr.Temperature > 1 {
		return req, badParam("temperature", "invalid_temperature", fmt.Sprintf("temperature: %g is out of range; use a value from 0 to 1", *mr.Temperature))
	}
	if err := sp.checkRanges(); err != nil {
		return req, err
	}
	req.Sampling = reply.Sampling{Temperature: mr.Temperature, TopP: mr.TopP, TopK: mr.TopK}
	if len(mr.System) > 0 && string(mr.System) != "null" {
		system, err := blocksText(mr.System)
		if err != nil {
			return req, badParam("system", "invalid_system", "system: "+err.Error())
		}
		req.Messages = append(req.Messages, reply.Message{Role: "system", Content: system})
	}
	if len(mr.Messages) == 0 {
		return req, badParam("messages", "invalid_messages", "messages: at least one message is required")
	}
	for i, m := range mr.Messages {
		msgs, err := m.toInference()
		if err != nil {
			return req, badParam(fmt.Sprintf("messages[%d]", i), "invalid_messages", fmt.Sprintf("messages[%d]: %v", i, err))
		}
		req.Messages = append(req.Messages, msgs...)
	}
	for i, t := range mr.Tools {
		if t.Type != "" && t.Type != "custom" {
			return req, badParam(fmt.Sprintf("tools[%d].type", i), "unsupported_parameter", fmt.Sprintf("tools[%d]: tool type %q (a server tool) is not supported; only client tools with an input_schema", i, t.Type))
		}
		req.Tools = append(req.Tools, reply.Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	if c := mr.ToolChoice; c != nil {
		switch c.Type {
		case "auto":
		case "any":
			req.ToolChoice.Mode = reply.ToolRequired
		case "tool":
			req.ToolChoice = reply.ToolChoice{Mode: reply.ToolFunction, Name: c.Name}
		case "none":
			req.ToolChoice.Mode = reply.ToolNone
		default:
			return req, badParam("tool_choice.type", "invalid_tool_choice", fmt.Sprintf(`tool_choice.type: %q is not one of "auto", "any", "tool", "none"`, c.Type))
		}
		req.OneToolCall = c.DisableParallelToolUse
	}
	return req, checkToolRequest(&req, "tool_choice")
}

// toInference converts one message: its text, thinking and tool_use blocks; a user message's
// tool_result blocks become "tool" messages (before its text, as they answer the calls).
func (m anthropicMsg) toInference() ([]reply.Message, error) {
	if m.Role != "user" && m.Role != "assistant" {
		return nil, fmt.Errorf(`role %q is not supported; use "user" or "assistant" (the system prompt goes in system)`, m.Role)
	}
	blocks, err := contentBlocks(m.Content)
	if err != nil {
		return nil, err
	}
	var out []reply.Message
	msg := reply.Message{Role: m.Role}
	var text []string
	for i, b := range blocks {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "thinking", "redacted_thinking":
			if m.Role != "assistant" {
				return nil, fmt.Errorf("content[%d]: a thinking block belongs in an assistant message", i)
			}
			msg.Thinking += b.Thinking
		case "tool_use":
			if m.Role != "assistant" {
				return nil, fmt.Errorf("content[%d]: a tool_use block belongs in an assistant message", i)
			}
			msg.ToolCalls = append(msg.ToolCalls, reply.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
		case "tool_result":
			if m.Role != "user" {
				return nil, fmt.Errorf("content[%d]: a tool_result block belongs in a user message", i)
			}
			result, err := blocksText(b.Content)
			if err != nil {
				return nil, fmt.Errorf("content[%d].content: %v", i, err)
			}
			if b.IsError {
				result = "Error: " + result
			}
			out = append(out, reply.Message{Role: "tool", ToolCallID: b.ToolUseID, Content: result})
		default:
			return nil, fmt.Errorf("content[%d]: block type %q is not supported; this model reads text, tool_use and tool_result blocks", i, b.Type)
		}
	}
	msg.Content = strings.Join(text, "\n")
	if len(out) > 0 && msg.Content == "" {
		return out, nil
	}
	return append(out, msg), nil
}

// contentBlocks reads content: a string (one text block) or an array of blocks.
func contentBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, errors.New("content: expected a string or an array of content blocks")
	}
	return blocks, nil
}

// blocksText is the text of a string or of an array of text blocks.
func blocksText(raw json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return "", nil
	}
	blocks, err := contentBlocks(raw)
	if err != nil {
		return "", err
	}
	var parts []string
	for i, b := range blocks {
		if b.Type != "text" {
			return "", fmt.Errorf("[%d]: block type %q is not supported here; send text", i, b.Type)
		}
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n"), nil
}

// anthropicMessage is the Messages API's reply object.
type anthropicMessage struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"` // "message"
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []anthropicBlock `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        anthropicUsage   `json:"usage"`
}

type anthropicUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// messageOf is a whole reply as a message: thinking, text and tool_use blocks.
func messageOf(c completion, col reply.Collected) anthropicMessage {
	msg := anthropicMessage{ID: c.id, Type: "message", Role: "assistant", Model: c.model, Content: []anthropicBlock{},
		Usage: anthropicUsage{InputTokens: col.Summary.PromptTokens, OutputTokens: col.Summary.GeneratedTokens}}
	if col.Thinking != "" {
		msg.Content = append(msg.Content, anthropicBlock{Type: "thinking", Thinking: col.Thinking, Signature: new(string)})
	}
	if col.Text != "" || len(col.ToolCalls) == 0 {
		msg.Content = append(msg.Content, anthropicBlock{Type: "text", Text: col.Text})
	}
	for _, tc := range col.ToolCalls {
		input := tc.Arguments
		if !json.Valid(input) { // cut short by max_tokens (stop_reason says so)
			input = json.RawMessage("{}")
		}
		msg.Content = append(msg.Content, anthropicBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
	}
	stop := stopReason(col.Summary)
	msg.StopReason = &stop
	return msg
}

// stopReason maps the finish reason to the Messages API's.
func stopReason(s *reply.Summary) string {
	switch s.FinishReason {
	case reply.FinishLength:
		return "max_tokens"
	case reply.FinishToolCalls:
		return "tool_use"
	}
	return "end_turn"
}

// anthropicErrorType is the Messages API's error type for a status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusMethodNotAllowed:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusServiceUnavailable:
		return "overloaded_error"
	}
	return "api_error"
}

// anthropicError is an error in the Messages API's shape.
type anthropicError struct {
	Type  string `json:"type"` // "error"
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func anthropicErrorOf(e *apiError) anthropicError {
	var out anthropicError
	out.Type = "error"
	out.Error.Type, out.Error.Message = anthropicErrorType(e.status), e.Message
	return out
}

// anthropicWriter marks a response of the Messages API: errors written to it take that API's
// shape (see writeError).
type anthropicWriter struct{ http.ResponseWriter }

// Unwrap lets http.ResponseController reach the connection (flushing streams).
func (w anthropicWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
