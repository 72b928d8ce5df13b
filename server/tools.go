package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"edgechat/inference/sample/grammar"
	"edgechat/reply"
)

// Tools in OpenAI's chat API: the request's tools, tool_choice, parallel_tool_calls and
// response_format, and the tool calls of assistant messages.

type chatTool struct {
	Type     string        `json:"type"`
	Function *toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
}

// messageToolCall is a tool call in an assistant message, as requests send it and replies
// carry it.
type messageToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// toolNamePattern is what OpenAI allows as a function name.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// checkTool checks one tool and compiles its parameters' schema when calls may use it: a
// keyword constrained decoding cannot enforce is refused here, naming it.
func checkTool(field string, t reply.Tool, compile bool) *apiError {
	if !toolNamePattern.MatchString(t.Name) {
		return badParam(field+".name", "invalid_tools", fmt.Sprintf("%s.name: %q must be 1 to 64 letters, digits, underscores or dashes", field, t.Name))
	}
	if !compile || len(t.Parameters) == 0 || string(bytes.TrimSpace(t.Parameters)) == "null" {
		return nil
	}
	if _, err := grammar.Compile(t.Parameters); err != nil {
		return badParam(field+".parameters", "invalid_tools", fmt.Sprintf("%s.parameters: %v", field, err))
	}
	return nil
}

// parseChatTools reads tools, tool_choice, parallel_tool_calls and the legacy fields into req.
func (cr *chatRequest) parseChatTools(req *reply.Request) *apiError {
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"functions", cr.Functions}, {"function_call", cr.FunctionCall}} {
		if !isNull(f.raw) {
			return badParam(f.name, "unsupported_parameter", f.name+": the legacy function fields are not supported; send tools and tool_choice instead")
		}
	}
	if !isNull(cr.Tools) {
		var tools []chatTool
		if err := json.Unmarshal(cr.Tools, &tools); err != nil {
			return badParam("tools", "invalid_tools", `tools: expected an array of {"type":"function","function":{"name":…,"parameters":…}}`)
		}
		for i, t := range tools {
			field := fmt.Sprintf("tools[%d]", i)
			if t.Type != "function" || t.Function == nil {
				return badParam(field+".type", "unsupported_parameter", fmt.Sprintf("%s: tool type %q is not supported; only \"function\" tools can be called", field, t.Type))
			}
			req.Tools = append(req.Tools, reply.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
		}
	}
	choice, aerr := parseToolChoice(cr.ToolChoice)
	if aerr != nil {
		return aerr
	}
	req.ToolChoice = choice
	if cr.ParallelToolCalls != nil && !*cr.ParallelToolCalls {
		req.OneToolCall = true
	}
	return checkToolRequest(req, "tool_choice")
}

// checkToolRequest checks the tools and the choice of a request decoded by any API: names,
// schemas (compiled when calls are possible), and a choice that names a tool.
func checkToolRequest(req *reply.Request, choiceField string) *apiError {
	seen := map[string]bool{}
	calls := req.ToolChoice.Mode != reply.ToolNone
	for i, t := range req.Tools {
		if aerr := checkTool(fmt.Sprintf("tools[%d]", i), t, calls); aerr != nil {
			return aerr
		}
		if seen[t.Name] {
			return badParam("tools", "invalid_tools", fmt.Sprintf("tools: two tools are named %q; give each its own name", t.Name))
		}
		seen[t.Name] = true
	}
	switch c := req.ToolChoice; {
	case c.Mode == reply.ToolFunction && !seen[c.Name]:
		return badParam(choiceField, "invalid_tool_choice", fmt.Sprintf("%s: %q is not among the tools", choiceField, c.Name))
	case (c.Mode == reply.ToolRequired || c.Mode == reply.ToolFunction) && len(req.Tools) == 0:
		return badParam(choiceField, "invalid_tool_choice", choiceField+": a tool call is required but no tools are given")
	}
	return nil
}

