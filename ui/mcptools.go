package ui

import (
	"context"
	"encoding/json"
	"sync"

	"edgechat/config"
	"edgechat/mcp"
	"edgechat/reply"
)

// MCPTools gives the chat the tools of the MCP servers that the settings' mcp_config file
// names: none while it is empty (tools are off until the user adds a server). The servers
// start when a reply first needs them and stop on Close (when the app quits) or when the
// setting changes.
type MCPTools struct {
	settings func() config.Settings

	mu   sync.Mutex
	path string
	host *mcpHost
}

// NewMCPTools follows the settings' mcp_config.
func NewMCPTools(settings func() config.Settings) *MCPTools { return &MCPTools{settings: settings} }

// Host returns the tool host of the current setting, or nil when there is none.
func (m *MCPTools) Host() ToolHost {
	path := m.settings().MCPConfig
	m.mu.Lock()
	defer m.mu.Unlock()
	if path != m.path || m.host == nil {
		if m.host != nil {
			go m.host.close()
		}
		m.path, m.host = path, nil
		if path != "" {
			m.host = &mcpHost{path: path}
		}
	}
	if m.host == nil {
		return nil // a nil interface, not a nil *mcpHost
	}
	return m.host
}

// Close stops the servers.
func (m *MCPTools) Close() {
	m.mu.Lock()
	h := m.host
	m.host = nil
	m.mu.Unlock()
	if h != nil {
		h.close()
	}
}

// mcpHost is an mcp.Host read from its file on first use (so a mistake in the file is
// reported with the reply that needed it, and fixed by editing the file).
type mcpHost struct {
	path string
	mu   sync.Mutex
	host *mcp.Host
}

func (h *mcpHost) load() (*mcp.Host, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.host != nil {
		return h.host, nil
	}
	cfg, err := mcp.LoadConfig(h.path)
	if err != nil {
		return nil, err
	}
	h.host = mcp.NewHost(cfg)
	return h.host, nil
}

func (h *mcpHost) Tools(ctx context.Context) ([]reply.Tool, []error) {
	host, err := h.load()
	if err != nil {
		return nil, []error{err}
	}
	offered, errs := host.Tools(ctx)
	tools, more := mcp.ReplyTools(offered)
	return tools, append(errs, more...)
}

func (h *mcpHost) Call(ctx context.Context, name string, args json.RawMessage) (string, bool, error) {
	host, err := h.load()
	if err != nil {
		return "", false, err
	}
	r, err := host.Call(ctx, name, args)
	if err != nil {
		return "", false, err
	}
	return r.Text(), r.IsError, nil
}

func (h *mcpHost) Server(tool string) string {
	host, err := h.load()
	if err != nil {
		return ""
	}
	t, _ := host.Tool(tool)
	return t.Server
}

func (h *mcpHost) close() {
	h.mu.Lock()
	host := h.host
	h.mu.Unlock()
	if host != nil {
		host.Close()
	}
}
