package reply

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Tool is a function the model may call: what an OpenAI "function" tool, an Anthropic tool
// and an MCP tool all are. Parameters is the JSON schema of the arguments object, kept as
// written (key order matters to chat templates, which print it).
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolCall is one call the model made: an ID the tool's result answers, the function's name
// and its arguments, a JSON object as text.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Tool choices (ToolChoice.Mode).
const (
	// ToolAuto lets the model answer or call tools (the default when tools are given).
	ToolAuto = "auto"
	// ToolNone offers the tools to the template but never lets the model call one.
	ToolNone = "none"
	// ToolRequired makes the reply one or more tool calls.
	ToolRequired = "required"
	// ToolFunction makes the reply a call of the function ToolChoice.Name.
	ToolFunction = "function"
)

// ToolChoice says whether and which tools the model must call.
type ToolChoice struct {
	Mode string `json:"mode,omitempty"` // "" = ToolAuto
	Name string `json:"name,omitempty"` // with ToolFunction
}

// Formats of the reply's text (Format.Type).
const (
	// FormatJSONObject makes the reply one JSON object.
	FormatJSONObject = "json_object"
	// FormatJSONSchema makes the reply one JSON value valid against Format.Schema.
	FormatJSONSchema = "json_schema"
)

// Format asks for the reply's text in a structure, which the engine enforces token by token
// (constrained decoding): the reply parses and validates whatever the model would have said.
type Format struct {
	Type   string          `json:"type"`
	Name   string          `json:"name,omitempty"`
	Schema json.RawMessage `json:"schema,omitempty"`
}

// ToolCallPart is one piece of a tool call as it forms, the payload of EventToolCall: the first
// piece of a call carries its Index (0, 1, … within the reply), ID and Name; the later ones
// the same Index and the next fragment of Arguments. Joined, the fragments of a call are its
// arguments, a JSON object.
type ToolCallPart struct {
	Index     int    `json:"index"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// FinishToolCalls ends a reply that called tools: the caller runs them and sends their
// results back as "tool" messages for the next reply.
const FinishToolCalls = "tool_calls"

// ToolCalls assembles the calls of a stream from its parts, in order of Index.
type ToolCalls struct {
	calls []ToolCall
	args  []bytes.Buffer
}

// Add takes the next part; parts of an index not yet started are refused.
func (t *ToolCalls) Add(p ToolCallPart) error {
	switch {
	case p.Index == len(t.calls):
		t.calls = append(t.calls, ToolCall{ID: p.ID, Name: p.Name})
		t.args = append(t.args, bytes.Buffer{})
	case p.Index < 0 || p.Index > len(t.calls):
		return fmt.Errorf("tool call part %d arrived before call %d began", p.Index, len(t.calls))
	}
	t.args[p.Index].WriteString(p.Arguments)
	return nil
}

// Calls returns the calls assembled so far.
func (t *ToolCalls) Calls() []ToolCall {
	out := make([]ToolCall, len(t.calls))
	for i, c := range t.calls {
		c.Arguments = json.RawMessage(bytes.Clone(t.args[i].Bytes()))
		out[i] = c
	}
	return out
}

// ErrTools marks a request whose tools, tool choice or format cannot be served as asked (a
// schema keyword constrained decoding cannot enforce, a tool choice naming no tool): the
// local server answers 400 naming the field.
var ErrTools = errors.New("the request's tools or format cannot be served")

// ToolsError returns an error that reads as explain and is ErrTools for errors.Is.
func ToolsError(explain error) error { return &markedError{explain, ErrTools} }
