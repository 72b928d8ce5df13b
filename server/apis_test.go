package server

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/reply"
)

// callEvents is a reply that says a word, then calls a tool, its arguments in two pieces.
func callEvents() []reply.Event {
	parts := []reply.ToolCallPart{{Index: 0, ID: "call_1", Name: "get_weather"}, {Index: 0, Arguments: `{"city": `}, {Index: 0, Arguments: `"Bern"}`}}
	evs := []reply.Event{{Kind: reply.EventText, Text: "Checking."}}
	for i := range parts {
		evs = append(evs, reply.Event{Kind: reply.EventToolCall, Tool: &parts[i]})
	}
	return append(evs, doneEvent(reply.Summary{FinishReason: reply.FinishToolCalls, PromptTokens: 5, GeneratedTokens: 9}))
}

const weatherSchema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`

// Each API streams a tool call as its reference does: chat deltas with the call's index, id and
// name first; Anthropic's tool_use block with input_json deltas; the Responses API's
// function_call item with argument deltas; and each ends saying tools were called.
func TestToolCallStreams(t *testing.T) {
	url := start(t, newLoopback(scripted(nil, callEvents()...), Options{}))
	tools := `"tools":[{"type":"function","function":{"name":"get_weather","parameters":` + weatherSchema + `}}]`
	t.Run("chat", func(t *testing.T) {
		resp := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"Bern?"}],"stream":true,`+tools+`}`)
		chunks := readSSE(t, resp.Body).chunks(t)
		var calls []any
		finish := ""
		for _, ch := range chunks {
			c := ch["choices"].([]any)[0].(map[string]any)
			if tc, ok := c["delta"].(map[string]any)["tool_calls"]; ok {
				calls = append(calls, tc.([]any)...)
			}
			if f, ok := c["finish_reason"].(string); ok {
				finish = f
			}
		}
		want := []any{
			map[string]any{"index": 0.0, "id": "call_1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": ""}},
			map[string]any{"index": 0.0, "function": map[string]any{"arguments": `{"city": `}},
			map[string]any{"index": 0.0, "function": map[string]any{"arguments": `"Bern"}`}},
		}
		if diff := cmp.Diff(want, calls); diff != "" || finish != "tool_calls" {
			t.Errorf("finish %q; tool call deltas (-want +got):\n%s", finish, diff)
		}
	})
	t.Run("anthropic", func(t *testing.T) {
		resp := post(t, url+"/v1/messages", `{"max_tokens":20,"stream":true,"messages":[{"role":"user","content":"Bern?"}],"tools":[{"name":"get_weather","input_schema":`+weatherSchema+`}]}`)
		s := readSSE(t, resp.Body)
		want := []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop",
			"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
		if diff := cmp.Diff(want, s.names); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		for _, d := range []string{`"tool_use"`, `"input_json_delta"`, `"partial_json":"\"Bern\"}"`, `"stop_reason":"tool_use"`} {
			if !strings.Contains(strings.Join(s.data, "\n"), d) {
				t.Errorf("stream lacks %s", d)
			}
		}
	})
	t.Run("responses", func(t *testing.T) {
		resp := post(t, url+"/v1/responses", `{"input":"Bern?","stream":true,"tools":[{"type":"function","name":"get_weather","parameters":`+weatherSchema+`}]}`)
		s := readSSE(t, resp.Body)
		for _, name := range []string{"response.created", "response.output_text.delta", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.completed"} {
			if !slices.Contains(s.names, name) {
				t.Errorf("no %s event in %v", name, s.names)
			}
		}
		var last struct {
			Response responseObject `json:"response"`
		}
		json.Unmarshal([]byte(s.data[len(s.data)-1]), &last)
		if out := last.Response.Output; len(out) != 2 || !strings.Contains(mustJSON(out[1]), `"arguments":"{\"city\": \"Bern\"}"`) {
			t.Errorf("final output %s", mustJSON(last.Response.Output))
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Anthropic's and the Responses API's requests map onto the engine's: system, tool_use and
// tool_result blocks (results become tool messages), tool_choice, function_call items.
func TestOtherAPIsRequestMapping(t *testing.T) {
	var mr messagesRequest
	if aerr := decodeChecked([]byte(`{"max_tokens":9,"system":[{"type":"text","text":"Be brief."}],"messages":[
		{"role":"user","content":"Bern?"},
		{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"tu1","name":"get_weather","input":{"city":"Bern"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu1","content":[{"type":"text","text":"21 °C"}]},{"type":"text","text":"Thanks"}]}],
		"tools":[{"name":"get_weather","input_schema":`+weatherSchema+`}],"tool_choice":{"type":"any","disable_parallel_tool_use":true},"metadata":{"user_id":"u"}}`), &mr, messagesPolicy); aerr != nil {
		t.Fatal(aerr)
	}
	got, aerr := mr.toInference()
	if aerr != nil {
		t.Fatal(aerr)
	}
	want := []reply.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Bern?"},
		{Role: "assistant", Content: "Let me look.", ToolCalls: []reply.ToolCall{{ID: "tu1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Bern"}`)}}},
		{Role: "tool", ToolCallID: "tu1", Content: "21 °C"}, {Role: "user", Content: "Thanks"}}
	if diff := cmp.Diff(want, got.Messages); diff != "" || got.ToolChoice.Mode != reply.ToolRequired || !got.OneToolCall || got.MaxTokens != 9 {
		t.Errorf("messages (-want +got):\n%s\nchoice %+v one %v", diff, got.ToolChoice, got.OneToolCall)
	}

	var rr responsesRequest
	if aerr := decodeChecked([]byte(`{"instructions":"Be brief.","input":[{"role":"user","content":[{"type":"input_text","text":"Bern?"}]},
		{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{\"city\":\"Bern\"}"},
		{"type":"function_call_output","call_id":"c1","output":"21 °C"}],"store":false,
		"text":{"format":{"type":"json_schema","name":"w","schema":`+weatherSchema+`}}}`), &rr, responsesPolicy); aerr != nil {
		t.Fatal(aerr)
	}
	rg, aerr := rr.toInference()
	if aerr != nil {
		t.Fatal(aerr)
	}
	wantR := []reply.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Bern?"},
		{Role: "assistant", ToolCalls: []reply.ToolCall{{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Bern"}`)}}},
		{Role: "tool", ToolCallID: "c1", Content: "21 °C"}}
	if diff := cmp.Diff(wantR, rg.Messages); diff != "" || rg.Format == nil || rg.Format.Type != reply.FormatJSONSchema {
		t.Errorf("responses input (-want +got):\n%s\nformat %+v", diff, rg.Format)
	}
}

// Fields an API has but this server cannot honour are refused, naming them, in that API's
// error shape; so are its errors before any reply.
func TestOtherAPIsRefuse(t *testing.T) {
	url := start(t, newLoopback(scripted(nil, doneEvent(reply.Summary{FinishReason: reply.FinishStop})), Options{APIKey: "k"}))
	for _, tc := range []struct {
		path, body, key string
		status          int
		want            string
	}{
		{"/v1/messages", `{"max_tokens":5,"messages":[{"role":"user","content":"x"}],"mcp_servers":[{"type":"url","url":"http://127.0.0.1:1","name":"x"}]}`, "k", 400, `"type":"error","error":{"type":"invalid_request_error","message":"mcp_servers: this server does not connect to MCP servers`},
		{"/v1/messages", `{"messages":[{"role":"user","content":"x"}]}`, "k", 400, `max_tokens: required`},
		{"/v1/messages", `{"max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}`, "k", 400, `block type \"image\"`},
		{"/v1/messages", `{"max_tokens":5,"messages":[{"role":"user","content":"x"}]}`, "wrong", 401, `"type":"authentication_error"`},
		{"/v1/responses", `{"input":"x","previous_response_id":"resp_1"}`, "k", 400, `previous_response_id: this server stores no responses`},
		{"/v1/responses", `{"input":"x","tools":[{"type":"web_search"}]}`, "k", 400, `tool type \"web_search\"`},
		{"/v1/responses", `{"input":"x","background":true}`, "k", 400, `background: this server answers while the request waits`},
		{"/v1/responses", `{"input":"x","modalities":["text"]}`, "k", 400, `unknown parameter \"modalities\"`},
		{"/v1/embeddings", `{"input":"x"}`, "k", 404, `"code":"model_not_found"`},
	} {
		resp := post(t, url+tc.path, tc.body, "X-Api-Key", tc.key)
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(raw)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s %s: %d %s, want %d with %s", tc.path, tc.body, resp.StatusCode, body, tc.status, tc.want)
		}
	}
}
