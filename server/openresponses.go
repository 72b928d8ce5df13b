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

// OpenAI's Responses API (POST /v1/responses): input as text or items (messages,
// function_call, function_call_output), instructions, function tools, tool_choice,
// text.format for structured output, and its streamed events. Nothing is stored: a request
// that refers to an earlier response (previous_response_id) is refused.

// handleResponses serves POST /v1/responses.
func (s *Server) handleResponses(w http.ResponseWriter, r *http.Request) {
	s.serveReply(w, r, "response", func(body []byte) (*generation, *apiError) {
		var rr responsesRequest
		req, aerr := decodeRequest(body, &rr, responsesPolicy)
		if aerr != nil {
			return nil, aerr
		}
		return &generation{req: req, stream: rr.Stream, idPrefix: "resp_", answer: func(ctx context.Context, w http.ResponseWriter, events <-chan reply.Event, c completion) *reply.Summary {
			if rr.Stream {
				return s.streamResponse(ctx, w, events, c, &rr)
			}
			return s.complete(ctx, w, events, func(col reply.Collected, _ string) any {
				resp := rr.object(c, "completed")
				resp.finish(col.Summary)
				resp.Output = outputItems(c.id, col)
				return resp
			})
		}}, nil
	})
}

// responsesPolicy: nothing is stored (store is bookkeeping), and the Responses API's
// parameters this server cannot honour are accepted only at the value that asks for nothing.
var responsesPolicy = newFieldPolicy(responsesRequest{}, map[string]noopRule{
	"include":        {nullOr("[]"), "this server returns no extra output data; leave include out"},
	"truncation":     {nullOr(`"disabled"`, `"auto"`), `truncation: "disabled" or "auto" (the oldest turns are dropped to fit either way)`},
	"stream_options": {func(json.RawMessage) bool { return true }, ""},
	"background":     {nullOr("false"), "this server answers while the request waits, not in the background; leave background out"},
	"conversation":   {isNull, "this server stores no conversations; send the whole conversation as input"},
	"prompt":         {isNull, "this server has no stored prompts; send instructions and input"},
	"top_logprobs":   {nullOr("0"), "this server does not return log probabilities; leave top_logprobs out"},
	"max_tool_calls": {isNull, "leave max_tool_calls out; parallel_tool_calls: false allows one call"},
})

