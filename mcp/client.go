package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ProtocolVersion is the MCP revision this client speaks first; older servers may answer
// with one of supportedVersions.
const ProtocolVersion = "2025-11-25"

var supportedVersions = []string{ProtocolVersion, "2025-06-18", "2025-03-26"}

// ClientVersion is the version the handshake gives for EdgeChat (the program sets it).
var ClientVersion = "dev"

// Defaults of the timeouts.
const (
	DefaultCallTimeout  = 60 * time.Second
	DefaultStartTimeout = 30 * time.Second
)

// transport carries JSON-RPC between the client and one server.
type transport interface {
	// call sends a request and returns its result, or the server's *RPCError, or why the
	// server could not answer.
	call(ctx context.Context, method string, params any) (json.RawMessage, error)
	// notify sends a notification.
	notify(ctx context.Context, method string, params any) error
	// setProtocol tells the transport the negotiated revision (HTTP sends it as a header).
	setProtocol(v string)
	close() error
}

// Client is a connection to one initialized MCP server.
type Client struct {
	Name string
	// Server is the server's own name and version from the handshake.
	Server Implementation
	// Protocol is the revision the server agreed to.
	Protocol string
	// Instructions are the server's hints for the model, if it gave any.
	Instructions string
	// CallTimeout bounds each call (DefaultCallTimeout when zero).
	CallTimeout time.Duration

	t    transport
	caps serverCapabilities
}

// Implementation names a client or server in the handshake.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type serverCapabilities struct {
	Tools *struct {
		ListChanged bool `json:"listChanged,omitempty"`
	} `json:"tools,omitempty"`
}

// Tool is one tool a server offers.
type Tool struct {
	// Server is the name of the server in the configuration.
	Server      string          `json:"-"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Connect starts (stdio) or reaches (HTTP) the server and makes the initialize handshake,
// within ctx and the start timeout.
func Connect(ctx context.Context, s ServerConfig) (*Client, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	var t transport
	var err error
	if s.URL != "" {
		t = newHTTPTransport(s)
	} else if t, err = startStdio(s); err != nil {
		return nil, err
	}
	c := &Client{Name: s.Name, t: t}
	ictx, cancel := context.WithTimeout(ctx, DefaultStartTimeout)
	defer cancel()
	if err := c.initialize(ictx); err != nil {
		t.close()
		return nil, err
	}
	return c, nil
}

func (c *Client) initialize(ctx context.Context) error {
	params := map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      Implementation{Name: "edgechat", Title: "EdgeChat", Version: ClientVersion},
	}
	raw, err := c.t.call(ctx, "initialize", params)
	if err != nil {
		return c.wrap("initialize", err)
	}
	var res struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    serverCapabilities `json:"capabilities"`
		ServerInfo      Implementation     `json:"serverInfo"`
		Instructions    string             `json:"instructions"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("MCP server %s: its initialize answer is not understood: %v", c.Name, err)
	}
	if !slices.Contains(supportedVersions, res.ProtocolVersion) {
		return fmt.Errorf("MCP server %s speaks protocol revision %q; EdgeChat speaks %s", c.Name, res.ProtocolVersion, strings.Join(supportedVersions, ", "))
	}
	c.Protocol, c.Server, c.caps, c.Instructions = res.ProtocolVersion, res.ServerInfo, res.Capabilities, res.Instructions
	c.t.setProtocol(res.ProtocolVersion)
	if err := c.t.notify(ctx, "notifications/initialized", nil); err != nil {
		return c.wrap("initialized", err)
	}
	return nil
}

// maxPages bounds tools/list pagination against a server that never stops.
const maxPages = 100

// ListTools returns all the server's tools, following nextCursor.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	if c.caps.Tools == nil {
		return nil, nil // the server offers no tools
	}
	var tools []Tool
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := c.request(ctx, "tools/list", params)
		if err != nil {
			return nil, err
		}
		var page struct {
			Tools      []Tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("MCP server %s: its tool list is not understood: %v", c.Name, err)
		}
		for _, t := range page.Tools {
			if t.Name == "" {
				return nil, fmt.Errorf("MCP server %s lists a tool without a name", c.Name)
			}
			t.Server = c.Name
			tools = append(tools, t)
		}
		if page.NextCursor == "" {
			return tools, nil
		}
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("MCP server %s: its tool list goes on past %d pages", c.Name, maxPages)
}

// CallTool runs a tool with arguments (a JSON object; empty means none). A tool that ran and
// failed is a Result with IsError, not an error.
func (c *Client) CallTool(ctx context.Context, name string, arguments json.RawMessage) (*Result, error) {
	args := json.RawMessage("{}")
	if len(strings.TrimSpace(string(arguments))) > 0 {
		args = arguments
	}
	if !json.Valid(args) || strings.TrimSpace(string(args))[0] != '{' {
		return nil, fmt.Errorf("the arguments of %s are not a JSON object: %s", name, clip(args, 200))
	}
	raw, err := c.request(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("MCP server %s: the result of %s is not understood: %v", c.Name, name, err)
	}
	return &r, nil
}

// request sends a request within the call timeout.
func (c *Client) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	d := c.CallTimeout
	if d <= 0 {
		d = DefaultCallTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	raw, err := c.t.call(ctx, method, params)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return nil, fmt.Errorf("MCP server %s did not answer %s within %s: %w", c.Name, method, d, ErrTimeout)
		}
		return nil, c.wrap(method, err)
	}
	return raw, nil
}

// ErrTimeout marks a call the server did not answer in time.
var ErrTimeout = errors.New("the server is not answering")

func (c *Client) wrap(method string, err error) error {
	var rpc *RPCError
	if errors.As(err, &rpc) {
		return fmt.Errorf("MCP server %s refused %s: %w", c.Name, method, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("MCP server %s did not answer %s in time: %w", c.Name, method, ErrTimeout)
	}
	return fmt.Errorf("MCP server %s: %w", c.Name, err)
}

// Close ends the session and stops the server's process.
func (c *Client) Close() error { return c.t.close() }
