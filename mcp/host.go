package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// Host holds the configured servers: each is started on first use, its tools offered under
// names unique across servers, its calls routed to it; a server that failed is started again
// on the next use. Close stops them all.
type Host struct {
	// CallTimeout bounds each call (DefaultCallTimeout when zero).
	CallTimeout time.Duration

	servers []ServerConfig

	mu      sync.Mutex
	clients map[string]*Client
	tools   map[string]Tool // offered name → tool
	closed  bool
}

// NewHost returns a host of the configuration's enabled servers; nothing starts yet.
func NewHost(c Config) *Host {
	h := &Host{clients: map[string]*Client{}, tools: map[string]Tool{}}
	for _, s := range c.Servers {
		if !s.Disabled {
			h.servers = append(h.servers, s)
		}
	}
	return h
}

// Servers returns the enabled servers' configurations.
func (h *Host) Servers() []ServerConfig { return h.servers }

// OfferedTool is a tool under the name the model sees.
type OfferedTool struct {
	Tool
	// Offered is the name given to the model: the tool's own, or server_tool where two
	// servers have a tool of the same name or the name is not one a model's API accepts.
	Offered string
}

// ServerError is a server that could not be started or listed.
type ServerError struct {
	Server string
	Err    error
}

func (e *ServerError) Error() string { return e.Err.Error() }
func (e *ServerError) Unwrap() error { return e.Err }

// Tools starts the servers not running yet and lists all their tools; a server that fails is
// in the errors, the others' tools are still returned.
func (h *Host) Tools(ctx context.Context) ([]OfferedTool, []error) {
	type listing struct {
		tools []Tool
		err   error
	}
	results := make([]listing, len(h.servers))
	var wg sync.WaitGroup
	for i, s := range h.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := h.client(ctx, s)
			if err == nil {
				results[i].tools, err = c.ListTools(ctx)
				if err != nil {
					h.drop(s.Name, c)
				}
			}
			results[i].err = err
		}()
	}
	wg.Wait()
	var out []OfferedTool
	var errs []error
	seen := map[string]bool{}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tools = map[string]Tool{}
	for i, r := range results {
		if r.err != nil {
			errs = append(errs, &ServerError{h.servers[i].Name, r.err})
			continue
		}
		for _, t := range r.tools {
			name := t.Name
			if seen[name] || !validName.MatchString(name) {
				name = sanitize(t.Server + "_" + t.Name)
			}
			for n := 2; seen[name]; n++ {
				name = sanitize(fmt.Sprintf("%s_%s_%d", t.Server, t.Name, n))
			}
			seen[name] = true
			h.tools[name] = t
			out = append(out, OfferedTool{Tool: t, Offered: name})
		}
	}
	return out, errs
}

// validName is what the OpenAI and Anthropic APIs accept as a function's name.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// Call runs the tool offered under name. A server that crashed is dropped (and started
// again on the next use), so the error says what happened and the chat goes on.
func (h *Host) Call(ctx context.Context, name string, arguments json.RawMessage) (*Result, error) {
	h.mu.Lock()
	t, ok := h.tools[name]
	h.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("there is no tool %q (list the tools first)", name)
	}
	var s ServerConfig
	for _, c := range h.servers {
		if c.Name == t.Server {
			s = c
		}
	}
	c, err := h.client(ctx, s)
	if err != nil {
		return nil, err
	}
	r, err := c.CallTool(ctx, t.Name, arguments)
	if err != nil && !isRefusal(err) {
		h.drop(s.Name, c)
	}
	return r, err
}

// Tool returns the tool offered under name.
func (h *Host) Tool(name string) (Tool, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.tools[name]
	return t, ok
}

func isRefusal(err error) bool {
	var rpc *RPCError
	return errors.As(err, &rpc)
}

// client returns the running client of s, starting it first if need be.
func (h *Host) client(ctx context.Context, s ServerConfig) (*Client, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, fmt.Errorf("MCP server %s: the host is closed", s.Name)
	}
	if c := h.clients[s.Name]; c != nil {
		h.mu.Unlock()
		return c, nil
	}
	h.mu.Unlock()
	c, err := Connect(ctx, s)
	if err != nil {
		return nil, err
	}
	c.CallTimeout = h.CallTimeout
	h.mu.Lock()
	defer h.mu.Unlock()
	if old := h.clients[s.Name]; old != nil || h.closed { // started twice at once, or closed meanwhile
		go c.Close()
		if old == nil {
			return nil, fmt.Errorf("MCP server %s: the host is closed", s.Name)
		}
		return old, nil
	}
	h.clients[s.Name] = c
	return c, nil
}

// drop stops a client that failed, if it is still the server's.
func (h *Host) drop(name string, c *Client) {
	h.mu.Lock()
	if h.clients[name] == c {
		delete(h.clients, name)
	}
	h.mu.Unlock()
	go c.Close()
}

// Running says whether the named server is started.
func (h *Host) Running(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.clients[name] != nil
}

// Close stops every server (in parallel) and waits for them.
func (h *Host) Close() error {
	h.mu.Lock()
	h.closed = true
	clients := h.clients
	h.clients = map[string]*Client{}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); c.Close() }()
	}
	wg.Wait()
	return nil
}
