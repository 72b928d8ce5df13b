package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeHTTP is an in-process streamable HTTP server: initialize answers JSON with a session,
// tools/list answers an event stream that first pings the client, tools/call per status.
func fakeHTTP(t *testing.T, callStatus int) (*httptest.Server, *atomic.Int32) {
	var pinged atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusOK)
			return
		}
		if r.Header.Get("X-Key") != "secret" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") || !strings.Contains(r.Header.Get("Accept"), "application/json") {
			http.Error(w, "bad accept", http.StatusNotAcceptable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		m, err := parseMessage(b)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if m.Method != "initialize" && r.Header.Get("Mcp-Session-Id") != "s-1" {
			http.Error(w, "no session", http.StatusBadRequest)
			return
		}
		switch {
		case m.isResponse(): // the answer to our ping
			if string(m.ID) == `"p1"` && string(m.Result) == "{}" {
				pinged.Add(1)
			}
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s-1")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fakehttp","version":"1"}}}`, m.ID)
		case m.ID == nil:
			if r.Header.Get("MCP-Protocol-Version") != "2025-06-18" {
				http.Error(w, "no protocol version", http.StatusBadRequest)
				return
			}
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "tools/list":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "id: 0\ndata: \n\n: keep-alive\n\n")
			fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"p1\",\"method\":\"ping\"}\n\n")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\r\ndata: \"result\":{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}}\r\n\r\n", m.ID)
		case m.Method == "tools/call" && callStatus != http.StatusOK:
			http.Error(w, "overloaded", callStatus)
		default:
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "hello")
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &pinged
}

func TestHTTPTransport(t *testing.T) {
	srv, pinged := fakeHTTP(t, http.StatusServiceUnavailable)
	s := ServerConfig{Name: "fakehttp", URL: srv.URL, Headers: map[string]string{"X-Key": "secret"}}
	c, err := Connect(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Protocol != "2025-06-18" {
		t.Errorf("protocol %q", c.Protocol)
	}
	tools, err := c.ListTools(t.Context())
	if err != nil || len(tools) != 1 || tools[0].Name != "t" {
		t.Fatalf("tools %v %v", tools, err)
	}
	_, err = c.CallTool(t.Context(), "t", json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), "503 Service Unavailable: overloaded") {
		t.Errorf("a 503: %v", err)
	}
	for range 100 {
		if pinged.Load() == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pinged.Load() != 1 {
		t.Error("the server's ping on the event stream was not answered")
	}

	s.Headers = nil
	if _, err := Connect(t.Context(), s); err == nil || !strings.Contains(err.Error(), "check the server's headers") {
		t.Errorf("without the key: %v", err)
	}
	s.URL = "http://127.0.0.1:1/mcp"
	if _, err := Connect(t.Context(), s); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("no server: %v", err)
	}
}

func TestHTTPWrongContentType(t *testing.T) {
	srv, _ := fakeHTTP(t, http.StatusOK)
	c, err := Connect(t.Context(), ServerConfig{Name: "fakehttp", URL: srv.URL, Headers: map[string]string{"X-Key": "secret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(t.Context(), "t", nil); err == nil || !strings.Contains(err.Error(), "neither JSON nor an event stream") {
		t.Errorf("a text/plain answer: %v", err)
	}
}

// A server that takes the request and never answers is reported by name after the call
// timeout, and the client can still be closed.
func TestHTTPHang(t *testing.T) {
	srv, _ := fakeHTTP(t, http.StatusOK)
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), `"tools/call"`) {
			<-r.Context().Done()
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(b)))
		srv.Config.Handler.ServeHTTP(w, r)
	}))
	defer hang.Close()
	c, err := Connect(t.Context(), ServerConfig{Name: "slowpoke", URL: hang.URL, Headers: map[string]string{"X-Key": "secret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.CallTimeout = 200 * time.Millisecond
	_, err = c.CallTool(t.Context(), "t", nil)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "slowpoke did not answer tools/call within 200ms") {
		t.Errorf("a hung call: %v", err)
	}
}
