package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"edgechat/reply"
)

// A request the model refuses outright (over its context) gets 400 context_length_exceeded
// before any byte of a stream, even after status events ("Loading model…").
func TestContextLengthBeforeStreaming(t *testing.T) {
	over := reply.Summary{FinishReason: reply.FinishError, Err: reply.ContextLength(errors.New("the prompt takes 900 tokens but the context holds 512"))}
	gen := scripted(nil, reply.Event{Kind: reply.EventStatus, Text: "Loading model…"}, doneEvent(over))
	url := start(t, newLoopback(gen, Options{}))
	for _, body := range []string{hiBody, `{"messages":[{"role":"user","content":"Hi"}]}`} {
		resp := post(t, url+"/v1/chat/completions", body)
		e := decodeError(t, resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || e.Code == nil || *e.Code != "context_length_exceeded" || e.Message != over.Err.Error() {
			t.Errorf("%s: got %d %+v; want 400 context_length_exceeded %q", body, resp.StatusCode, e, over.Err)
		}
	}
}

// The answers net/http writes by itself, before any handler, are OpenAI-shaped JSON too.
func TestWireErrorsAreJSON(t *testing.T) {
	url := start(t, newLoopback(scripted(nil, doneEvent(okSummary)), Options{}))
	addr := strings.TrimPrefix(url, "http://")
	cases := []struct {
		name, request string
		status        int
		code          string
	}{
		{"headers too large", "GET /health HTTP/1.1\r\nHost: " + addr + "\r\nX-Big: " + strings.Repeat("a", maxHeaderBytes+8192) + "\r\n\r\n", 431, "request_headers_too_large"},
		{"malformed request line", "GARBAGE\r\n\r\n", 400, "malformed_request"},
		{"missing host", "GET /health HTTP/1.1\r\n\r\n", 400, "malformed_request"},
		{"bad header line", "GET /health HTTP/1.1\r\nHost: " + addr + "\r\nno colon here\r\n\r\n", 400, "malformed_request"},
		{"unknown expectation", "POST /v1/chat/completions HTTP/1.1\r\nHost: " + addr + "\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}", 417, "expectation_failed"},
		{"unknown transfer encoding", "POST /v1/chat/completions HTTP/1.1\r\nHost: " + addr + "\r\nTransfer-Encoding: gzip\r\n\r\n", 400, "unsupported_transfer_encoding"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			go io.WriteString(conn, c.request) // the server may answer before reading it all
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			e := decodeError(t, resp)
			if resp.StatusCode != c.status || e.Code == nil || *e.Code != c.code {
				t.Errorf("got %d %+v; want %d %s", resp.StatusCode, e, c.status, c.code)
			}
		})
	}
}

