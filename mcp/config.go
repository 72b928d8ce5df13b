package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
)

// ServerConfig is one server of an mcp.json: a command to start (stdio) or a URL to reach
// (streamable HTTP).
type ServerConfig struct {
	Name    string            `json:"-"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Dir is the working folder of the command (default: the current one).
	Dir     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Disabled servers are kept in the file but not used.
	Disabled bool `json:"disabled,omitempty"`
}

// Config is the servers of an mcp.json, in name order.
type Config struct {
	Servers []ServerConfig
}

// ParseConfig reads the {"mcpServers": {NAME: {...}}} form that desktop MCP hosts share.
func ParseConfig(b []byte) (Config, error) {
	var file struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return Config{}, fmt.Errorf("not the JSON of an mcp.json: %v", err)
	}
	if file.Servers == nil {
		return Config{}, errors.New(`no "mcpServers" object: write {"mcpServers": {"name": {"command": …, "args": […]}}}`)
	}
	names := make([]string, 0, len(file.Servers))
	for n := range file.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var c Config
	for _, n := range names {
		var s ServerConfig
		dec := json.NewDecoder(bytes.NewReader(file.Servers[n]))
		if err := dec.Decode(&s); err != nil {
			return Config{}, fmt.Errorf("server %q: %v", n, err)
		}
		s.Name = n
		if err := s.Check(); err != nil {
			return Config{}, err
		}
		c.Servers = append(c.Servers, s)
	}
	return c, nil
}

// LoadConfig reads an mcp.json file.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("MCP configuration: %w", err)
	}
	c, err := ParseConfig(b)
	if err != nil {
		return Config{}, fmt.Errorf("MCP configuration %s: %w", path, err)
	}
	return c, nil
}

// Check says what is wrong with a server's entry, or nil.
func (s ServerConfig) Check() error {
	switch {
	case strings.TrimSpace(s.Name) == "":
		return errors.New("an MCP server without a name")
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("server %q has both a command and a url: give one (command for a local program, url for a streamable HTTP server)", s.Name)
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("server %q has neither a command nor a url", s.Name)
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("server %q: url %q is not an http:// or https:// address", s.Name, s.URL)
		}
	}
	return nil
}

// Transport names "stdio" or "http".
func (s ServerConfig) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// Marshal writes the configuration back in the mcp.json form.
func (c Config) Marshal() ([]byte, error) {
	m := map[string]ServerConfig{}
	for _, s := range c.Servers {
		m[s.Name] = s
	}
	return json.MarshalIndent(map[string]any{"mcpServers": m}, "", "  ")
}
