package server

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/reply"
)

func TestSourcesInXEdgeChat(t *testing.T) {
	sum := okSummary
	sum.Sources = []reply.Source{{File: "report.pdf", Page: 250, Text: "The code is 7341."}, {File: "notes.md", Heading: "Plans", Text: "Friday."}}
	want := []any{
		map[string]any{"file": "report.pdf", "page": 250.0, "text": "The code is 7341."},
		map[string]any{"file": "notes.md", "heading": "Plans", "text": "Friday."},
	}
	url := start(t, newLoopback(scripted(nil, replyEvents(sum)...), Options{}))

	resp := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}]}`)
	defer resp.Body.Close()
	var got struct {
		X map[string]any `json:"x_edgechat"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.X["sources"]); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}

	stream := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}],"stream":true}`)
	defer stream.Body.Close()
	chunks := readSSE(t, stream.Body).chunks(t)
	last := chunks[len(chunks)-1]["x_edgechat"].(map[string]any)
	if diff := cmp.Diff(want, last["sources"]); diff != "" {
		t.Errorf("streamed sources (-want +got):\n%s", diff)
	}
}