// parseToolChoice reads "none", "auto", "required" or {"type":"function","function":{"name":…}}.
func parseToolChoice(raw json.RawMessage) (reply.ToolChoice, *apiError) {
	if isNull(raw) {
		return reply.ToolChoice{}, nil
	}
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		switch mode {
		case reply.ToolAuto, reply.ToolNone, reply.ToolRequired:
			return reply.ToolChoice{Mode: mode}, nil
		}
		return reply.ToolChoice{}, badParam("tool_choice", "invalid_tool_choice", fmt.Sprintf(`tool_choice: %q is not one of "none", "auto", "required"`, mode))
	}
	var named struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &named); err != nil || named.Type != "function" || named.Function.Name == "" {
		return reply.ToolChoice{}, badParam("tool_choice", "invalid_tool_choice", `tool_choice: expected "none", "auto", "required" or {"type":"function","function":{"name":…}}`)
	}
	return reply.ToolChoice{Mode: reply.ToolFunction, Name: named.Function.Name}, nil
}

// parseResponseFormat reads response_format: text, json_object or json_schema (whose schema
// is compiled here, so that a keyword constrained decoding cannot enforce is refused by name).
func parseResponseFormat(raw json.RawMessage) (*reply.Format, *apiError) {
	if isNull(raw) {
		return nil, nil
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict *bool           `json:"strict"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return nil, badParam("response_format", "invalid_response_format", `response_format: expected {"type":"text"}, {"type":"json_object"} or {"type":"json_schema","json_schema":{…}}`)
	}
	switch rf.Type {
	case "text":
		return nil, nil
	case reply.FormatJSONObject:
		return &reply.Format{Type: reply.FormatJSONObject}, nil
	case reply.FormatJSONSchema:
		if rf.JSONSchema == nil || isNull(rf.JSONSchema.Schema) {
			return nil, badParam("response_format.json_schema.schema", "invalid_response_format", "response_format.json_schema.schema: the schema is missing")
		}
		if _, err := grammar.Compile(rf.JSONSchema.Schema); err != nil {
			return nil, badParam("response_format.json_schema.schema", "invalid_response_format", "response_format.json_schema.schema: "+err.Error())
		}
		return &reply.Format{Type: reply.FormatJSONSchema, Name: rf.JSONSchema.Name, Schema: rf.JSONSchema.Schema}, nil
	}
	return nil, badParam("response_format.type", "invalid_response_format", fmt.Sprintf(`response_format.type: %q is not one of "text", "json_object", "json_schema"`, rf.Type))
}

// toolCallsOf converts an assistant message's tool calls.
func toolCallsOf(calls []messageToolCall) ([]reply.ToolCall, error) {
	var out []reply.ToolCall
	for i, c := range calls {
		if c.Type != "" && c.Type != "function" {
			return nil, fmt.Errorf("tool_calls[%d]: type %q is not supported; only function calls", i, c.Type)
		}
		if c.Function.Name == "" {
			return nil, fmt.Errorf("tool_calls[%d].function.name is missing", i)
		}
		out = append(out, reply.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)})
	}
	return out, nil
}

// wireToolCalls writes calls as OpenAI's replies carry them (arguments as a JSON string).
func wireToolCalls(calls []reply.ToolCall) []messageToolCall {
	out := make([]messageToolCall, len(calls))
	for i, c := range calls {
		out[i].ID, out[i].Type = c.ID, "function"
		out[i].Function.Name, out[i].Function.Arguments = c.Name, string(c.Arguments)
	}
	return out
}

// badParam reports a client mistake in one field.
func badParam(param, code, msg string) *apiError {
	e := badRequest(code, msg)
	e.Param = &param
	return e
}

// toolsError answers an engine refusal of the tools or format (reply.ErrTools) as a 400.
func toolsError(err error) *apiError {
	if !errors.Is(err, reply.ErrTools) {
		return nil
	}
	return badRequest("invalid_tools", strings.TrimSpace(err.Error()))
}
