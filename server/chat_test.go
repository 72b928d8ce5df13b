package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"edgechat/reply"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/enginetest"
)

var okSummary = reply.Summary{
	FinishReason: reply.FinishStop, PromptTokens: 5, GeneratedTokens: 4, ReusedTokens: 2,
	TTFT: 12500 * time.Microsecond, PrefillTPS: 400, DecodeTPS: 80, Backend: "cpu", Device: "CPU", FallbackReason: "npu: no QNN",
	RouteReason: "prompt over the NPU prefill limit",
}

// reply streams a short reasoning and answer, with a status and a notice.
func replyEvents(sum reply.Summary) []reply.Event {
	return []reply.Event{
		{Kind: reply.EventStatus, Text: "Loading model…"},
		{Kind: reply.EventThinking, Text: "Let me"},
		{Kind: reply.EventThinking, Text: " think"},
		{Kind: reply.EventNotice, Text: "Context trimmed"},
		{Kind: reply.EventText, Text: "Hello"},
		{Kind: reply.EventText, Text: " <world>"},
		doneEvent(sum),
	}
}

const hiBody = `{"model":"any","messages":[{"role":"user","content":"Hi"}],"stream":true,"stream_options":{"include_usage":true}}`

func TestStreamRoundTrip(t *testing.T) {
	reqs := make(chan reply.Request, 1)
	url := start(t, newLoopback(scripted(reqs, replyEvents(okSummary)...), Options{ModelName: "qwen3-test"}))
	resp := post(t, url+"/v1/chat/completions", hiBody)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sse := readSSE(t, resp.Body)
	chunks := sse.chunks(t)

	wantReq := reply.Request{Messages: []reply.Message{{Role: "user", Content: "Hi"}}, Thinking: true}
	if diff := cmp.Diff(wantReq, <-reqs); diff != "" {
		t.Errorf("engine request (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Loading model…", "Context trimmed"}, sse.comments); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
	var content, reasoning strings.Builder
	var finishes []any
	for i, c := range chunks {
		if c["object"] != "chat.completion.chunk" || c["model"] != "qwen3-test" || !strings.HasPrefix(c["id"].(string), "chatcmpl-") {
			t.Errorf("chunk %d header: %v", i, c)
		}
		if c["id"] != chunks[0]["id"] {
			t.Errorf("chunk %d id %v, first %v", i, c["id"], chunks[0]["id"])
		}
		for _, ch := range c["choices"].([]any) {
			choice := ch.(map[string]any)
			d := choice["delta"].(map[string]any)
			if s, ok := d["content"].(string); ok {
				content.WriteString(s)
			}
			if s, ok := d["reasoning_content"].(string); ok {
				reasoning.WriteString(s)
			}
			if f := choice["finish_reason"]; f != nil {
				finishes = append(finishes, f)
			}
		}
	}
	if role := chunks[0]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)["role"]; role != "assistant" {
		t.Errorf("first chunk role %v", role)
	}
	if content.String() != "Hello <world>" || reasoning.String() != "Let me think" {
		t.Errorf("content %q, reasoning %q", content.String(), reasoning.String())
	}
	if diff := cmp.Diff([]any{"stop"}, finishes); diff != "" {
		t.Errorf("finish reasons (-want +got):\n%s", diff)
	}
	last := chunks[len(chunks)-1]
	if diff := cmp.Diff(map[string]any{"prompt_tokens": 5.0, "completion_tokens": 4.0, "total_tokens": 9.0}, last["usage"]); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if n := len(last["choices"].([]any)); n != 0 {
		t.Errorf("usage chunk has %d choices, want 0", n)
	}
	wantStats := map[string]any{
		"backend": "cpu", "device": "CPU", "fallback_reason": "npu: no QNN", "route_reason": "prompt over the NPU prefill limit", "ttft_ms": 12.5,
		"prefill_tokens_per_s": 400.0, "decode_tokens_per_s": 80.0, "reused_tokens": 2.0, "notices": []any{"Context trimmed"},
	}
	if diff := cmp.Diff(wantStats, last["x_edgechat"]); diff != "" {
		t.Errorf("x_edgechat (-want +got):\n%s", diff)
	}
	for _, c := range chunks[:len(chunks)-1] {
		if c["x_edgechat"] != nil || c["usage"] != nil {
			t.Errorf("x_edgechat or usage before the last chunk: %v", c)
		}
	}
}

