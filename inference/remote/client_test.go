package remote_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"edgechat/reply"

	"github.com/google/go-cmp/cmp"

	"edgechat/inference/remote"
	"edgechat/internal/testkit/enginetest"
	"edgechat/server"
)

// scripted is the engine behind our own server: it sends events in order.
var scripted = enginetest.Scripted

// got is what one Generate call produced.
type got struct {
	thinking, text string
	kinds          []reply.EventKind
	sum            *reply.Summary
}

func collect(t *testing.T, c *remote.Client, ctx context.Context, req reply.Request) got {
	t.Helper()
	events, err := c.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var g got
	for ev := range events {
		g.kinds = append(g.kinds, ev.Kind)
		switch ev.Kind {
		case reply.EventThinking:
			g.thinking += ev.Text
		case reply.EventText:
			g.text += ev.Text
		case reply.EventDone:
			if g.sum != nil {
				t.Fatal("two EventDone")
			}
			g.sum = ev.Done
		}
	}
	if g.sum == nil || g.kinds[len(g.kinds)-1] != reply.EventDone {
		t.Fatalf("stream did not end with EventDone: %v", g.kinds)
	}
	return g
}

var hi = reply.Request{Messages: []reply.Message{{Role: "user", Content: "Hi"}}, Thinking: true}

func host(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func TestAgainstOwnServer(t *testing.T) {
	reqs := make(chan reply.Request, 1)
	gen := scripted(reqs,
		reply.Event{Kind: reply.EventStatus, Text: "Loading model…"},
		reply.Event{Kind: reply.EventThinking, Text: "Let me "},
		reply.Event{Kind: reply.EventThinking, Text: "think"},
		reply.Event{Kind: reply.EventText, Text: "Hello"},
		reply.Event{Kind: reply.EventText, Text: " there"},
		reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishLength, PromptTokens: 9, GeneratedTokens: 4}},
	)
	ts := httptest.NewServer(server.New(gen, server.Options{APIKey: "sekret", ModelName: "qwen3"}).Handler())
	defer ts.Close()

	temp, seed := 0.6, int64(3)
	req := reply.Request{
		Messages:  []reply.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}},
		MaxTokens: 32, Stop: []string{"END"},
		Sampling: reply.Sampling{Temperature: &temp, Seed: &seed, FrequencyPenalty: &temp, LogitBias: map[int]float64{7: -100, 1234: 2.5}},
	}
	g := collect(t, remote.New(remote.Config{BaseURL: ts.URL, APIKey: "sekret"}), context.Background(), req)

	want := req
	want.StrictMaxTokens = true // the server holds a client's max_tokens to the context, as OpenAI does
	if diff := cmp.Diff(want, <-reqs); diff != "" {
		t.Errorf("request the server's engine got (-want +got):\n%s", diff)
	}
	if g.thinking != "Let me think" || g.text != "Hello there" {
		t.Errorf("thinking %q, text %q", g.thinking, g.text)
	}
	s := g.sum
	if s.FinishReason != reply.FinishLength || s.Err != nil || s.Backend != "remote" || s.Device != host(t, ts.URL) ||
		s.PromptTokens != 9 || s.GeneratedTokens != 4 || s.TTFTMillis() <= 0 {
		t.Errorf("summary %+v", s)
	}
}

// sseServer answers every chat request with the given raw event stream.
func sseServer(t *testing.T, events ...string) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

func contentChunk(field, text string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{field: text}}}})
	return "data: " + string(b) + "\n\n"
}

