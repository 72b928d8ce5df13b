package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"edgechat/internal/rss"
	"edgechat/internal/testkit/enginetest"
	"edgechat/reply"
)

// loadContext is the fake model's context: a strict max_tokens or a prompt over it is
// refused as the engine refuses it.
const loadContext = 4096

// loadGenerator is a fake engine that behaves as the real one does at its edges: status
// events, a refusal for a request over its context, a reply of up to max_tokens tokens
// (at most 40) with a little time per token, every send honouring ctx.
func loadGenerator() enginetest.Func {
	return func(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
		out := make(chan reply.Event, 4)
		go func() {
			defer close(out)
			prompt := 0
			for _, m := range req.Messages {
				prompt += len(m.Content)/4 + 4
			}
			if !reply.Emit(ctx, out, reply.Event{Kind: reply.EventStatus, Text: "Loading model…"}) {
				return
			}
			var refuse error
			switch {
			case req.StrictMaxTokens && req.MaxTokens > loadContext:
				refuse = fmt.Errorf("max_tokens is %d but this model's context holds %d tokens", req.MaxTokens, loadContext)
			case prompt > loadContext:
				refuse = fmt.Errorf("the prompt takes %d tokens but the context holds %d", prompt, loadContext)
			}
			if refuse != nil {
				reply.SendFinal(ctx, out, reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishError, Err: reply.ContextLength(refuse)}})
				return
			}
			n := req.MaxTokens
			if n <= 0 || n > 40 {
				n = 40
			}
			sum := &reply.Summary{FinishReason: reply.FinishLength, PromptTokens: prompt, Backend: "cpu"}
			for i := range n {
				select {
				case <-time.After(100 * time.Microsecond):
				case <-ctx.Done():
				}
				if ctx.Err() != nil {
					sum.FinishReason = reply.FinishCancelled
					break
				}
				if !reply.Emit(ctx, out, reply.Event{Kind: reply.EventText, Text: "tok" + strconv.Itoa(i) + " "}) {
					sum.FinishReason = reply.FinishCancelled
					break
				}
				sum.GeneratedTokens++
			}
			reply.SendFinal(ctx, out, reply.Event{Kind: reply.EventDone, Done: sum})
		}()
		return out, nil
	}
}

// loadStats counts what a load run saw; safe for concurrent use.
type loadStats struct {
	mu          sync.Mutex
	requests    int
	statuses    map[int]int
	disconnects int
	refused     int // no response, as expected (after shutdown, an oversized body)
	failures    []string
}

func (s *loadStats) add(status int, disconnected bool, failure string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	s.statuses[status]++
	if disconnected {
		s.disconnects++
	}
	if failure != "" && len(s.failures) < 20 {
		s.failures = append(s.failures, failure)
	}
}

// connError counts a request that got no response: expected once the server stops, or for
// a body the server refuses before reading it all (it may close while the client writes).
func (s *loadStats) connError(err error, expected bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if expected {
		s.refused++
		return
	}
	s.requests++
	if len(s.failures) < 20 {
		s.failures = append(s.failures, "no response: "+err.Error())
	}
}