func TestStreamWithoutUsage(t *testing.T) {
	url := start(t, newLoopback(scripted(nil, replyEvents(okSummary)...), Options{}))
	resp := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}],"stream":true}`)
	defer resp.Body.Close()
	chunks := readSSE(t, resp.Body).chunks(t)
	last := chunks[len(chunks)-1]
	if f := last["choices"].([]any)[0].(map[string]any)["finish_reason"]; f != "stop" {
		t.Errorf("last chunk finish_reason %v", f)
	}
	if last["x_edgechat"] == nil {
		t.Error("last chunk lacks x_edgechat")
	}
	for _, c := range chunks {
		if c["usage"] != nil {
			t.Errorf("usage sent without stream_options.include_usage: %v", c)
		}
	}
}

func TestNonStreaming(t *testing.T) {
	sum := okSummary
	sum.FinishReason = reply.FinishLength
	url := start(t, newLoopback(scripted(nil, replyEvents(sum)...), Options{ModelName: "m"}))
	resp := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}]}`)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var got map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	delete(got, "id")
	delete(got, "created")
	want := map[string]any{
		"object": "chat.completion", "model": "m",
		"choices": []any{map[string]any{"index": 0.0, "finish_reason": "length", "message": map[string]any{
			"role": "assistant", "content": "Hello <world>", "reasoning_content": "Let me think",
		}}},
		"usage": map[string]any{"prompt_tokens": 5.0, "completion_tokens": 4.0, "total_tokens": 9.0},
		"x_edgechat": map[string]any{
			"backend": "cpu", "device": "CPU", "fallback_reason": "npu: no QNN", "route_reason": "prompt over the NPU prefill limit", "ttft_ms": 12.5,
			"prefill_tokens_per_s": 400.0, "decode_tokens_per_s": 80.0, "reused_tokens": 2.0, "notices": []any{"Context trimmed"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("completion (-want +got):\n%s", diff)
	}
}

func TestRequestMapping(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	seed := int64(7)
	user := []reply.Message{{Role: "user", Content: "Hi"}}
	cases := []struct {
		name, body string
		want       reply.Request
	}{
		{"defaults", `{"messages":[{"role":"user","content":"Hi"}]}`,
			reply.Request{Messages: user, Thinking: true}},
		{"sampling", `{"messages":[{"role":"user","content":"Hi"}],"temperature":0,"top_p":0.9,"seed":7,"top_k":20,"min_p":0.05,"presence_penalty":1.5,"repetition_penalty":1.1}`,
			reply.Request{Messages: user, Thinking: true, Sampling: reply.Sampling{Temperature: f(0), TopP: f(0.9), Seed: &seed, TopK: i(20), MinP: f(0.05), PresencePenalty: f(1.5), RepetitionPenalty: f(1.1)}}},
		{"max_tokens", `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":100}`,
			reply.Request{Messages: user, Thinking: true, MaxTokens: 100, StrictMaxTokens: true}},
		{"max_completion_tokens wins", `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":100,"max_completion_tokens":50}`,
			reply.Request{Messages: user, Thinking: true, MaxTokens: 50, StrictMaxTokens: true}},
		{"stop string", `{"messages":[{"role":"user","content":"Hi"}],"stop":"END"}`,
			reply.Request{Messages: user, Thinking: true, Stop: []string{"END"}}},
		{"stop array", `{"messages":[{"role":"user","content":"Hi"}],"stop":["a","","b"]}`,
			reply.Request{Messages: user, Thinking: true, Stop: []string{"a", "b"}}},
		{"stop null", `{"messages":[{"role":"user","content":"Hi"}],"stop":null}`,
			reply.Request{Messages: user, Thinking: true}},
		{"thinking off", `{"messages":[{"role":"user","content":"Hi"}],"chat_template_kwargs":{"enable_thinking":false}}`,
			reply.Request{Messages: user}},
		{"bookkeeping ignored", `{"messages":[{"role":"user","content":"Hi","name":"bob"}],"tools":[],"tool_choice":"none","user":"u","n":1,"store":false,"metadata":{"a":"b"},"logprobs":false,"modalities":["text"],"model":"x"}`,
			reply.Request{Messages: user, Thinking: true, ToolChoice: reply.ToolChoice{Mode: reply.ToolNone}}},
		{"frequency penalty and logit bias", `{"messages":[{"role":"user","content":"Hi"}],"frequency_penalty":1,"logit_bias":{"0":-100,"42":100,"7":0.5}}`,
			reply.Request{Messages: user, Thinking: true, Sampling: reply.Sampling{FrequencyPenalty: f(1), LogitBias: map[int]float64{0: -100, 42: 100, 7: 0.5}}}},
		{"names in any case, as encoding/json reads them", `{"Messages":[{"role":"user","content":"Hi"}],"MAX_TOKENS":5}`,
			reply.Request{Messages: user, Thinking: true, MaxTokens: 5, StrictMaxTokens: true}},
		{"tools", `{"messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":true}}],"tool_choice":{"type":"function","function":{"name":"get_weather"}},"parallel_tool_calls":false}`,
			reply.Request{Messages: user, Thinking: true, Tools: []reply.Tool{{Name: "get_weather", Description: "Weather.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}},
				ToolChoice: reply.ToolChoice{Mode: reply.ToolFunction, Name: "get_weather"}, OneToolCall: true}},
		{"response formats", `{"messages":[{"role":"user","content":"Hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"p","strict":true,"schema":{"type":"object"}}}}`,
			reply.Request{Messages: user, Thinking: true, Format: &reply.Format{Type: reply.FormatJSONSchema, Name: "p", Schema: json.RawMessage(`{"type":"object"}`)}}},
		{"tool call history", `{"messages":[{"role":"user","content":"Hi"},
			{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},
			{"role":"tool","tool_call_id":"call_1","content":"42"}]}`,
			reply.Request{Thinking: true, Messages: []reply.Message{{Role: "user", Content: "Hi"},
				{Role: "assistant", ToolCalls: []reply.ToolCall{{ID: "call_1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}}},
				{Role: "tool", ToolCallID: "call_1", Content: "42"}}}},
		{"content parts and roles", `{"messages":[
			{"role":"developer","content":"Be brief."},
			{"role":"user","content":[{"type":"text","text":"line 1"},{"type":"text","text":"line 2"}]},
			{"role":"assistant","content":null,"reasoning_content":"hmm"},
			{"role":"user","content":"again"}]}`,
			reply.Request{Thinking: true, Messages: []reply.Message{
				{Role: "system", Content: "Be brief."}, {Role: "user", Content: "line 1\nline 2"},
				{Role: "assistant", Thinking: "hmm"}, {Role: "user", Content: "again"},
			}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, got, err := decodeChatRequest([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEngineErrors(t *testing.T) {
	failing := reply.Summary{FinishReason: reply.FinishError, Err: errors.New("decoder exploded")}
	midStream := []reply.Event{{Kind: reply.EventText, Text: "Hel"}, doneEvent(failing)}

	t.Run("streaming", func(t *testing.T) {
		url := start(t, newLoopback(scripted(nil, midStream...), Options{}))
		resp := post(t, url+"/v1/chat/completions", hiBody)
		defer resp.Body.Close()
		chunks := readSSE(t, resp.Body).chunks(t)
		last := chunks[len(chunks)-1]
		e, _ := last["error"].(map[string]any)
		if e == nil || !strings.Contains(e["message"].(string), "decoder exploded") || e["type"] != "server_error" {
			t.Fatalf("last event before [DONE] is not an error: %v", last)
		}
	})
	t.Run("non-streaming", func(t *testing.T) {
		url := start(t, newLoopback(scripted(nil, midStream...), Options{}))
		resp := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}]}`)
		defer resp.Body.Close()
		e := decodeError(t, resp)
		if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(e.Message, "decoder exploded") {
			t.Fatalf("status %d, error %+v", resp.StatusCode, e)
		}
	})
	t.Run("no summary", func(t *testing.T) {
		url := start(t, newLoopback(scripted(nil, reply.Event{Kind: reply.EventText, Text: "x"}), Options{}))
		resp := post(t, url+"/v1/chat/completions", hiBody)
		defer resp.Body.Close()
		chunks := readSSE(t, resp.Body).chunks(t)
		if chunks[len(chunks)-1]["error"] == nil {
			t.Fatalf("no error event: %v", chunks)
		}
	})
	t.Run("generate refuses", func(t *testing.T) {
		gen := enginetest.Func(func(context.Context, reply.Request) (<-chan reply.Event, error) {
			return nil, errors.New("the engine is closed")
		})
		url := start(t, newLoopback(gen, Options{}))
		resp := post(t, url+"/v1/chat/completions", hiBody)
		defer resp.Body.Close()
		if e := decodeError(t, resp); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(e.Message, "engine is closed") {
			t.Fatalf("status %d, error %+v", resp.StatusCode, e)
		}
	})
}

type wireError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// decodeError reads an OpenAI-shaped error body, failing on any other shape.
func decodeError(t testing.TB, resp *http.Response) wireError {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	var body map[string]json.RawMessage
	if err := json.Unmarshal(b, &body); err != nil || len(body) != 1 || body["error"] == nil {
		t.Fatalf("error body is not {\"error\":{…}}: %s", b)
	}
	var e wireError
	dec := json.NewDecoder(strings.NewReader(string(body["error"])))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Message == "" || e.Type == "" {
		t.Fatalf("error object lacks message/type or has more: %s (%v)", body["error"], err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("error content type %q", ct)
	}
	return e
}
