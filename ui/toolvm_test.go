package ui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"edgechat/reply"
)

// fakeTools is a tool host with one tool, echo; crash makes its calls fail as a crashed
// server's do.
type fakeTools struct {
	mu    sync.Mutex
	calls []string
	crash bool
}

func (f *fakeTools) Tools(context.Context) ([]reply.Tool, []error) {
	return []reply.Tool{{Name: "echo", Description: "Echoes back the input", Parameters: json.RawMessage(`{"type":"object"}`)}},
		[]error{errors.New("MCP server broken: cannot start /no/such/program")}
}

func (f *fakeTools) Call(_ context.Context, name string, args json.RawMessage) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name+string(args))
	if f.crash {
		return "", false, errors.New("MCP server everything: the server stopped (exit status 3)")
	}
	var a struct{ Message string }
	json.Unmarshal(args, &a)
	return "Echo: " + a.Message, false, nil
}

func (f *fakeTools) Server(string) string { return "everything" }

func (f *fakeTools) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// toolModel calls echo when offered tools and no result is in yet, then answers with the
// result it read.
func toolModel(ctx context.Context, req reply.Request, out chan<- reply.Event) {
	last := req.Messages[len(req.Messages)-1]
	if len(req.Tools) > 0 && last.Role != "tool" {
		out <- reply.Event{Kind: reply.EventToolCall, Tool: &reply.ToolCallPart{Index: 0, ID: "call_1", Name: "echo"}}
		out <- reply.Event{Kind: reply.EventToolCall, Tool: &reply.ToolCallPart{Index: 0, Arguments: `{"message":"hi"}`}}
		out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishToolCalls}}
		return
	}
	out <- text("The tool said: " + last.Content)
	out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: "stop"}}
}

func newToolChat(t *testing.T, host *fakeTools) (*ChatVM, *fakeEngine) {
	vm, eng, _ := newTestChat(t, toolModel)
	vm.deps.Tools = func() ToolHost { return host }
	return vm, eng
}

// pendingCall waits for the reply's tool call to ask for approval.
func pendingCall(t *testing.T, vm *ChatVM) *ToolCallVM {
	t.Helper()
	var tc *ToolCallVM
	waitFor(t, "a tool call waiting for approval", func() bool {
		ms := messages(vm)
		calls, _ := ms[len(ms)-1].ToolCalls.Get()
		if len(calls) == 0 {
			return false
		}
		tc = calls[len(calls)-1]
		return get[bool](tc.Pending)
	})
	return tc
}

func lastAnswer(vm *ChatVM) *MessageVM {
	ms := messages(vm)
	return ms[len(ms)-1]
}

