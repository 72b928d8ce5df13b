package server

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"edgechat/reply"
)

// A refusal that follows a notice (the ChatML stand-in of a folder without a template, a
// route's fallback) is still a 400 before any status line, streaming or not.
func TestRefusalAfterNoticeIs400(t *testing.T) {
	refusal := doneEvent(reply.Summary{FinishReason: reply.FinishError, Err: reply.ContextLength(io.ErrShortBuffer)})
	gen := scripted(nil,
		reply.Event{Kind: reply.EventStatus, Text: "Loading model…"},
		reply.Event{Kind: reply.EventNotice, Text: "the model folder has no chat template: using ChatML"},
		refusal)
	url := start(t, newLoopback(gen, Options{})) + "/v1/chat/completions"
	for _, stream := range []string{"false", "true"} {
		resp := post(t, url, `{"messages":[{"role":"user","content":"Hi"}],"stream":`+stream+`}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "context_length_exceeded") {
			t.Errorf("stream %s: %d %s; want 400 context_length_exceeded", stream, resp.StatusCode, b)
		}
	}
}
