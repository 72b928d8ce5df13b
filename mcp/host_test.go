package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestHost(t *testing.T) {
	ok := fakeServer(t, "one", "ok")
	two := fakeServer(t, "two", "ok")
	crashy := fakeServer(t, "crashy", "crash")
	bad := ServerConfig{Name: "missing", Command: "/no/such/program"}
	h := NewHost(Config{Servers: []ServerConfig{ok, two, crashy, bad}})
	defer h.Close()
	if h.Running("one") {
		t.Fatal("a server started before it was used")
	}
	tools, errs := h.Tools(t.Context())
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "missing") {
		t.Errorf("errors %v, want the missing server's", errs)
	}
	var offered []string
	for _, o := range tools {
		offered = append(offered, o.Offered)
	}
	// The same tools on three servers: the first keeps the names, the others are prefixed.
	want := "add,echo,slow,two_add,two_echo,two_slow,crashy_add,crashy_echo,crashy_slow"
	if got := strings.Join(offered, ","); got != want {
		t.Errorf("offered %s\nwant    %s", got, want)
	}
	r, err := h.Call(t.Context(), "two_add", json.RawMessage(`{"a":1,"b":2}`))
	if err != nil || r.Text() != "3" {
		t.Errorf("two_add: %v %v", r, err)
	}
	if _, err := h.Call(t.Context(), "crashy_echo", json.RawMessage(`{"message":"x"}`)); err == nil || !strings.Contains(err.Error(), "crashy") {
		t.Errorf("a crash: %v", err)
	}
	if h.Running("crashy") {
		t.Error("the crashed server is still counted as running")
	}
	// The others go on, and the crashed one is started again on the next use.
	if r, err := h.Call(t.Context(), "echo", json.RawMessage(`{"message":"still here"}`)); err != nil || r.Text() != "still here" {
		t.Errorf("after a crash: %v %v", r, err)
	}
	if _, err := h.Call(t.Context(), "crashy_add", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("the crashed server started again: %v", err)
	}
	if _, err := h.Call(t.Context(), "nope", nil); err == nil {
		t.Error("an unknown tool was called")
	}
	h.Close()
	if h.Running("one") {
		t.Error("a server runs after Close")
	}
}
