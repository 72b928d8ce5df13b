package mcp

import (
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig([]byte(`{"mcpServers": {
		"web": {"url": "https://example.test/mcp", "headers": {"Authorization": "Bearer x"}},
		"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"A": "1"}},
		"off": {"command": "x", "disabled": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Servers) != 3 || c.Servers[0].Name != "everything" || c.Servers[2].Name != "web" {
		t.Fatalf("servers %+v", c.Servers)
	}
	e := c.Servers[0]
	if e.Command != "npx" || len(e.Args) != 2 || e.Env["A"] != "1" || e.Transport() != "stdio" {
		t.Errorf("everything: %+v", e)
	}
	if w := c.Servers[2]; w.Transport() != "http" || w.Headers["Authorization"] != "Bearer x" {
		t.Errorf("web: %+v", w)
	}
	if h := NewHost(c); len(h.Servers()) != 2 {
		t.Errorf("a disabled server is used: %+v", h.Servers())
	}
	b, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseConfig(b)
	if err != nil || len(again.Servers) != 3 || again.Servers[2].URL != "https://example.test/mcp" {
		t.Errorf("round trip: %v %+v", err, again)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[]`, "not the JSON"},
		{`{"servers": {}}`, `no "mcpServers"`},
		{`{"mcpServers": {"a": {}}}`, `"a" has neither`},
		{`{"mcpServers": {"a": {"command": "x", "url": "http://h/"}}}`, "both a command and a url"},
		{`{"mcpServers": {"a": {"url": "ftp://h/"}}}`, "not an http://"},
		{`{"mcpServers": {"a": {"command": 3}}}`, `server "a"`},
	} {
		_, err := ParseConfig([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}
