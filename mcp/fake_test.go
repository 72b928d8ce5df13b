package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"
)

// The fake server: the test binary run with EDGECHAT_MCP_FAKE=MODE speaks MCP on its stdin
// and stdout (a real process, for crashes), and fakeServe runs in-process over pipes.
func TestMain(m *testing.M) {
	if mode := os.Getenv("EDGECHAT_MCP_FAKE"); mode != "" {
		fakeServe(os.Stdin, os.Stdout, mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeServer is a configuration that runs the test binary as a fake server in mode.
func fakeServer(t *testing.T, name, mode string) ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Name: name, Command: exe, Env: map[string]string{"EDGECHAT_MCP_FAKE": mode}}
}

// fakeServe answers initialize and tools/list (three pages of tools: add, echo, slow) and
// tools/call per mode:
//   - "ok": echo answers its message, add the sum;
//   - "crash": tools/call writes to stderr and exits with status 3;
//   - "hang": tools/call is never answered;
//   - "badjson": tools/call is answered by a line that is not JSON;
//   - "oldversion": initialize answers protocol revision 2024-01-01.
func fakeServe(r io.Reader, w io.Writer, mode string) {
	lr := newLineReader(r)
	send := func(id json.RawMessage, result any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
		w.Write(append(b, '\n'))
	}
	for {
		m, err := lr.next()
		if err != nil {
			return
		}
		switch m.Method {
		case "initialize":
			v := ProtocolVersion
			if mode == "oldversion" {
				v = "2024-01-01"
			}
			send(m.ID, map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "fake", "version": "1"}})
		case "tools/list":
			var p struct{ Cursor string }
			json.Unmarshal(m.Params, &p)
			page, _ := strconv.Atoi(p.Cursor)
			names := []string{"add", "echo", "slow"}
			res := map[string]any{"tools": []any{map[string]any{"name": names[page], "description": "fake " + names[page],
				"inputSchema": map[string]any{"type": "object"}}}}
			if page < 2 {
				res["nextCursor"] = strconv.Itoa(page + 1)
			}
			send(m.ID, res)
		case "tools/call":
			switch mode {
			case "crash":
				fmt.Fprintln(os.Stderr, "fake: out of cheese")
				os.Exit(3)
			case "hang":
				continue
			case "badjson":
				io.WriteString(w, "this is not json\n")
				continue
			}
			var p struct {
				Name      string
				Arguments map[string]any
			}
			json.Unmarshal(m.Params, &p)
			text := fmt.Sprint(p.Arguments["message"])
			if p.Name == "add" {
				text = fmt.Sprint(p.Arguments["a"].(float64) + p.Arguments["b"].(float64))
			}
			send(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
		case "ping":
			send(m.ID, map[string]any{})
		}
	}
}

// pipeClient connects to fakeServe running in-process.
func pipeClient(t *testing.T, mode string) *Client {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go func() { fakeServe(sr, sw, mode); sw.Close() }()
	c := &Client{Name: "fake-" + mode, t: newStdio("fake-"+mode, cr, cw), CallTimeout: 300 * time.Millisecond}
	if err := c.initialize(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