type responsesRequest struct {
	Model             string          `json:"model"`
	Input             json.RawMessage `json:"input"`
	Instructions      string          `json:"instructions"`
	Tools             []responsesTool `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls"`
	MaxOutputTokens   *int            `json:"max_output_tokens"`
	Temperature       *float64        `json:"temperature"`
	TopP              *float64        `json:"top_p"`
	Stream            bool            `json:"stream"`
	Text              *responsesText  `json:"text"`
	Reasoning         *struct {
		Effort  string `json:"effort"`
		Summary string `json:"summary"`
	} `json:"reasoning"`
	PreviousResponseID string `json:"previous_response_id"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
}

type responsesText struct {
	Format json.RawMessage `json:"format"`
}

// inputItem is one item of input: a message (with or without type), a function call or a
// function call's output, or reasoning given back.
type inputItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	ID        string          `json:"id"`
	Status    string          `json:"status"`
	Summary   json.RawMessage `json:"summary"`
}

func (rr *responsesRequest) toInference() (reply.Request, *apiError) {
	req := reply.Request{Thinking: rr.Reasoning == nil || (rr.Reasoning.Effort != "none" && rr.Reasoning.Effort != "minimal")}
	if rr.PreviousResponseID != "" {
		return req, badParam("previous_response_id", "unsupported_parameter", "previous_response_id: this server stores no responses; send the whole conversation as input")
	}
	if rr.Instructions != "" {
		req.Messages = append(req.Messages, reply.Message{Role: "system", Content: rr.Instructions})
	}
	msgs, aerr := inputMessages(rr.Input)
	if aerr != nil {
		return req, aerr
	}
	req.Messages = append(req.Messages, msgs...)
	sp := sampling{Temperature: rr.Temperature, TopP: rr.TopP}
	if err := sp.apply(&req, rr.MaxOutputTokens); err != nil {
		return req, err
	}
	for i, t := range rr.Tools {
		if t.Type != "function" {
			return req, badParam(fmt.Sprintf("tools[%d].type", i), "unsupported_parameter", fmt.Sprintf("tools[%d]: tool type %q is not supported; only \"function\" tools can be called", i, t.Type))
		}
		req.Tools = append(req.Tools, reply.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	choice, aerr := parseResponsesChoice(rr.ToolChoice)
	if aerr != nil {
		return req, aerr
	}
	req.ToolChoice = choice
	req.OneToolCall = rr.ParallelToolCalls != nil && !*rr.ParallelToolCalls
	if rr.Text != nil && !isNull(rr.Text.Format) {
		// text.format is response_format with the json_schema fields one level up.
		var f map[string]json.RawMessage
		if err := json.Unmarshal(rr.Text.Format, &f); err != nil {
			return req, badParam("text.format", "invalid_response_format", `text.format: expected {"type":"text"|"json_object"|"json_schema",…}`)
		}
		wrapped, _ := json.Marshal(map[string]any{"type": f["type"], "json_schema": f})
		format, aerr := parseResponseFormat(wrapped)
		if aerr != nil {
			aerr.Message = strings.Replace(strings.Replace(aerr.Message, "response_format.json_schema", "text.format", 1), "response_format", "text.format", 1)
			return req, aerr
		}
		req.Format = format
	}
	return req, checkToolRequest(&req, "tool_choice")
}

// parseResponsesChoice reads "none", "auto", "required" or {"type":"function","name":…}.
func parseResponsesChoice(raw json.RawMessage) (reply.ToolChoice, *apiError) {
	var named struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if !isNull(raw) && bytes.TrimSpace(raw)[0] == '{' {
		if err := json.Unmarshal(raw, &named); err != nil || named.Type != "function" || named.Name == "" {
			return reply.ToolChoice{}, badParam("tool_choice", "invalid_tool_choice", `tool_choice: expected "none", "auto", "required" or {"type":"function","name":…}`)
		}
		return reply.ToolChoice{Mode: reply.ToolFunction, Name: named.Name}, nil
	}
	return parseToolChoice(raw)
}

// inputMessages converts input: a string (one user message) or items.
func inputMessages(raw json.RawMessage) ([]reply.Message, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, jsonError(err)
		}
		return []reply.Message{{Role: "user", Content: s}}, nil
	}
	var items []inputItem
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return nil, badParam("input", "invalid_input", "input: expected a string or a non-empty array of input items")
	}
	var out []reply.Message
	thinking := ""
	for i, it := range items {
		bad := func(err error) *apiError {
			return badParam(fmt.Sprintf("input[%d]", i), "invalid_input", fmt.Sprintf("input[%d]: %v", i, err))
		}
		switch it.Type {
		case "", "message":
			msg, err := it.message()
			if err != nil {
				return nil, bad(err)
			}
			if msg.Role == "assistant" {
				msg.Thinking, thinking = thinking, ""
				if n := len(out); n > 0 && out[n-1].Role == "assistant" && out[n-1].Content == "" && len(out[n-1].ToolCalls) == 0 {
					out = out[:n-1]
				}
			}
			out = append(out, msg)
		case "function_call":
			if it.CallID == "" || it.Name == "" {
				return nil, bad(errors.New("a function_call needs its call_id and name"))
			}
			call := reply.ToolCall{ID: it.CallID, Name: it.Name, Arguments: json.RawMessage(it.Arguments)}
			if n := len(out); n > 0 && out[n-1].Role == "assistant" {
				out[n-1].ToolCalls = append(out[n-1].ToolCalls, call)
			} else {
				out = append(out, reply.Message{Role: "assistant", Thinking: thinking, ToolCalls: []reply.ToolCall{call}})
				thinking = ""
			}
		case "function_call_output":
			if it.CallID == "" {
				return nil, bad(errors.New("a function_call_output needs the call_id it answers"))
			}
			text, err := outputText(it.Output)
			if err != nil {
				return nil, bad(err)
			}
			out = append(out, reply.Message{Role: "tool", ToolCallID: it.CallID, Content: text})
		case "reasoning":
			thinking += reasoningText(it)
		default:
			return nil, bad(fmt.Errorf("item type %q is not supported; send messages, function_call and function_call_output items", it.Type))
		}
	}
	return out, nil
}

// message converts a message item; its content is a string or text parts.
func (it inputItem) message() (reply.Message, error) {
	role := it.Role
	switch role {
	case "user", "assistant", "system":
	case "developer":
		role = "system"
	default:
		return reply.Message{}, fmt.Errorf(`role %q is not supported; use "user", "assistant", "system" or "developer"`, it.Role)
	}
	raw := bytes.TrimSpace(it.Content)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return reply.Message{Role: role, Content: s}, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return reply.Message{}, errors.New("content: expected a string or an array of input_text parts")
	}
	var texts []string
	for i, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			texts = append(texts, p.Text)
		default:
			return reply.Message{}, fmt.Errorf("content[%d]: part type %q is not supported; this model reads text only", i, p.Type)
		}
	}
	return reply.Message{Role: role, Content: strings.Join(texts, "\n")}, nil
}

// outputText is a function_call_output's output: a string, or text parts.
func outputText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	it := inputItem{Role: "user", Content: raw}
	m, err := it.message()
	return m.Content, err
}

// reasoningText is the text of a reasoning item given back: its content, else its summary.
func reasoningText(it inputItem) string {
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(it.Content, &parts) != nil || len(parts) == 0 {
		json.Unmarshal(it.Summary, &parts)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// responseObject is the Responses API's response.
type responseObject struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"` // "response"
	CreatedAt         int64           `json:"created_at"`
	Status            string          `json:"status"`
	Model             string          `json:"model"`
	Output            []any           `json:"output"`
	Error             *respError      `json:"error"`
	IncompleteDetails *incomplete     `json:"incomplete_details"`
	Instructions      *string         `json:"instructions"`
	MaxOutputTokens   *int            `json:"max_output_tokens"`
	ParallelToolCalls bool            `json:"parallel_tool_calls"`
	Temperature       *float64        `json:"temperature"`
	TopP              *float64        `json:"top_p"`
	ToolChoice        any             `json:"tool_choice"`
	Tools             []responsesTool `json:"tools"`
	Text              map[string]any  `json:"text"`
	Usage             *respUsage      `json:"usage"`
	Metadata          map[string]any  `json:"metadata"`
	XEdgeChat         *edgechatStats  `json:"x_edgechat,omitempty"`
}

