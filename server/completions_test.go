package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/reply"
)

// A completion request becomes a raw prompt with its budget, sampling and stop strings; the
// reply is one text_completion object with usage and x_edgechat.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       reply.Prompt
	}{
		{"text", `{"model":"m","prompt":"Once upon a time","max_tokens":7,"temperature":0,"top_p":0.9,"seed":3,"stop":"\n"}`, reply.Prompt{Text: "Once upon a time"}},
		{"token ids", `{"prompt":[1,403,407],"max_tokens":7,"temperature":0,"top_p":0.9,"seed":3,"stop":["\n"]}`, reply.Prompt{IDs: []int{1, 403, 407}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reqs := make(chan reply.Request, 1)
			url := start(t, newLoopback(scripted(reqs, reply.Event{Kind: reply.EventText, Text: ", there"}, reply.Event{Kind: reply.EventText, Text: " was"}, doneEvent(okSummary)), Options{ModelName: "stories"}))
			resp := post(t, url+"/v1/completions", tc.body)
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			var got struct {
				ID, Object, Model string
				Choices           []struct {
					Text         string  `json:"text"`
					Index        int     `json:"index"`
					Logprobs     any     `json:"logprobs"`
					FinishReason *string `json:"finish_reason"`
				}
				Usage     usage
				XEdgeChat *edgechatStats `json:"x_edgechat"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if got.Object != "text_completion" || got.Model != "stories" || len(got.ID) < 8 || got.ID[:5] != "cmpl-" {
				t.Errorf("object %q model %q id %q", got.Object, got.Model, got.ID)
			}
			if len(got.Choices) != 1 || got.Choices[0].Text != ", there was" || got.Choices[0].FinishReason == nil || *got.Choices[0].FinishReason != "stop" {
				t.Fatalf("choices %+v", got.Choices)
			}
			if got.Usage != (usage{PromptTokens: 5, CompletionTokens: 4, TotalTokens: 9}) || got.XEdgeChat == nil || got.XEdgeChat.Backend != "cpu" {
				t.Errorf("usage %+v, x_edgechat %+v", got.Usage, got.XEdgeChat)
			}
			req := <-reqs
			want := reply.Request{Prompt: &tc.want, MaxTokens: 7, StrictMaxTokens: true, Stop: []string{"\n"},
				Sampling: reply.Sampling{Temperature: ptr(0.0), TopP: ptr(0.9), Seed: ptr(int64(3))}}
			if diff := cmp.Diff(want, req); diff != "" {
				t.Errorf("engine request (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// A streamed completion is text_completion chunks, the last with the finish reason, then a
// usage chunk when asked for, then [DONE].
func TestCompletionStream(t *testing.T) {
	url := start(t, newLoopback(scripted(nil, reply.Event{Kind: reply.EventStatus, Text: "Loading"}, reply.Event{Kind: reply.EventText, Text: ", there"},
		reply.Event{Kind: reply.EventText, Text: " was"}, doneEvent(okSummary)), Options{}))
	resp := post(t, url+"/v1/completions", `{"prompt":"Once","stream":true,"stream_options":{"include_usage":true}}`)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	chunks := readSSE(t, resp.Body).chunks(t)
	var text string
	var finishes []any
	for i, ch := range chunks {
		if ch["object"] != "text_completion" {
			t.Errorf("chunk %d object %v", i, ch["object"])
		}
		choices := ch["choices"].([]any)
		if i == len(chunks)-1 {
			if len(choices) != 0 || ch["usage"] == nil || ch["x_edgechat"] == nil {
				t.Errorf("last chunk %v: want the usage and no choice", ch)
			}
			continue
		}
		c := choices[0].(map[string]any)
		text += c["text"].(string)
		finishes = append(finishes, c["finish_reason"])
	}
	if text != ", there was" {
		t.Errorf("text %q", text)
	}
	if diff := cmp.Diff([]any{nil, nil, "stop"}, finishes); diff != "" {
		t.Errorf("finish reasons (-want +got):\n%s", diff)
	}
}

// What the server cannot honour is a 400 naming the field; a prompt the model refuses
// outright is a 400 before any stream starts.
func TestCompletionRefusals(t *testing.T) {
	for _, tc := range []struct {
		body, code string
	}{
		{`{"prompt":"a","echo":true}`, "unsupported_parameter"},
		{`{"prompt":"a","logprobs":2}`, "unsupported_parameter"},
		{`{"prompt":"a","n":2}`, "invalid_n"},
		{`{"prompt":"a","suffix":"b"}`, "unsupported_parameter"},
		{`{"prompt":"a","best_of":3}`, "unsupported_parameter"},
		{`{"prompt":["a","b"]}`, "invalid_prompt"},
		{`{"prompt":[[1,2],[3]]}`, "invalid_prompt"},
		{`{"prompt":[1,-2]}`, "invalid_prompt"},
		{`{"prompt":[1,2.5]}`, "invalid_prompt"},
		{`{"prompt":[]}`, "invalid_prompt"},
		{`{"prompt":null}`, "invalid_prompt"},
		{`{"max_tokens":3}`, "invalid_prompt"},
		{`{"prompt":{"text":"a"}}`, "invalid_prompt"},
		{`{"prompt":"a","temperature":3}`, "invalid_temperature"},
		{`{"prompt":"a","max_tokens":-1}`, "invalid_max_tokens"},
	} {
		url := start(t, newLoopback(scripted(nil, doneEvent(okSummary)), Options{}))
		resp := post(t, url+"/v1/completions", tc.body)
		e := decodeError(t, resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || e.Code == nil || *e.Code != tc.code || e.Type != "invalid_request_error" {
			t.Errorf("%s: %d %+v; want 400 %s", tc.body, resp.StatusCode, e, tc.code)
		}
	}
	for _, tc := range []struct {
		err  error
		code string
	}{
		{reply.ContextLength(errors.New("the prompt takes 300 tokens but this model's context holds 256")), "context_length_exceeded"},
		{reply.InvalidPrompt(errors.New("token id 9999 at position 0 is not in this model's vocabulary of 512 tokens")), "invalid_prompt"},
	} {
		gen := scripted(nil, reply.Event{Kind: reply.EventStatus, Text: "Loading model…"}, doneEvent(reply.Summary{FinishReason: reply.FinishError, Err: tc.err}))
		url := start(t, newLoopback(gen, Options{}))
		resp := post(t, url+"/v1/completions", `{"prompt":[9999],"stream":true}`)
		e := decodeError(t, resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || e.Code == nil || *e.Code != tc.code {
			t.Errorf("%v: %d %+v; want 400 %s", tc.err, resp.StatusCode, e, tc.code)
		}
	}
}
