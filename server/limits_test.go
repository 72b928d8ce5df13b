package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"edgechat/internal/testkit/enginetest"
	"edgechat/reply"
)

// openFDs counts this process's open descriptors (Linux), or -1.
func openFDs() int {
	if runtime.GOOS != "linux" {
		return -1
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// waitFor polls cond every 10 ms for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// openConns is how many connections the server holds.
func (s *Server) openConns() int { return s.conns.openConns() }

// slowSender opens a connection, sends head at once, then rest one byte every gap (round and
// round) until the server answers or closes it, and returns when that happened and the
// answer ("408 {…}", or "closed: …"); it fails the test if the server never does within max.
func slowSender(t *testing.T, addr, head, rest string, gap, max time.Duration) (time.Duration, string) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Error(err)
		return 0, ""
	}
	answered := make(chan string, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			answered <- "closed: " + err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		answered <- fmt.Sprintf("%d %s", resp.StatusCode, b)
	}()
	for i := 0; ; i = (i + 1) % len(rest) {
		select {
		case a := <-answered:
			return time.Since(start), a
		case <-time.After(gap):
		}
		if time.Since(start) > max {
			t.Errorf("a slow sender was still connected after %v", max)
			return max, ""
		}
		conn.Write([]byte{rest[i]})
	}
}

// TestSlowSendersCutOff: 300 clients that send their headers, or their body, one byte every
// 300 ms are cut off about ReadTimeout after they were accepted, whatever the bytes they keep
// sending; requests made meanwhile are served; every descriptor is released after.
func TestSlowSendersCutOff(t *testing.T) {
	const readTimeout = time.Second
	s := newLoopback(scripted(nil, doneEvent(okSummary)), Options{ReadTimeout: readTimeout})
	url := start(t, s)
	addr := strings.TrimPrefix(url, "http://")
	before := openFDs()

	head := "POST /v1/chat/completions HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n"
	body := `{"messages":[{"role":"user","content":"Hi"}]}`
	var wg sync.WaitGroup
	var mu sync.Mutex
	var longest time.Duration
	for i := range 300 {
		wg.Go(func() {
			var d time.Duration
			if i%2 == 0 { // the headers slowly
				d, _ = slowSender(t, addr, "", head+"X-Slow: "+strings.Repeat("a", 100)+"\r\n\r\n", 300*time.Millisecond, 10*readTimeout)
			} else { // the headers at once, the body slowly: a 408 that says why
				var answer string
				d, answer = slowSender(t, addr, head+fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)), body, 300*time.Millisecond, 10*readTimeout)
				if !strings.HasPrefix(answer, "408 ") || !strings.Contains(answer, "request_timeout") {
					t.Errorf("a slow body was answered %q, want a 408 request_timeout", answer)
				}
			}
			mu.Lock()
			longest = max(longest, d)
			mu.Unlock()
		})
	}
	// Meanwhile, ordinary requests are answered.
	time.Sleep(100 * time.Millisecond)
	client := &http.Client{Timeout: 10 * readTimeout}
	for range 5 {
		start := time.Now()
		resp, err := client.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("an ordinary request during the attack: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("an ordinary request during the attack: %d", resp.StatusCode)
		}
		t.Logf("an ordinary request during the attack took %v", time.Since(start).Round(time.Millisecond))
	}
	wg.Wait()
	client.CloseIdleConnections()
	t.Logf("300 slow senders: the last was cut off after %v", longest.Round(time.Millisecond))
	if longest > 3*readTimeout {
		t.Errorf("a slow sender kept its connection %v, with a read timeout of %v", longest, readTimeout)
	}
	if !waitFor(2*time.Second, func() bool { return s.openConns() == 0 }) {
		t.Errorf("the server still holds %d connections", s.openConns())
	}
	if before >= 0 && !waitFor(2*time.Second, func() bool { return openFDs() <= before+2 }) {
		t.Errorf("%d descriptors open after the attack, %d before", openFDs(), before)
	}
}