const finishStop = `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"

func TestInlineThink(t *testing.T) {
	ts := sseServer(t,
		contentChunk("content", "<thi"), contentChunk("content", "nk>\nweighing"),
		contentChunk("content", " options\n</think>\n\nAns"), contentChunk("content", "wer"),
		finishStop, "data: [DONE]\n\n")
	g := collect(t, remote.New(remote.Config{BaseURL: ts.URL + "/v1", Model: "m"}), context.Background(), hi)
	if g.thinking != "weighing options" || g.text != "Answer" {
		t.Errorf("thinking %q, text %q", g.thinking, g.text)
	}
	if g.sum.FinishReason != reply.FinishStop || g.sum.GeneratedTokens != 4 {
		t.Errorf("summary %+v", g.sum)
	}
}

func TestReasoningField(t *testing.T) {
	ts := sseServer(t, ": keep-alive\n\n", contentChunk("reasoning", "hmm"), contentChunk("content", "ok"), finishStop)
	g := collect(t, remote.New(remote.Config{BaseURL: ts.URL + "/v1", Model: "m"}), context.Background(), hi)
	if g.thinking != "hmm" || g.text != "ok" || g.sum.FinishReason != reply.FinishStop {
		t.Errorf("thinking %q, text %q, summary %+v", g.thinking, g.text, g.sum)
	}
}

func TestNonStreamingServer(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"Hi!","reasoning_content":"greet"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`)
	}))
	defer ts.Close()
	g := collect(t, remote.New(remote.Config{BaseURL: ts.URL + "/v1", Model: "m"}), context.Background(), hi)
	if g.thinking != "greet" || g.text != "Hi!" || g.sum.GeneratedTokens != 2 || g.sum.PromptTokens != 3 {
		t.Errorf("thinking %q, text %q, summary %+v", g.thinking, g.text, g.sum)
	}
}

