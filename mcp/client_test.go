package mcp

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"edgechat/internal/testkit/testenv"
)

// everything is the reference server-everything over stdio.
func everything(t *testing.T) ServerConfig {
	node, scope := testenv.MCPServers(t)
	return ServerConfig{Name: "everything", Command: node, Args: []string{filepath.Join(scope, "server-everything", "dist", "index.js"), "stdio"}}
}

// filesystem is the reference server-filesystem over stdio, allowed a fresh folder.
func filesystem(t *testing.T) ServerConfig {
	node, scope := testenv.MCPServers(t)
	return ServerConfig{Name: "files", Command: node, Args: []string{filepath.Join(scope, "server-filesystem", "dist", "index.js"), t.TempDir()}}
}

func toolNames(tools []Tool) []string {
	var n []string
	for _, t := range tools {
		n = append(n, t.Name)
	}
	return n
}

func findTool(t *testing.T, tools []Tool, name string) Tool {
	t.Helper()
	for _, x := range tools {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("no tool %q in %v", name, toolNames(tools))
	return Tool{}
}

// checkEverything lists the reference server's tools and calls echo and get-sum.
func checkEverything(t *testing.T, c *Client) {
	t.Helper()
	if c.Server.Name == "" || c.Protocol != ProtocolVersion {
		t.Errorf("handshake: server %+v, protocol %q", c.Server, c.Protocol)
	}
	tools, err := c.ListTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	echo := findTool(t, tools, "echo")
	if echo.Description == "" || !strings.Contains(string(echo.InputSchema), `"message"`) || echo.Server != c.Name {
		t.Errorf("echo: %+v", echo)
	}
	r, err := c.CallTool(t.Context(), "echo", json.RawMessage(`{"message":"hello from Go"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Text(); got != "Echo: hello from Go" || r.IsError {
		t.Errorf("echo: %q (isError %v)", got, r.IsError)
	}
	r, err = c.CallTool(t.Context(), "get-sum", json.RawMessage(`{"a":2,"b":40}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Text(); !strings.Contains(got, "42") {
		t.Errorf("get-sum: %q", got)
	}
	// Arguments the tool's schema refuses: a failed call the model can read, or a refusal.
	r, err = c.CallTool(t.Context(), "get-sum", json.RawMessage(`{"a":"two"}`))
	if err == nil && !r.IsError {
		t.Errorf("get-sum with a string: no error (%q)", r.Text())
	}
	if _, err := c.CallTool(t.Context(), "echo", json.RawMessage(`[1]`)); err == nil {
		t.Error("arguments that are not an object were sent")
	}
}

func TestEverythingStdio(t *testing.T) {
	c, err := Connect(t.Context(), everything(t))
	if err != nil {
		t.Fatal(err)
	}
	checkEverything(t, c)
	pid := c.t.(*stdio)
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-pid.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the server's output did not end after Close")
	}
	t.Logf("closed in %v", time.Since(start))
}

func TestEverythingStreamableHTTP(t *testing.T) {
	node, scope := testenv.MCPServers(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(node, filepath.Join(scope, "server-everything", "dist", "index.js"), "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	stderr := &tail{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stderr.String(), "listening") {
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not start: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	s := ServerConfig{Name: "everything-http", URL: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp", Headers: map[string]string{"X-Edgechat-Test": "1"}}
	c, err := Connect(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !c.t.(*httpTransport).hasSession() {
		t.Error("no Mcp-Session-Id kept from the handshake")
	}
	checkEverything(t, c)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// The session is gone: a new call with its ID is refused with a clear message.
	_, err = c.ListTools(t.Context())
	if err == nil || !strings.Contains(err.Error(), "everything-http") {
		t.Errorf("a call after Close: %v", err)
	}
}

func TestFilesystemServer(t *testing.T) {
	node, scope := testenv.MCPServers(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Connect(t.Context(), ServerConfig{Name: "files", Command: node, Args: []string{filepath.Join(scope, "server-filesystem", "dist", "index.js"), dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.ListTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	findTool(t, tools, "read_text_file")
	args, _ := json.Marshal(map[string]string{"path": filepath.Join(dir, "notes.txt")})
	r, err := c.CallTool(t.Context(), "read_text_file", args)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text(), "the answer is 42") {
		t.Errorf("read_text_file: %q", r.Text())
	}
	// Outside the allowed folder: the tool fails, the server goes on.
	r, err = c.CallTool(t.Context(), "read_text_file", json.RawMessage(`{"path":"/etc/hostname"}`))
	if err == nil && !r.IsError {
		t.Errorf("reading outside the allowed folder: %q", r.Text())
	}
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Errorf("after a failed call: %v", err)
	}
}

func TestPagination(t *testing.T) {
	c := pipeClient(t, "ok")
	tools, err := c.ListTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(toolNames(tools), ","); got != "add,echo,slow" {
		t.Errorf("tools over three pages: %s", got)
	}
}

func TestFaultsInProcess(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{"hang", "did not answer tools/call within 300ms"},
		{"badjson", "not an MCP message"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			c := pipeClient(t, tc.mode)
			start := time.Now()
			_, err := c.CallTool(t.Context(), "echo", json.RawMessage(`{"message":"x"}`))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fake-"+tc.mode) {
				t.Fatalf("error %v, want it to name the server and say %q", err, tc.want)
			}
			if time.Since(start) > 3*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if tc.mode == "hang" && !errors.Is(err, ErrTimeout) {
				t.Errorf("%v is not ErrTimeout", err)
			}
		})
	}
}

func TestCrashedProcess(t *testing.T) {
	c, err := Connect(t.Context(), fakeServer(t, "crashy", "crash"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallTool(t.Context(), "echo", json.RawMessage(`{"message":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "crashy") || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "out of cheese") {
		t.Fatalf("a crash reads %v; want the server's name, exit status and stderr", err)
	}
	if _, err2 := c.ListTools(t.Context()); err2 == nil {
		t.Error("a call to the crashed server succeeded")
	}
}

func TestStartFailures(t *testing.T) {
	_, err := Connect(t.Context(), ServerConfig{Name: "missing", Command: "/no/such/program"})
	if err == nil || !strings.Contains(err.Error(), "missing") || !strings.Contains(err.Error(), "cannot start") {
		t.Errorf("a missing command: %v", err)
	}
	_, err = Connect(t.Context(), fakeServer(t, "old", "oldversion"))
	if err == nil || !strings.Contains(err.Error(), "2024-01-01") {
		t.Errorf("an unknown protocol revision: %v", err)
	}
	// A program that exits at once with a message.
	_, err = Connect(t.Context(), ServerConfig{Name: "quits", Command: "sh", Args: []string{"-c", "echo no config given >&2; exit 2"}})
	if err == nil || !strings.Contains(err.Error(), "no config given") || !strings.Contains(err.Error(), "quits") {
		t.Errorf("a program that quits: %v", err)
	}
}