func (s *loadStats) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	codes := slices.Sorted(func(yield func(int) bool) {
		for c := range s.statuses {
			if !yield(c) {
				return
			}
		}
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests, %d disconnected mid-reply, %d without a response as expected; statuses:", s.requests, s.disconnects, s.refused)
	for _, c := range codes {
		fmt.Fprintf(&b, " %d×%d", c, s.statuses[c])
	}
	return b.String()
}

// checkErrorBody reports whether b is an OpenAI-shaped error: {"error":{"message","type","code"}}.
func checkErrorBody(b []byte) error {
	var body map[string]json.RawMessage
	if err := json.Unmarshal(b, &body); err != nil || len(body) != 1 || body["error"] == nil {
		return fmt.Errorf("not {\"error\":{…}}: %.200q", b)
	}
	var e struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Code    *string `json:"code"`
	}
	dec := json.NewDecoder(bytes.NewReader(body["error"]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Message == "" || e.Type == "" {
		return fmt.Errorf("error object lacks message/type or has more: %.200q", body["error"])
	}
	return nil
}

// loadBodies are request bodies from the valid to the hostile; %s is where the run puts
// a random extra field.
var loadBodies = []string{
	`{"messages":[{"role":"user","content":"Hi"}]%s}`,
	`{"messages":[{"role":"user","content":"Hi"}],"stream":true%s}`,
	`{"messages":[{"role":"user","content":"Hi"}],"stream":true,"stream_options":{"include_usage":true}%s}`,
	`{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]%s}`,
	`{"messages":[{"role":"user","content":"` + strings.Repeat("long ", 20000) + `"}],"stream":true%s}`,
	`{"messages":[%s`,
	`{"messages":{}%s}`,
	`[%s]`,
	`{"messages":[{"role":"tool","content":"x"}]%s}`,
	`{"messages":[{"role":"user","content":5}]%s}`,
	`{"messages":[]%s}`,
	`%s`,
	`{"messages":[{"role":"user","content":"\ud800"}]%s}`,
}

var loadExtras = []string{
	``, `,"max_tokens":16`, `,"max_tokens":9007199254740992`, `,"max_tokens":2147483647`, `,"max_tokens":268435456`,
	`,"max_tokens":-1`, `,"max_tokens":1e308`, `,"max_tokens":1.5`, `,"max_tokens":"10"`, `,"max_completion_tokens":4097`,
	`,"temperature":1e308`, `,"temperature":-0`, `,"top_p":7`, `,"top_k":-5`, `,"top_k":9223372036854775807`,
	`,"seed":-9223372036854775808`, `,"seed":1e30`, `,"n":0`, `,"n":2`, `,"stop":[""]`, `,"stop":{"a":1}`,
	`,"tools":[{"type":"function","function":{"name":"f"}}]`, `,"tool_choice":"auto"`, `,"tools":[]`,
	`,"repetition_penalty":0`, `,"presence_penalty":3`, `,"chat_template_kwargs":{"enable_thinking":"yes"}`,
	`,"stream_options":null`, `,"messages":null`,
	`,"logit_bias":{"1":-100,"2":100}`, `,"logit_bias":{"x":1}`, `,"logit_bias":{"1":1e9}`, `,"frequency_penalty":-2`,
	`,"best_of":2`, `,"frobnicate":true`, `,"logprobs":true`, `,"user":"u","store":false`,
}

// rawRequests are requests net/http itself answers or refuses.
func rawRequests(host string) []string {
	return []string{
		"GET /health HTTP/1.1\r\nHost: " + host + "\r\nX-Big: " + strings.Repeat("a", maxHeaderBytes+8192) + "\r\n\r\n",
		"GARBAGE\r\n\r\n",
		"GET /health HTTP/1.1\r\n\r\n",
		"POST /v1/chat/completions HTTP/1.1\r\nHost: " + host + "\r\nTransfer-Encoding: gzip\r\n\r\n",
		"GET /v1/nothing HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
		"DELETE /v1/models HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
		"POST /v1/chat/completions HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 99999999999\r\n\r\n{",
		"POST /v1/chat/completions HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: abc\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
		"POST /v1/chat/completions HTTP/1.1\r\nHost: " + host + "\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}",
		"CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
		"GET /health HTTP/1.1\r\nHost: " + host + "\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx",
		"POST /v1/chat/completions HTTP/1.1\r\nHost: " + host + "\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"GET /v1/models?x=%zz HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
	}
}

// loadDuration is how long TestServerLoad hammers the server: 3 s in `make test`,
// EDGECHAT_LOAD_SECONDS on demand (`make load-test`).
func loadDuration(t *testing.T) time.Duration {
	if s := os.Getenv("EDGECHAT_LOAD_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("EDGECHAT_LOAD_SECONDS=%q: want a positive number of seconds", s)
		}
		return time.Duration(n) * time.Second
	}
	return 3 * time.Second
}

// TestServerLoad sends random valid and invalid requests, extreme numbers and concurrent
// streams that disconnect at random to a loopback server, then shuts it down under load.
// No response may be a 5xx (503 only once shutdown began), every error body must be
// OpenAI-shaped JSON, and goroutines and the live heap must come back after the run.
func TestServerLoad(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler)) // one log line per request is noise here
	dur := loadDuration(t)
	s := newLoopback(loadGenerator(), Options{QueueSize: 4, MaxBodyBytes: 256 << 10})
	addr, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()

	stats := &loadStats{statuses: map[int]int{}}
	var stopping bool
	var stopMu sync.Mutex
	isStopping := func() bool { stopMu.Lock(); defer stopMu.Unlock(); return stopping }

	// One request of a random kind; ctx ends the run.
	one := func(rng *rand.Rand) {
		check := func(status int, body []byte, disconnected bool) {
			failure := ""
			switch {
			case status >= 500 && !(status == http.StatusServiceUnavailable && isStopping()):
				failure = fmt.Sprintf("status %d outside shutdown: %.200q", status, body)
			case status >= 400:
				if err := checkErrorBody(body); err != nil {
					failure = fmt.Sprintf("status %d: %v", status, err)
				}
			}
			stats.add(status, disconnected, failure)
		}
		if rng.IntN(10) == 0 { // raw bytes on a connection: net/http's own answers
			raws := rawRequests(addr)
			status, body, err := rawExchange(addr, raws[rng.IntN(len(raws))])
			if err != nil {
				stats.connError(err, isStopping())
				return
			}
			check(status, body, false)
			return
		}
		body := loadBodies[rng.IntN(len(loadBodies))]
		body = fmt.Sprintf(body, loadExtras[rng.IntN(len(loadExtras))])
		method, path := http.MethodPost, "/v1/chat/completions"
		switch rng.IntN(20) {
		case 0:
			method, path = http.MethodGet, "/v1/models"
		case 1:
			method, path = http.MethodGet, "/health"
		case 2:
			method = http.MethodPut
		case 3:
			body = strings.Repeat("x", 300<<10) // over MaxBodyBytes
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			stats.connError(err, isStopping() || len(body) > 256<<10)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			disconnect := rng.IntN(3) == 0
			failure := readStream(resp.Body, disconnect, rng, cancel)
			if failure != "" && !isStopping() {
				stats.add(resp.StatusCode, disconnect, failure)
				return
			}
			stats.add(resp.StatusCode, disconnect, "")
			return
		}
		b, _ := io.ReadAll(resp.Body)
		check(resp.StatusCode, b, false)
	}

	before, beforeRSS := liveHeap(), rssNow()
	work := func(until time.Time, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 22))
		for time.Now().Before(until) {
			one(rng)
		}
	}
	var wg sync.WaitGroup
	until := time.Now().Add(dur)
	for i := range 8 {
		wg.Go(func() { work(until, uint64(i)) })
	}
	wg.Wait()
	after, afterRSS := liveHeap(), rssNow()

	// Shut down while requests are in flight: waiting and new ones get 503.
	for i := range 4 {
		wg.Go(func() { work(time.Now().Add(300*time.Millisecond), uint64(100+i)) })
	}
	time.Sleep(50 * time.Millisecond)
	stopMu.Lock()
	stopping = true
	stopMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	wg.Wait()
	tr.CloseIdleConnections()

	t.Logf("%v in %v; live heap %d MB before, %d MB after; RSS %d MB before, %d MB after", stats, dur, before>>20, after>>20, beforeRSS>>20, afterRSS>>20)
	for _, f := range stats.failures {
		t.Error(f)
	}
	if stats.statuses[http.StatusOK] == 0 || stats.statuses[http.StatusBadRequest] == 0 {
		t.Errorf("the run did not exercise both replies and refusals: %v", stats)
	}
	if after > before && after-before > 16<<20 {
		t.Errorf("the live heap grew by %d MB over the run: something the requests made is still held", (after-before)>>20)
	}
}

