package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"edgechat/internal/testkit/enginetest"
)

func TestErrorStatuses(t *testing.T) {
	gen := scripted(nil, doneEvent(okSummary))
	big := `{"messages":[{"role":"user","content":"` + strings.Repeat("a", 2048) + `"}]}`
	msg := func(fields string) string { return `{"messages":[{"role":"user","content":"Hi"}]` + fields + `}` }
	cases := []struct {
		name, method, path, body string
		header                   []string
		opt                      Options
		status                   int
		code                     string
		in                       string // part of the message
	}{
		{"malformed JSON", "POST", "/v1/chat/completions", `{"messages":[`, nil, Options{}, 400, "invalid_json", "not valid JSON"},
		{"not an object", "POST", "/v1/chat/completions", `[1,2]`, nil, Options{}, 400, "invalid_json", "not valid JSON"},
		{"empty body", "POST", "/v1/chat/completions", ``, nil, Options{}, 400, "invalid_json", "not valid JSON"},
		{"no messages", "POST", "/v1/chat/completions", `{"messages":[]}`, nil, Options{}, 400, "invalid_messages", "at least one message"},
		{"unknown role", "POST", "/v1/chat/completions", `{"messages":[{"role":"wizard","content":"Hi"}]}`, nil, Options{}, 400, "invalid_messages", `messages[0]: role "wizard"`},
		{"missing role", "POST", "/v1/chat/completions", `{"messages":[{"content":"Hi"}]}`, nil, Options{}, 400, "invalid_messages", "role is missing"},
		{"tool without call id", "POST", "/v1/chat/completions", `{"messages":[{"role":"tool","content":"Hi"}]}`, nil, Options{}, 400, "invalid_messages", `tool_call_id is missing`},
		{"unknown role", "POST", "/v1/chat/completions", `{"messages":[{"role":"function","content":"Hi"}]}`, nil, Options{}, 400, "invalid_messages", `role "function"`},
		{"image part", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, nil, Options{}, 400, "invalid_messages", "text only"},
		{"content number", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":5}]}`, nil, Options{}, 400, "invalid_messages", "content"},
		{"temperature high", "POST", "/v1/chat/completions", msg(`,"temperature":2.5`), nil, Options{}, 400, "invalid_temperature", "from 0 to 2"},
		{"temperature negative", "POST", "/v1/chat/completions", msg(`,"temperature":-1`), nil, Options{}, 400, "invalid_temperature", "out of range"},
		{"temperature string", "POST", "/v1/chat/completions", msg(`,"temperature":"hot"`), nil, Options{}, 400, "invalid_type", "temperature: expected a number"},
		{"top_p", "POST", "/v1/chat/completions", msg(`,"top_p":1.5`), nil, Options{}, 400, "invalid_top_p", "top_p"},
		{"negative max_tokens", "POST", "/v1/chat/completions", msg(`,"max_tokens":-5`), nil, Options{}, 400, "invalid_max_tokens", "negative"},
		{"fractional max_tokens", "POST", "/v1/chat/completions", msg(`,"max_tokens":1.5`), nil, Options{}, 400, "invalid_type", "max_tokens"},
		{"stop object", "POST", "/v1/chat/completions", msg(`,"stop":{"a":1}`), nil, Options{}, 400, "invalid_stop", "stop"},
		{"custom tool", "POST", "/v1/chat/completions", msg(`,"tools":[{"type":"custom","custom":{"name":"f"}}]`), nil, Options{}, 400, "unsupported_parameter", `tools[0]: tool type "custom"`},
		{"tool name", "POST", "/v1/chat/completions", msg(`,"tools":[{"type":"function","function":{"name":"a b"}}]`), nil, Options{}, 400, "invalid_tools", `tools[0].name`},
		{"tool schema", "POST", "/v1/chat/completions", msg(`,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"string","pattern":"x"}}}}}]`), nil, Options{}, 400, "invalid_tools", `"pattern"`},
		{"tool_choice", "POST", "/v1/chat/completions", msg(`,"tool_choice":"required"`), nil, Options{}, 400, "invalid_tool_choice", "tool_choice"},
		{"tool_choice unknown", "POST", "/v1/chat/completions", msg(`,"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"g"}}`), nil, Options{}, 400, "invalid_tool_choice", `"g" is not among the tools`},
		{"response_format", "POST", "/v1/chat/completions", msg(`,"response_format":{"type":"yaml"}`), nil, Options{}, 400, "invalid_response_format", `"yaml"`},
		{"json_schema keyword", "POST", "/v1/chat/completions", msg(`,"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"integer","multipleOf":3}}}`), nil, Options{}, 400, "invalid_response_format", `"multipleOf"`},
		{"functions", "POST", "/v1/chat/completions", msg(`,"functions":[{"name":"f"}]`), nil, Options{}, 400, "unsupported_parameter", "functions"},
		{"n=2", "POST", "/v1/chat/completions", msg(`,"n":2`), nil, Options{}, 400, "invalid_n", "n=1"},
		{"no key", "POST", "/v1/chat/completions", msg(""), nil, Options{APIKey: "k1"}, 401, "invalid_api_key", "Bearer"},
		{"wrong key", "POST", "/v1/chat/completions", msg(""), []string{"Authorization", "Bearer nope"}, Options{APIKey: "k1"}, 401, "invalid_api_key", "API key"},
		{"models without key", "GET", "/v1/models", "", nil, Options{APIKey: "k1"}, 401, "invalid_api_key", "API key"},
		{"unknown path", "GET", "/v1/images/generations", "", nil, Options{}, 404, "unknown_url", "/v1/images/generations"},
		{"root", "GET", "/", "", nil, Options{}, 404, "unknown_url", "unknown path"},
		{"GET chat", "GET", "/v1/chat/completions", "", nil, Options{}, 405, "method_not_allowed", "use POST"},
		{"POST models", "POST", "/v1/models", "{}", nil, Options{}, 405, "method_not_allowed", "use GET"},
		{"OPTIONS without CORS", "OPTIONS", "/v1/chat/completions", "", nil, Options{}, 405, "method_not_allowed", "OPTIONS"},
		{"body too large", "POST", "/v1/chat/completions", big, nil, Options{MaxBodyBytes: 1024}, 413, "request_too_large", "1 KiB"},
		{"foreign origin", "POST", "/v1/chat/completions", msg(""), []string{"Origin", "https://evil.example"}, Options{}, 403, "origin_not_allowed", "evil.example"},
		{"rebinding host", "GET", "/v1/models", "", []string{"Host", "evil.example:8080"}, Options{}, 403, "host_not_allowed", "loopback"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := start(t, newLoopback(gen, c.opt))
			req, err := http.NewRequest(c.method, url+c.path, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i+1 < len(c.header); i += 2 {
				if c.header[i] == "Host" {
					req.Host = c.header[i+1]
				}
				req.Header.Set(c.header[i], c.header[i+1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			e := decodeError(t, resp)
			if resp.StatusCode != c.status || e.Code == nil || *e.Code != c.code || !strings.Contains(e.Message, c.in) {
				code := "<nil>"
				if e.Code != nil {
					code = *e.Code
				}
				t.Fatalf("got %d %s %q; want %d %s containing %q", resp.StatusCode, code, e.Message, c.status, c.code, c.in)
			}
			switch c.status {
			case 401:
				if resp.Header.Get("WWW-Authenticate") == "" {
					t.Error("401 without WWW-Authenticate")
				}
			case 405:
				if resp.Header.Get("Allow") == "" {
					t.Error("405 without Allow")
				}
			}
			if resp.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Error("CORS header sent with CORS off")
			}
		})
	}
}

// The 404 names every endpoint the server has.
func TestNotFoundListsEveryEndpoint(t *testing.T) {
	srv := newLoopback(scripted(nil, doneEvent(okSummary)), Options{})
	url := start(t, srv)
	resp, err := http.Get(url + "/v2/nothing")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	e := decodeError(t, resp)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d, want 404", resp.StatusCode)
	}
	if len(srv.routes) < 7 {
		t.Fatalf("only %d routes", len(srv.routes))
	}
	for path, methods := range srv.routes {
		for m := range methods {
			if !strings.Contains(e.Message, m+" "+path) {
				t.Errorf("404 message %q does not name %s %s", e.Message, m, path)
			}
		}
	}
}

func TestAPIKeyAccepted(t *testing.T) {
	url := start(t, newLoopback(scripted(nil, doneEvent(okSummary)), Options{APIKey: "k1"}))
	resp := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}]}`, "Authorization", "Bearer k1")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d with the right key", resp.StatusCode)
	}
	// /health needs no key: monitors and the settings pane probe it.
	h, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	h.Body.Close()
	if h.StatusCode != http.StatusOK {
		t.Fatalf("health status %d", h.StatusCode)
	}
}

func TestModels(t *testing.T) {
	url := start(t, newLoopback(nil, Options{ModelName: "qwen3-0.6b"}))
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Object string `json:"object"`
		Data   []struct{ ID, Object string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Object != "list" || len(got.Data) != 1 || got.Data[0].ID != "qwen3-0.6b" || got.Data[0].Object != "model" {
		t.Fatalf("models %+v", got)
	}
}

func TestCORS(t *testing.T) {
	url := start(t, newLoopback(scripted(nil, doneEvent(okSummary)), Options{AllowedOrigins: []string{"http://localhost:3000"}, APIKey: "k"}))
	pre, _ := http.NewRequest(http.MethodOptions, url+"/v1/chat/completions", nil)
	pre.Header.Set("Origin", "http://localhost:3000")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
	resp, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp = post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}]}`, "Origin", "http://localhost:3000", "Authorization", "Bearer k")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Fatalf("POST: %d %v", resp.StatusCode, resp.Header)
	}
	resp = post(t, url+"/v1/chat/completions", `{}`, "Origin", "http://other:3000")
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("other origin: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestDisconnectCancels(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(map[bool]string{true: "stream", false: "non-stream"}[stream], func(t *testing.T) {
			started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
			url := start(t, newLoopback(blocking(started, nil, cancelled), Options{}))
			ctx, cancel := context.WithCancel(context.Background())
			body := `{"messages":[{"role":"user","content":"Hi"}],"stream":` + map[bool]string{true: "true", false: "false"}[stream] + `}`
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
			errc := make(chan error, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					_, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				errc <- err
			}()
			<-started
			cancel()
			select {
			case <-cancelled:
			case <-time.After(5 * time.Second):
				t.Fatal("the generation was not cancelled when the client went away")
			}
			<-errc
		})
	}
}

