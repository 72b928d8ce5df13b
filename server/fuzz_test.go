package server

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"testing"
)

// FuzzDecodeChatRequest checks that no body panics the decoder and that every refusal is a
// 400 in OpenAI's shape: a user's mistake is never a 500.
func FuzzDecodeChatRequest(f *testing.F) {
	seeds := []string{
		hiBody, `{"messages":[`, `[1,2]`, ``, `{"messages":[]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"}]}]}`,
		`{"messages":[{"role":"user","content":"Hi"}],"stop":["a",""],"temperature":2,"max_tokens":-1}`,
		`{"messages":[{"role":"assistant","content":null,"reasoning_content":"x"}],"chat_template_kwargs":{"enable_thinking":false}}`,
		`{"messages":[{"role":"user","content":"Hi"}],"logit_bias":{"1":-100,"01":5},"frequency_penalty":1,"logprobs":false,"x":1}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, req, err := decodeChatRequest(body)
		if err != nil {
			if err.status != http.StatusBadRequest || err.Message == "" || err.Type != "invalid_request_error" {
				t.Fatalf("refusal %+v for %q", err, body)
			}
			return
		}
		if len(req.Messages) == 0 || req.MaxTokens < 0 {
			t.Fatalf("accepted %q as %+v", body, req)
		}
	})
}

// FuzzJSONWireError checks the rewrite of net/http's own error responses: whatever bytes are
// written, either they pass untouched or they become one whole 4xx response whose body is
// OpenAI-shaped JSON.
func FuzzJSONWireError(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 431 Request Header Fields Too Large" + plainErrorHeaders + "431 Request Header Fields Too Large",
		"HTTP/1.1 400 Bad Request: missing required Host header" + plainErrorHeaders + "400 Bad Request: missing required Host header",
		"HTTP/1.1 501 Not Implemented" + plainErrorHeaders + "Unsupported transfer encoding",
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}",
		"HTTP/1.1 99x" + plainErrorHeaders,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, ok := jsonWireError(b)
		if !ok {
			return
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(out)), nil)
		if err != nil {
			t.Fatalf("rewrote %q into an unreadable response %q: %v", b, out, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode < 400 || resp.StatusCode > 499 || checkErrorBody(body) != nil {
			t.Fatalf("rewrote %q into %d %q", b, resp.StatusCode, body)
		}
	})
}

// FuzzParsePrompt checks that no prompt value panics the parser, that a refusal is a 400, and
// that an accepted prompt is text or non-negative ids.
func FuzzParsePrompt(f *testing.F) {
	for _, s := range []string{`"Once upon a time"`, `[1,403,407]`, `["a","b"]`, `[[1],[2]]`, `[1,-1]`, `[1.5]`, `null`, ``, `[]`, `{}`, `[1e3]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := parsePrompt(raw)
		if err != nil {
			if err.status != http.StatusBadRequest || err.Message == "" {
				t.Fatalf("refusal %+v for %q", err, raw)
			}
			return
		}
		if p.Text != "" && len(p.IDs) > 0 {
			t.Fatalf("%q gave both text and ids", raw)
		}
		for _, id := range p.IDs {
			if id < 0 {
				t.Fatalf("%q gave id %d", raw, id)
			}
		}
	})
}
