package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testkit/testenv"
)

// writeMCPConfig writes an mcp.json naming the real server-everything over stdio.
func writeMCPConfig(t *testing.T) string {
	t.Helper()
	node, scope := testenv.MCPServers(t)
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{filepath.Join(scope, "server-everything", "dist", "index.js"), "stdio"}},
	}})
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// jsonLines runs generate and returns its --json events.
func jsonLines(t *testing.T, stdin string, args ...string) ([]map[string]any, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(append([]string{"generate"}, args...), strings.NewReader(stdin), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var evs []map[string]any
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not JSON: %v: %s", err, sc.Text())
		}
		evs = append(evs, ev)
	}
	return evs, errb.String()
}

// A random-weight model forced to call echo calls the real server-everything's echo tool, its
// result goes back to the model as a tool message, and --json lists the call.
func TestGenerateMCPEcho(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	cfg := writeMCPConfig(t)
	model := writeTinyModel(t)
	base := []string{"--model", model, "--ort-lib", lib, "--prompt", "Echo something", "--temperature", "0", "--max-tokens", "48", "--no-think", "--json",
		"--mcp-config", cfg, "--tool-choice", "echo"}
	for _, tc := range []struct {
		name, stdin string
		args        []string
		denied      bool
	}{
		{"all", "", []string{"--approve-tools", "all"}, false},
		{"asked yes", "y\n", []string{"--approve-tools", "ask"}, false},
		{"no terminal to ask on", "", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, stderr := jsonLines(t, tc.stdin, append(base, tc.args...)...)
			last := evs[len(evs)-1]
			if last["type"] != "done" || last["finish_reason"] == "tool_calls" {
				t.Fatalf("last event %v", last)
			}
			calls, _ := last["tool_calls"].([]any)
			if len(calls) != 1 {
				t.Fatalf("tool_calls %v (stderr %s)", last["tool_calls"], stderr)
			}
			c := calls[0].(map[string]any)
			var args struct{ Message *string }
			b, _ := json.Marshal(c)
			a, _ := json.Marshal(c["arguments"])
			if err := json.Unmarshal(a, &args); err != nil || args.Message == nil || *args.Message == "" {
				t.Fatalf("arguments %s do not hold echo's message: %v", b, err)
			}
			t.Logf("tool call: %s", b)
			if c["name"] != "echo" || c["server"] != "everything" {
				t.Errorf("call %v", c)
			}
			if tc.denied {
				if c["denied"] != true || !strings.Contains(c["result"].(string), "denied") {
					t.Errorf("a denied call: %v", c)
				}
				return
			}
			if want := "Echo: " + *args.Message; c["result"] != want {
				t.Errorf("result %q, want %q", c["result"], want)
			}
			if tc.stdin != "" && !strings.Contains(stderr, "Allow the tool echo (MCP server everything)") {
				t.Errorf("no question asked: %s", stderr)
			}
			// The first reply ended by calling the tool; the next one read its result.
			first := 0
			for _, ev := range evs {
				if ev["type"] == "done" {
					first++
					if first == 1 && ev["finish_reason"] != "tool_calls" {
						t.Errorf("first reply finished %v", ev["finish_reason"])
					}
				}
			}
			if first != 2 {
				t.Errorf("%d replies, want 2", first)
			}
		})
	}
}

func TestGenerateMCPErrors(t *testing.T) {
	cfg := writeMCPConfig(t)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"servers": {}}`), 0o644)
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tool-choice", "echo"}, "go with --mcp-config"},
		{[]string{"--mcp-config", cfg, "--approve-tools", "maybe"}, "choose all, none or ask"},
		{[]string{"--mcp-config", cfg, "--raw"}, "--raw"},
		{[]string{"--mcp-config", bad}, `no "mcpServers"`},
		{[]string{"--mcp-config", cfg, "--tool-choice", "nosuch"}, "the tools are"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"generate", "--model", model, "--ort-lib", lib, "--prompt", "Hi"}, tc.args...)
		if code := Run(args, strings.NewReader(""), &out, &errb); code == 0 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, %s; want %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// The HTTP server never starts MCP servers: serve has no MCP flag (and the layering test
// keeps package mcp out of package server).
func TestServeTakesNoMCPConfig(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run([]string{"serve", "--mcp-config", "mcp.json"}, strings.NewReader(""), &out, &errb); code == 0 || !strings.Contains(errb.String(), "flag provided but not defined: -mcp-config") {
		t.Errorf("serve --mcp-config: exit %d, %s", code, errb.String())
	}
}