func TestToolCallAllowOnceAndAlways(t *testing.T) {
	host := &fakeTools{}
	vm, eng := newToolChat(t, host)
	if err := vm.Send("Say hi through the tool"); err != nil {
		t.Fatal(err)
	}
	tc := pendingCall(t, vm)
	if tc.Name != "echo" || tc.Server != "everything" || tc.Arguments != `{"message":"hi"}` || get[string](tc.State) != "Waiting for your approval" {
		t.Fatalf("call %+v state %q", tc, get[string](tc.State))
	}
	if host.count() != 0 {
		t.Fatal("the tool ran before it was approved")
	}
	tc.Decide(AllowOnce)
	waitIdle(t, vm)
	if got := get[string](tc.Result); got != "Echo: hi" || get[string](tc.State) != "Done" || get[string](tc.Took) == "" {
		t.Errorf("result %q state %q took %q", got, get[string](tc.State), get[string](tc.Took))
	}
	m := lastAnswer(vm)
	if got := m.Answer.Text(); got != "The tool said: Echo: hi" {
		t.Errorf("answer %q", got)
	}
	if notes := get[string](m.Notes); !strings.Contains(notes, "MCP server broken") {
		t.Errorf("the server that failed is not reported: %q", notes)
	}
	req := eng.last()
	tool := req.Messages[len(req.Messages)-1]
	call := req.Messages[len(req.Messages)-2]
	if tool.Role != "tool" || tool.Content != "Echo: hi" || tool.ToolCallID != "call_1" || len(call.ToolCalls) != 1 || call.Role != "assistant" {
		t.Errorf("the result went back as %+v after %+v", tool, call)
	}

	// Always for this tool: the next call runs without asking.
	if err := vm.Send("Again"); err != nil {
		t.Fatal(err)
	}
	tc = pendingCall(t, vm)
	// The next turn's request holds the first turn's call and result as the model saw them.
	eng.mu.Lock()
	second := eng.reqs[2]
	eng.mu.Unlock()
	var roles []string
	for _, m := range second.Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,assistant,user" || second.Messages[3].Content != "Echo: hi" || second.Messages[2].ToolCalls[0].ID != "call_1" {
		t.Errorf("the second turn's request: %s %+v", got, second.Messages)
	}
	tc.Decide(AllowAlways)
	waitIdle(t, vm)
	if err := vm.Send("And again"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	calls, _ := lastAnswer(vm).ToolCalls.Get()
	if len(calls) != 1 || get[bool](calls[0].Pending) || get[string](calls[0].State) != "Done" || host.count() != 3 {
		t.Errorf("an always-allowed call: %d calls, state %q, %d runs", len(calls), get[string](calls[0].State), host.count())
	}

	// Saved with the conversation, and shown again when it is opened.
	c := vm.Snapshot()
	if r := c.Messages[1].ToolCalls; len(r) != 1 || r[0].Name != "echo" || r[0].Result != "Echo: hi" || r[0].State != "Done" || r[0].Arguments != `{"message":"hi"}` {
		t.Fatalf("saved calls %+v", r)
	}
	id := c.ID
	vm.NewChat()
	if err := vm.Open(id); err != nil {
		t.Fatal(err)
	}
	calls, _ = messages(vm)[1].ToolCalls.Get()
	if len(calls) != 1 || get[string](calls[0].Result) != "Echo: hi" || get[bool](calls[0].Pending) {
		t.Errorf("reopened: %d calls", len(calls))
	}
}

func TestToolCallDeniedTimedOutOrCrashed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		act    func(*ToolCallVM)
		crash  bool
		state  string
		answer string
	}{
		{"deny", func(c *ToolCallVM) { c.Decide(Deny) }, false, "Denied", "denied this call of echo"},
		{"timeout", nil, false, "Denied", "denied this call of echo"},
		{"crash", func(c *ToolCallVM) { c.Decide(AllowOnce) }, true, "Failed", "the tool could not run: MCP server everything: the server stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := &fakeTools{crash: tc.crash}
			vm, _ := newToolChat(t, host)
			vm.ApprovalTimeout = 50 * time.Millisecond
			if tc.act == nil {
				vm.ApprovalTimeout = 20 * time.Millisecond
			} else {
				vm.ApprovalTimeout = time.Minute
			}
			vm.Send("Use the tool")
			var call *ToolCallVM
			if tc.act != nil {
				call = pendingCall(t, vm)
				tc.act(call)
			}
			waitIdle(t, vm)
			m := lastAnswer(vm)
			calls, _ := m.ToolCalls.Get()
			call = calls[0]
			if got := get[string](call.State); got != tc.state {
				t.Errorf("state %q, want %q", got, tc.state)
			}
			if got := m.Answer.Text(); !strings.Contains(got, tc.answer) {
				t.Errorf("answer %q, want it to hold %q", got, tc.answer)
			}
			if tc.act == nil && !strings.Contains(get[string](call.Result), "No answer within") {
				t.Errorf("a timed-out approval: %q", get[string](call.Result))
			}
			if !tc.crash && host.count() != 0 {
				t.Error("a denied tool ran")
			}
			if get[bool](vm.Generating) {
				t.Error("the chat is still busy")
			}
		})
	}
}

// Tools are off until the user adds a server: no host, no tools in the request.
func TestNoToolsWithoutServers(t *testing.T) {
	vm, eng := newToolChat(t, nil)
	vm.deps.Tools = func() ToolHost { return nil }
	vm.Send("Hi")
	waitIdle(t, vm)
	if req := eng.last(); len(req.Tools) != 0 {
		t.Errorf("tools offered without a server: %v", req.Tools)
	}
}
