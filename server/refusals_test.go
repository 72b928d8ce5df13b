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