// TestConnectionCap: idle kept-alive connections give way at once to a new client; silent
// ones hold their place only until the read timeout, and the connection over the cap waits
// for it, then is served.
func TestConnectionCap(t *testing.T) {
	const readTimeout = 1500 * time.Millisecond
	s := newLoopback(scripted(nil, doneEvent(okSummary)), Options{ReadTimeout: readTimeout, MaxConns: 4})
	url := start(t, s)
	addr := strings.TrimPrefix(url, "http://")

	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	health := func(c net.Conn) {
		io.WriteString(c, "GET /health HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	timed := func() time.Duration {
		start := time.Now()
		c := dial()
		c.SetDeadline(time.Now().Add(10 * readTimeout))
		health(c)
		c.Close()
		return time.Since(start)
	}

	var idle []net.Conn
	for range 4 { // the cap, all idle between requests
		c := dial()
		health(c)
		idle = append(idle, c)
		time.Sleep(20 * time.Millisecond)
	}
	if d := timed(); d > readTimeout/2 {
		t.Errorf("with the cap reached by idle connections a new one waited %v", d)
	}
	idle[0].SetReadDeadline(time.Now().Add(time.Second))
	if n, err := idle[0].Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the connection idle the longest was not closed for it: read %d, %v", n, err)
	}
	for _, c := range idle {
		c.Close()
	}
	if !waitFor(time.Second, func() bool { return s.openConns() == 0 }) {
		t.Fatalf("%d connections open", s.openConns())
	}

	for range 4 { // the cap, silent
		dial()
	}
	if !waitFor(time.Second, func() bool { return s.openConns() == 4 }) {
		t.Fatalf("%d connections open, want the 4 silent ones", s.openConns())
	}
	d := timed()
	t.Logf("over the cap of 4 silent connections, a request was served after %v", d.Round(time.Millisecond))
	if d < readTimeout*3/4 || d > 3*readTimeout {
		t.Errorf("over the cap, a request was served after %v: want it to wait for the silent ones to time out (%v)", d, readTimeout)
	}
}

// TestClientThatStopsReading: a client that asks for a stream and reads nothing is cut off
// once a write has waited WriteTimeout; its reply is stopped and the next request is served.
func TestClientThatStopsReading(t *testing.T) {
	const writeTimeout = 500 * time.Millisecond
	cancelled := make(chan struct{}, 1)
	chunk := strings.Repeat("x", 64<<10)
	gen := enginetest.Func(func(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
		out := make(chan reply.Event)
		go func() {
			defer close(out)
			if req.MaxTokens == 1 {
				out <- doneEvent(okSummary)
				return
			}
			for reply.Emit(ctx, out, reply.Event{Kind: reply.EventText, Text: chunk}) {
			}
			cancelled <- struct{}{}
			reply.SendFinal(ctx, out, doneEvent(reply.Summary{FinishReason: reply.FinishCancelled}))
		}()
		return out, nil
	})
	s := newLoopback(gen, Options{WriteTimeout: writeTimeout})
	url := start(t, s)
	addr := strings.TrimPrefix(url, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"messages":[{"role":"user","content":"Hi"}],"stream":true}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	start := time.Now()
	select {
	case <-cancelled:
		t.Logf("the reply to a client that reads nothing stopped after %v", time.Since(start).Round(time.Millisecond))
	case <-time.After(20 * writeTimeout):
		t.Fatal("the reply to a client that reads nothing was never stopped")
	}
	resp := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":1}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the next request: %d", resp.StatusCode)
	}
}

// TestLongRepliesNotCut: a reply that streams, or is generated, for longer than both timeouts
// comes whole: the deadlines are per read of the body and per write, not per request.
func TestLongRepliesNotCut(t *testing.T) {
	const timeout = 300 * time.Millisecond
	gen := enginetest.Func(func(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
		out := make(chan reply.Event)
		go func() {
			defer close(out)
			for range 12 {
				select {
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done():
					reply.SendFinal(ctx, out, doneEvent(reply.Summary{FinishReason: reply.FinishCancelled}))
					return
				}
				if !reply.Emit(ctx, out, reply.Event{Kind: reply.EventText, Text: "tick "}) {
					return
				}
			}
			reply.SendFinal(ctx, out, doneEvent(reply.Summary{FinishReason: reply.FinishStop, GeneratedTokens: 12}))
		}()
		return out, nil
	})
	url := start(t, newLoopback(gen, Options{ReadTimeout: timeout, WriteTimeout: timeout}))
	for _, stream := range []bool{true, false} {
		start := time.Now()
		resp := post(t, url+"/v1/chat/completions", fmt.Sprintf(`{"messages":[{"role":"user","content":"Hi"}],"stream":%v}`, stream))
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || strings.Count(string(b), "tick") != 12 {
			t.Errorf("stream %v: %d after %v, %v: %.300s", stream, resp.StatusCode, time.Since(start), err, b)
		}
	}
}