func TestQueueFull(t *testing.T) {
	started, release := make(chan struct{}, 3), make(chan struct{})
	url := start(t, newLoopback(blocking(started, release, nil), Options{QueueSize: 1}))
	body := `{"messages":[{"role":"user","content":"Hi"}]}`
	type result struct {
		status     int
		retryAfter string
	}
	results := make(chan result, 3)
	send := func() {
		resp := post(t, url+"/v1/chat/completions", body)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		results <- result{resp.StatusCode, resp.Header.Get("Retry-After")}
	}
	go send()
	<-started // the first request holds the engine
	go send()
	go send()
	busy := <-results // of the other two, one waits and one is turned away
	if busy.status != http.StatusTooManyRequests || busy.retryAfter == "" {
		t.Fatalf("third request: %+v, want 429 with Retry-After", busy)
	}
	close(release)
	for range 2 {
		if r := <-results; r.status != http.StatusOK {
			t.Fatalf("queued request: %+v", r)
		}
	}
}

func TestShutdown(t *testing.T) {
	started, release := make(chan struct{}, 2), make(chan struct{})
	s := newLoopback(blocking(started, release, nil), Options{QueueSize: 1})
	url := start(t, s)
	statuses := make(chan int, 2)
	send := func() {
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"Hi"}]}`))
		if err != nil {
			statuses <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		statuses <- resp.StatusCode
	}
	go send()
	<-started
	go send()
	time.Sleep(100 * time.Millisecond) // let the second request join the queue
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(context.Background()) }()
	if st := <-statuses; st != http.StatusServiceUnavailable {
		t.Fatalf("waiting request got %d, want 503", st)
	}
	close(release)
	if st := <-statuses; st != http.StatusOK {
		t.Fatalf("running request got %d, want 200", st)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Through the handler (the listener is closed): new requests get 503.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"messages":[{"role":"user","content":"Hi"}]}`))
	req.Host = "127.0.0.1"
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("after shutdown: %d", rec.Code)
	}
}

func TestShutdownDeadlineCancels(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	s := newLoopback(blocking(started, nil, cancelled), Options{})
	url := start(t, s)
	go func() {
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(hiBody))
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the generation outlived the shutdown deadline")
	}
}

var _ Generator = enginetest.Func(nil)