func TestModelDiscoveryAndBody(t *testing.T) {
	var body map[string]any
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"object":"list","data":[{"id":"qwen3:0.6b"},{"id":"other"}]}`)
		case "/v1/chat/completions":
			json.NewDecoder(r.Body).Decode(&body)
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, contentChunk("content", "x")+finishStop+"data: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	req := reply.Request{Messages: hi.Messages, Thinking: false}
	collect(t, remote.New(remote.Config{BaseURL: ts.URL}), context.Background(), req)
	want := map[string]any{
		"model": "qwen3:0.6b", "stream": true, "stream_options": map[string]any{"include_usage": true},
		"messages":             []any{map[string]any{"role": "user", "content": "Hi"}},
		"chat_template_kwargs": map[string]any{"enable_thinking": false},
	}
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

func TestErrors(t *testing.T) {
	status := func(code int, body string) string {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			io.WriteString(w, body)
		}))
		t.Cleanup(ts.Close)
		return ts.URL + "/v1"
	}
	closed := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr + "/v1"
	}
	cases := []struct {
		name, url   string
		unavailable bool
		in          []string // parts of the message
		text        string   // reply text that got through before the error
	}{
		{"connection refused", closed(), true, []string{"refused the connection", "is the server running"}, ""},
		{"401", status(401, `{"error":{"message":"Invalid API key","type":"invalid_request_error"}}`), true, []string{"refused the API key", "Settings → Remote", "Invalid API key"}, ""},
		{"404", status(404, `404 page not found`), true, []string{"no chat endpoint or no model \"m\"", "page not found"}, ""},
		{"500", status(500, `{"object":"error","message":"CUDA out of memory","code":500}`), true, []string{"failed (CUDA out of memory)"}, ""},
		{"502 html", status(502, `<html>bad gateway</html>`), true, []string{"failed (502 Bad Gateway)"}, ""},
		{"garbage", sseServer(t, "data: {this is not json\n\n").URL + "/v1", true, []string{"not OpenAI-compatible JSON"}, ""},
		{"stream error before output", sseServer(t, `data: {"error":{"message":"model is loading"}}`+"\n\n").URL + "/v1", true, []string{"reported an error: model is loading"}, ""},
		{"llama.cpp error line", sseServer(t, `error: {"code":500,"message":"context full","type":"server_error"}`+"\n\n").URL + "/v1", true, []string{"reported an error: context full"}, ""},
		{"no API at the address", status(404, `not found`), true, []string{"no chat endpoint"}, ""},
		{"cut off before output", sseServer(t, ": hello\n\n").URL + "/v1", true, []string{"closed the connection mid-reply"}, ""},
		{"cut off mid-reply", sseServer(t, contentChunk("content", "Hel")).URL + "/v1", false, []string{"closed the connection mid-reply"}, "Hel"},
		{"context length exceeded", status(400, `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`), true, []string{"cannot fit this conversation", "8192 tokens", "start a new chat"}, ""},
		{"error mid-reply", sseServer(t, contentChunk("content", "Hel"), `data: {"error":{"message":"boom"}}`+"\n\n").URL + "/v1", false, []string{"boom"}, "Hel"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := collect(t, remote.New(remote.Config{BaseURL: c.url, Model: "m"}), context.Background(), hi)
			s := g.sum
			if s.FinishReason != reply.FinishError || s.Err == nil || s.Backend != "remote" {
				t.Fatalf("summary %+v", s)
			}
			for _, part := range c.in {
				if !strings.Contains(s.ErrorText(), part) {
					t.Errorf("error %q lacks %q", s.ErrorText(), part)
				}
			}
			if !strings.Contains(s.ErrorText(), strings.TrimSuffix(c.url, "")) {
				t.Errorf("error %q does not name the server %s", s.ErrorText(), c.url)
			}
			if got := remote.IsUnavailable(s.Err); got != c.unavailable {
				t.Errorf("IsUnavailable = %v, want %v", got, c.unavailable)
			}
			if g.text != c.text {
				t.Errorf("text %q, want %q", g.text, c.text)
			}
			if got, want := errors.Is(s.Err, reply.ErrContextLength), c.name == "context length exceeded"; got != want {
				t.Errorf("errors.Is(ErrContextLength) = %v, want %v", got, want)
			}
		})
	}
}

func TestNoModelListed(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	g := collect(t, remote.New(remote.Config{BaseURL: ts.URL}), context.Background(), hi)
	if !remote.IsUnavailable(g.sum.Err) || !strings.Contains(g.sum.ErrorText(), "no OpenAI-compatible API there") {
		t.Fatalf("summary %+v", g.sum)
	}
}

func TestBadURL(t *testing.T) {
	for _, u := range []string{"localhost:8080", "ftp://x", "http://"} {
		_, err := remote.New(remote.Config{BaseURL: u}).Generate(context.Background(), hi)
		if err == nil || !remote.IsUnavailable(err) || !strings.Contains(err.Error(), "Settings → Remote") {
			t.Errorf("%q: %v", u, err)
		}
	}
}

func TestCancel(t *testing.T) {
	started := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, contentChunk("content", "a"))
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
	}))
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	events, err := remote.New(remote.Config{BaseURL: ts.URL, Model: "m"}).Generate(ctx, hi)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	cancel()
	var last reply.Event
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				if last.Kind != reply.EventDone || last.Done.FinishReason != reply.FinishCancelled || last.Done.Err != nil {
					t.Fatalf("last event %+v %+v", last, last.Done)
				}
				return
			}
			last = ev
		case <-timeout:
			t.Fatal("the stream did not end after cancel")
		}
	}
}

// Tools, tool results and response formats are refused before anything is sent: a remote
// reply that silently ignored them would be wrong.
func TestToolsRefused(t *testing.T) {
	c := remote.New(remote.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	for _, req := range []reply.Request{
		{Messages: []reply.Message{{Role: "user", Content: "hi"}}, Tools: []reply.Tool{{Name: "f"}}},
		{Messages: []reply.Message{{Role: "user", Content: "hi"}}, Format: &reply.Format{Type: reply.FormatJSONObject}},
		{Messages: []reply.Message{{Role: "tool", ToolCallID: "c", Content: "42"}}},
	} {
		if _, err := c.Generate(context.Background(), req); !errors.Is(err, reply.ErrTools) {
			t.Errorf("%+v: err %v, want ErrTools", req, err)
		}
	}
}
