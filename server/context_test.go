package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// On the real engine, a max_tokens over the model's context (2^53 once panicked the server
// in makeslice) and a prompt over it are 400 context_length_exceeded, in both forms, and the
// server answers normally afterwards.
func TestEngineContextLength(t *testing.T) {
	url := serveEngine(t, tinyEngine(t, 1))
	long := strings.Repeat("sea and sky ", 3000)
	cases := []struct{ name, body string }{
		{"max_tokens 2^53", `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":9007199254740992}`},
		{"max_tokens 2^31-1 streaming", `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":2147483647,"stream":true}`},
		{"max_completion_tokens 2^28", `{"messages":[{"role":"user","content":"Hi"}],"max_completion_tokens":268435456}`},
		{"prompt over the context", `{"messages":[{"role":"user","content":"` + long + `"}],"max_tokens":8}`},
		{"prompt over the context, streaming", `{"messages":[{"role":"user","content":"` + long + `"}],"max_tokens":8,"stream":true}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := http.Post(url, "application/json", strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			var e struct {
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
					Code    string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(b, &e); err != nil || resp.StatusCode != http.StatusBadRequest || e.Error.Code != "context_length_exceeded" || e.Error.Type != "invalid_request_error" {
				t.Fatalf("got %d %s; want 400 context_length_exceeded", resp.StatusCode, b)
			}
			t.Logf("%s", e.Error.Message)
		})
	}
	if _, last := streamTokens(t, url, greedyBody(8)); last.Usage.CompletionTokens == 0 {
		t.Error("no reply after the refusals")
	}
}
