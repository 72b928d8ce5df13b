package server

import (
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