type respError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type incomplete struct {
	Reason string `json:"reason"`
}

type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	TotalTokens        int `json:"total_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// object is the response for c, echoing the request's settings.
func (rr *responsesRequest) object(c completion, status string) *responseObject {
	r := &responseObject{ID: c.id, Object: "response", CreatedAt: c.created, Status: status, Model: c.model, Output: []any{},
		MaxOutputTokens: rr.MaxOutputTokens, ParallelToolCalls: rr.ParallelToolCalls == nil || *rr.ParallelToolCalls,
		Temperature: rr.Temperature, TopP: rr.TopP, ToolChoice: "auto", Tools: rr.Tools, Metadata: map[string]any{},
		Text: map[string]any{"format": map[string]string{"type": "text"}}}
	if r.Tools == nil {
		r.Tools = []responsesTool{}
	}
	if rr.Instructions != "" {
		r.Instructions = &rr.Instructions
	}
	if !isNull(rr.ToolChoice) {
		r.ToolChoice = rr.ToolChoice
	}
	if rr.Text != nil && !isNull(rr.Text.Format) {
		r.Text["format"] = rr.Text.Format
	}
	return r
}

// finish sets the status, usage and stats from the summary.
func (r *responseObject) finish(sum *reply.Summary) {
	r.Status = "completed"
	if sum.FinishReason == reply.FinishLength {
		r.Status, r.IncompleteDetails = "incomplete", &incomplete{Reason: "max_output_tokens"}
	}
	u := &respUsage{InputTokens: sum.PromptTokens, OutputTokens: sum.GeneratedTokens, TotalTokens: sum.PromptTokens + sum.GeneratedTokens}
	u.InputTokensDetails.CachedTokens = sum.ReusedTokens
	r.Usage = u
	r.XEdgeChat = statsOf(sum, nil)
}

// Output items.

type reasoningItem struct {
	Type    string     `json:"type"` // "reasoning"
	ID      string     `json:"id"`
	Summary []textPart `json:"summary"`
	Content []textPart `json:"content"`
}

type messageItem struct {
	Type    string     `json:"type"` // "message"
	ID      string     `json:"id"`
	Status  string     `json:"status"`
	Role    string     `json:"role"`
	Content []textPart `json:"content"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
	// Annotations is set (to an empty list) on output_text parts.
	Annotations *[]any `json:"annotations,omitempty"`
}

// outputTextPart is a message's text part.
func outputTextPart(text string) textPart {
	return textPart{Type: "output_text", Text: text, Annotations: &[]any{}}
}

type functionCallItem struct {
	Type      string `json:"type"` // "function_call"
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Status    string `json:"status"`
}

// itemID derives an item's id from the response's.
func itemID(prefix, respID string, i int) string {
	return fmt.Sprintf("%s_%s_%d", prefix, strings.TrimPrefix(respID, "resp_"), i)
}

// outputItems is a whole reply as output items: reasoning, the message, the calls.
func outputItems(respID string, col reply.Collected) []any {
	var out []any
	if col.Thinking != "" {
		out = append(out, reasoningItem{Type: "reasoning", ID: itemID("rs", respID, len(out)), Summary: []textPart{}, Content: []textPart{{Type: "reasoning_text", Text: col.Thinking}}})
	}
	if col.Text != "" || len(col.ToolCalls) == 0 {
		out = append(out, messageItem{Type: "message", ID: itemID("msg", respID, len(out)), Status: "completed", Role: "assistant",
			Content: []textPart{outputTextPart(col.Text)}})
	}
	for _, tc := range col.ToolCalls {
		out = append(out, functionCallItem{Type: "function_call", ID: itemID("fc", respID, len(out)), CallID: tc.ID, Name: tc.Name, Arguments: string(tc.Arguments), Status: "completed"})
	}
	return out
}
