package server

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	"edgechat/reply"
)

// BenchmarkOverheadPerToken streams 64 tokens from a generator that costs nothing, so the
// time is all the server's (HTTP, JSON, SSE) and the client's reading.
func BenchmarkOverheadPerToken(b *testing.B) {
	events := []reply.Event{}
	for range 64 {
		events = append(events, reply.Event{Kind: reply.EventText, Text: " token"})
	}
	events = append(events, doneEvent(reply.Summary{FinishReason: reply.FinishStop, GeneratedTokens: 64}))
	url := start(b, newLoopback(scripted(nil, events...), Options{}))
	req := `{"messages":[{"role":"user","content":"Hi"}],"stream":true}`
	for b.Loop() {
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(req))
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		n := 0
		for sc.Scan() {
			n++
		}
		resp.Body.Close()
		if n < 2*66 {
			b.Fatalf("%d lines", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(64*b.N), "ns/token")
}
