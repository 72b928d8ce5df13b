package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
	"edgechat/internal/testkit/testenv"
)

// walkVisible visits o and the visible objects under it.
func walkVisible(o fyne.CanvasObject, visit func(fyne.CanvasObject)) {
	if o == nil || !o.Visible() {
		return
	}
	visit(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walkVisible(c, visit)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			walkVisible(c, visit)
		}
	}
}

func visibleButton(o fyne.CanvasObject, text string) *widget.Button {
	var found *widget.Button
	walkVisible(o, func(c fyne.CanvasObject) {
		if b, ok := c.(*widget.Button); ok && b.Text == text && found == nil {
			found = b
		}
	})
	return found
}

func visibleText(o fyne.CanvasObject) string {
	var b strings.Builder
	walkVisible(o, func(c fyne.CanvasObject) {
		if l, ok := c.(*widget.Label); ok {
			b.WriteString(l.Text + "\n")
		}
	})
	return b.String()
}

// The conversation shows the call with its approval buttons; Allow once runs it and shows
// its result, state and time, and the answer that read it.
func TestToolCallCard(t *testing.T) {
	host := &fakeTools{}
	v, vm, w := newTestChatView(t, toolModel)
	d := newQueuedApp(t) // from here on the reply's widget changes wait for d.run, as on the desktop
	vm.deps.Tools = func() ToolHost { return host }
	asked := make(chan *ToolCallVM, 1)
	vm.onApproval = func(tc *ToolCallVM) { asked <- tc } // the card is drawn by then
	w.Resize(fyne.NewSize(900, 640))
	test.Type(v.Composer, "Say hi through the tool")
	v.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	select {
	case <-asked:
	case <-time.After(5 * time.Second):
		t.Fatal("no call asked for approval")
	}
	d.run()
	allow := visibleButton(w.Content(), "Allow once")
	if allow == nil {
		t.Fatal("no Allow once button")
	}
	if visibleButton(w.Content(), "Always for this tool") == nil || visibleButton(w.Content(), "Deny") == nil {
		t.Fatal("the approval lacks Always for this tool or Deny")
	}
	shown := visibleText(w.Content())
	for _, want := range []string{"Tool echo (MCP server everything)", `{"message":"hi"}`, "Waiting for your approval"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the card does not show %q:\n%s", want, shown)
		}
	}
	test.Tap(allow)
	waitIdle(t, vm)
	d.run()
	shown = visibleText(w.Content())
	if !strings.Contains(shown, "Echo: hi") {
		t.Errorf("no result shown:\n%s", shown)
	}
	if !strings.Contains(shown, "Done") || visibleButton(w.Content(), "Allow once") != nil {
		t.Errorf("after Allow once:\n%s", shown)
	}
}

// With the real server-everything named by the settings' mcp_config: the host offers its
// tools, runs echo, and Settings' Show tools lists them with descriptions.
func TestMCPToolsRealServer(t *testing.T) {
	node, scope := testenv.MCPServers(t)
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{filepath.Join(scope, "server-everything", "dist", "index.js"), "stdio"}}}})
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, cfg, 0o644)
	s := config.Defaults()
	tools := NewMCPTools(func() config.Settings { return s })
	if tools.Host() != nil {
		t.Fatal("tools are on without a server")
	}
	s.MCPConfig = path
	h := tools.Host()
	defer tools.Close()
	offered, errs := h.Tools(t.Context())
	if len(errs) > 0 || len(offered) < 5 {
		t.Fatalf("%d tools, %v", len(offered), errs)
	}
	text, isErr, err := h.Call(t.Context(), "echo", json.RawMessage(`{"message":"from the window"}`))
	if err != nil || isErr || text != "Echo: from the window" || h.Server("echo") != "everything" {
		t.Errorf("echo: %q %v %v", text, isErr, err)
	}

	if got := listTools(path); !strings.Contains(got, "everything (stdio)") || !strings.Contains(got, "• echo — Echoes back the input string") {
		t.Errorf("Show tools:\n%s", got)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"mcpServers": {"x": {}}}`), 0o644)
	if got := listTools(bad); !strings.Contains(got, `"x" has neither a command nor a url`) {
		t.Errorf("a bad file: %s", got)
	}
}
