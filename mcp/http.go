package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// httpTransport is MCP's streamable HTTP transport: each message is POSTed to the server's
// URL; a request's answer comes back as JSON or as a server-sent-event stream that ends with
// it. The session ID the server gives at initialize goes on every later request.
type httpTransport struct {
	name    string
	url     string
	headers map[string]string
	client  *http.Client
	nextID  atomic.Int64

	mu       sync.Mutex
	session  string
	protocol string
}

func newHTTPTransport(s ServerConfig) *httpTransport {
	return &httpTransport{name: s.Name, url: s.URL, headers: s.Headers, client: &http.Client{}}
}

func (t *httpTransport) setProtocol(v string) {
	t.mu.Lock()
	t.protocol = v
	t.mu.Unlock()
}

// post sends one message and returns the response, its status checked.
func (t *httpTransport) post(ctx context.Context, m *message) (*http.Response, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	t.header(req)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := t.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("cannot reach %s: %v", t.url, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 400))
		return nil, t.statusError(resp.StatusCode, body)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && m.Method == "initialize" {
		t.mu.Lock()
		t.session = sid
		t.mu.Unlock()
	}
	return resp, nil
}

func (t *httpTransport) header(req *http.Request) {
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	t.mu.Lock()
	if t.session != "" {
		req.Header.Set("Mcp-Session-Id", t.session)
	}
	if t.protocol != "" {
		req.Header.Set("MCP-Protocol-Version", t.protocol)
	}
	t.mu.Unlock()
}

func (t *httpTransport) statusError(code int, body []byte) error {
	status := strconv.Itoa(code) + " " + http.StatusText(code)
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Errorf("%s refused the request (%s): check the server's headers (an API key or token) in the MCP configuration", t.url, status)
	case code == http.StatusNotFound && t.hasSession():
		return fmt.Errorf("%s ended the session (%s): restart the server", t.url, status)
	}
	if len(bytes.TrimSpace(body)) > 0 {
		return fmt.Errorf("%s answered %s: %s", t.url, status, clip(bytes.TrimSpace(body), 300))
	}
	return fmt.Errorf("%s answered %s", t.url, status)
}

func (t *httpTransport) hasSession() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.session != ""
}

func (t *httpTransport) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	id := json.RawMessage(strconv.FormatInt(t.nextID.Add(1), 10))
	resp, err := t.post(ctx, &message{JSONRPC: "2.0", ID: id, Method: method, Params: p})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var m *message
	switch ct {
	case "application/json":
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxMessage+1))
		if err != nil {
			return nil, t.readError(ctx, err)
		}
		if m, err = parseMessage(b); err != nil {
			return nil, fmt.Errorf("%s answered something that is not an MCP message: %v", t.url, err)
		}
	case "text/event-stream":
		if m, err = t.readStream(ctx, resp.Body, id); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s answered %q, neither JSON nor an event stream", t.url, resp.Header.Get("Content-Type"))
	}
	if !m.isResponse() || string(m.ID) != string(id) {
		return nil, fmt.Errorf("%s answered another message than the response to %s", t.url, method)
	}
	if m.Error != nil {
		return nil, m.Error
	}
	return m.Result, nil
}

// readStream reads events until the response to id, answering the server's requests on the
// way.
func (t *httpTransport) readStream(ctx context.Context, body io.Reader, id json.RawMessage) (*message, error) {
	sr := newSSEReader(body)
	for {
		data, err := sr.next()
		if err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("%s ended its event stream without the response", t.url)
			}
			return nil, t.readError(ctx, err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue // a priming event: an ID to resume from, no message
		}
		m, err := parseMessage(data)
		if err != nil {
			return nil, fmt.Errorf("%s sent an event that is not an MCP message: %v", t.url, err)
		}
		switch {
		case m.isResponse() && string(m.ID) == string(id):
			return m, nil
		case m.isRequest():
			go t.answer(m)
		}
	}
}

func (t *httpTransport) readError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("reading the answer of %s: %v", t.url, err)
}

// answer replies to a request the server made: ping, and nothing else this client offers.
func (t *httpTransport) answer(m *message) {
	reply := &message{JSONRPC: "2.0", ID: m.ID}
	if m.Method == "ping" {
		reply.Result = json.RawMessage("{}")
	} else {
		reply.Error = &RPCError{Code: codeMethodNotFound, Message: "EdgeChat does not offer " + m.Method}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if resp, err := t.post(ctx, reply); err == nil {
		resp.Body.Close()
	}
}

func (t *httpTransport) notify(ctx context.Context, method string, params any) error {
	p, err := marshalParams(params)
	if err != nil {
		return err
	}
	resp, err := t.post(ctx, &message{JSONRPC: "2.0", Method: method, Params: p})
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// close ends the session (DELETE), as the transport asks of a client that leaves.
func (t *httpTransport) close() error {
	if !t.hasSession() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.url, nil)
	if err != nil {
		return err
	}
	t.header(req)
	resp, err := t.client.Do(req)
	if err != nil {
		return nil // the server is gone already
	}
	resp.Body.Close()
	return nil
}