// Every parameter the server accepts is honoured or refused with a 400 naming it: unknown
// ones, unhonoured ones at a value that asks for something, and values out of range.
func TestParameterRefusals(t *testing.T) {
	url := start(t, newLoopback(scripted(nil, doneEvent(okSummary)), Options{}))
	const chat, completions = "/v1/chat/completions", "/v1/completions"
	msgs := `"messages":[{"role":"user","content":"Hi"}]`
	cases := []struct {
		path, body, code, names string
	}{
		{chat, `{` + msgs + `,"frobnicate":1}`, "unknown_parameter", `"frobnicate"`},
		{chat, `{` + msgs + `,"zeta":1,"alpha":null}`, "unknown_parameter", `"alpha", "zeta"`},
		{chat, `{` + msgs + `,"best_of":2}`, "unknown_parameter", `"best_of"`},
		{chat, `{` + msgs + `,"ignore_eos":true}`, "unknown_parameter", `"ignore_eos"`},
		{chat, `{` + msgs + `,"logprobs":true}`, "unsupported_parameter", "logprobs:"},
		{chat, `{` + msgs + `,"top_logprobs":3}`, "unsupported_parameter", "top_logprobs:"},
		{chat, `{` + msgs + `,"modalities":["text","audio"]}`, "unsupported_parameter", "modalities:"},
		{chat, `{` + msgs + `,"audio":{"voice":"alloy"}}`, "unsupported_parameter", "audio:"},
		{chat, `{` + msgs + `,"reasoning_effort":"low"}`, "unsupported_parameter", "reasoning_effort:"},
		{chat, `{` + msgs + `,"verbosity":"low"}`, "unsupported_parameter", "verbosity:"},
		{chat, `{` + msgs + `,"web_search_options":{}}`, "unsupported_parameter", "web_search_options:"},
		{chat, `{` + msgs + `,"LogProbs":true}`, "unsupported_parameter", "LogProbs:"},
		{chat, `{` + msgs + `,"frequency_penalty":2.5}`, "invalid_frequency_penalty", "frequency_penalty:"},
		{chat, `{` + msgs + `,"logit_bias":{"abc":1}}`, "invalid_logit_bias", "logit_bias:"},
		{chat, `{` + msgs + `,"logit_bias":{"-1":1}}`, "invalid_logit_bias", "logit_bias:"},
		{chat, `{` + msgs + `,"logit_bias":{"007":1}}`, "invalid_logit_bias", "logit_bias:"},
		{chat, `{` + msgs + `,"logit_bias":{"99999999999999999999":1}}`, "invalid_logit_bias", "logit_bias:"},
		{chat, `{` + msgs + `,"logit_bias":{"5":101}}`, "invalid_logit_bias", "logit_bias:"},
		{chat, `{` + msgs + `,"logit_bias":{"5":-100.5}}`, "invalid_logit_bias", "logit_bias:"},
		{chat, `{` + msgs + `,"logit_bias":{"5":"ban"}}`, "invalid_type", "logit_bias"},
		{chat, `{` + msgs + `,"logit_bias":[5]}`, "invalid_type", "logit_bias"},
		{completions, `{"prompt":"a","best_of":2}`, "unsupported_parameter", "best_of:"},
		{completions, `{"prompt":"a","echo":true}`, "unsupported_parameter", "echo:"},
		{completions, `{"prompt":"a","frobnicate":true}`, "unknown_parameter", `"frobnicate"`},
		{completions, `{"prompt":"a","logprobs":0}`, "unsupported_parameter", "logprobs:"},
		{completions, `{"prompt":"a","logit_bias":{"x":1}}`, "invalid_logit_bias", "logit_bias:"},
	}
	for _, c := range cases {
		resp := post(t, url+c.path, c.body)
		e := decodeError(t, resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || e.Code == nil || *e.Code != c.code || !strings.Contains(e.Message, c.names) {
			t.Errorf("%s %s: %d %+v; want 400 %s naming %s", c.path, c.body, resp.StatusCode, e, c.code, c.names)
		}
	}
	// The values that ask for nothing are accepted.
	for _, c := range []struct{ path, body string }{
		{chat, `{` + msgs + `,"logprobs":false,"top_logprobs":0,"modalities":["text"],"audio":null,"reasoning_effort":null,"user":"u","store":false,"metadata":{},"service_tier":"auto","parallel_tool_calls":true,"prediction":{"type":"content","content":"x"},"logit_bias":{},"frequency_penalty":0}`},
		{completions, `{"prompt":"a","echo":false,"best_of":1,"suffix":"","logprobs":null,"user":"u","logit_bias":{"1":-100}}`},
	} {
		resp := post(t, url+c.path, c.body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s %s: %d %s; want 200", c.path, c.body, resp.StatusCode, b)
		}
	}
}

// A parameter the model refuses (a logit_bias id outside its vocabulary) is a 400 naming it,
// before any stream starts.
func TestModelRefusesParameter(t *testing.T) {
	refusal := reply.InvalidParameter("logit_bias", errors.New("token id 9999 is not in this model's vocabulary of 512 tokens (0 to 511)"))
	gen := scripted(nil, reply.Event{Kind: reply.EventStatus, Text: "Loading model…"}, doneEvent(reply.Summary{FinishReason: reply.FinishError, Err: refusal}))
	url := start(t, newLoopback(gen, Options{}))
	for path, body := range map[string]string{
		"/v1/chat/completions": `{"messages":[{"role":"user","content":"Hi"}],"stream":true,"logit_bias":{"9999":1}}`,
		"/v1/completions":      `{"prompt":"a","stream":true,"logit_bias":{"9999":1}}`,
	} {
		resp := post(t, url+path, body)
		e := decodeError(t, resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || e.Code == nil || *e.Code != "invalid_logit_bias" || e.Message != refusal.Error() {
			t.Errorf("%s: %d %+v; want 400 invalid_logit_bias %q", path, resp.StatusCode, e, refusal)
		}
	}
}
