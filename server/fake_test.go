package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"edgechat/reply"

	"edgechat/internal/testkit/enginetest"
)

// scripted is enginetest.Scripted: a generator that sends events in order.
var scripted = enginetest.Scripted

// blocking returns a generator that emits a token, then waits until release is closed or
// ctx ends (reporting that on cancelled), then finishes. started gets one value per request.
func blocking(started chan<- struct{}, release <-chan struct{}, cancelled chan<- struct{}) enginetest.Func {
	return func(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
		out := make(chan reply.Event, 1)
		go func() {
			defer close(out)
			out <- reply.Event{Kind: reply.EventText, Text: "tick"}
			started <- struct{}{}
			select {
			case <-release:
				out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishStop, GeneratedTokens: 1}}
			case <-ctx.Done():
				if cancelled != nil {
					cancelled <- struct{}{}
				}
				out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishCancelled}}
			}
		}()
		return out, nil
	}
}

func doneEvent(s reply.Summary) reply.Event {
	return reply.Event{Kind: reply.EventDone, Done: &s}
}

// start serves s on a loopback port for the test and returns its base URL.
func start(t testing.TB, s *Server) string {
	t.Helper()
	addr, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return "http://" + addr
}

func newLoopback(gen Generator, opt Options) *Server {
	if opt.Addr == "" {
		opt.Addr = "127.0.0.1:0"
	}
	return New(gen, opt)
}

func post(t testing.TB, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sseStream is a parsed text/event-stream body.
type sseStream struct {
	data     []string // payloads of the data events, in order ("[DONE]" included)
	names    []string // each event's name ("event:" line), "" for none
	comments []string
}

// readSSE parses an event stream: events end at a blank line; "data:" lines of one event
// join with "\n"; lines starting with ":" are comments.
func readSSE(t testing.TB, body io.Reader) sseStream {
	t.Helper()
	var s sseStream
	var data []string
	name := ""
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != nil {
				s.data = append(s.data, strings.Join(data, "\n"))
				s.names = append(s.names, name)
				data, name = nil, ""
			}
		case strings.HasPrefix(line, ":"):
			s.comments = append(s.comments, strings.TrimSpace(line[1:]))
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if data != nil {
		t.Fatalf("stream ended inside an event: %q", data)
	}
	return s
}

// chunks decodes every data payload before [DONE], which must be the last one.
func (s sseStream) chunks(t testing.TB) []map[string]any {
	t.Helper()
	if len(s.data) == 0 || s.data[len(s.data)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %q", s.data)
	}
	var out []map[string]any
	for _, d := range s.data[:len(s.data)-1] {
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("chunk is not JSON: %v: %s", err, d)
		}
		out = append(out, m)
	}
	return out
}