// liveHeap is the memory the program still holds after a full collection. The check uses
// it rather than resident memory: the race detector's shadow memory and the pages Go's
// scavenger has not yet returned stay resident after a run without anything leaking, and
// `make test` runs this package under the race detector.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC() // the first collection's finalizers may free more
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// rssNow is the resident memory, logged for a person reading the run.
func rssNow() int64 {
	n, _ := rss.Current()
	return n
}

// readStream reads an SSE reply; with disconnect it hangs up after a random number of
// events. It returns what is wrong with a stream read to its end.
func readStream(body io.Reader, disconnect bool, rng *rand.Rand, cancel context.CancelFunc) string {
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	stopAfter := rng.IntN(30)
	events, done := 0, false
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		events++
		if disconnect && events > stopAfter {
			cancel()
			return ""
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		if strings.Contains(data, `"error"`) {
			if err := checkErrorBody([]byte(data)); err != nil {
				return "stream error event: " + err.Error()
			}
		}
	}
	if !done && !disconnect {
		return "stream ended without [DONE]"
	}
	return ""
}

// rawExchange writes request bytes on a new connection and reads one response.
func rawExchange(addr, request string) (int, []byte, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	go io.WriteString(conn, request) // the server may answer before it has read everything
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, nil, err
	}
	return resp.StatusCode, b, nil
}
