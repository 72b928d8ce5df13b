package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2/data/binding"

	"edgechat/history"
	"edgechat/reply"
)

// ToolHost runs the tools of the MCP servers the user added (package mcp through
// NewMCPTools). Servers start on the first use.
type ToolHost interface {
	// Tools lists the tools to offer; a server that failed is in the errors.
	Tools(ctx context.Context) ([]reply.Tool, []error)
	// Call runs a tool: its result as text, whether the tool reported failure, or why it
	// could not run (a crash, a hang past the timeout).
	Call(ctx context.Context, name string, args json.RawMessage) (string, bool, error)
	// Server names the server of a tool.
	Server(tool string) string
}

// Decision is the user's answer to a tool call.
type Decision int

// The answers to a tool call's approval.
const (
	AllowOnce Decision = iota + 1
	AllowAlways
	Deny
)

// DefaultApprovalTimeout is how long a call waits for the user before it is denied.
const DefaultApprovalTimeout = 2 * time.Minute

// maxToolRounds bounds the replies that call tools within one answer.
const maxToolRounds = 8

// ToolCallVM is one tool call shown in the conversation: its name and arguments, whether it
// waits for approval, runs or ended, its result and how long it took.
type ToolCallVM struct {
	ID, Name, Server, Arguments string
	State                       binding.String // "Waiting for your approval", "Running…", "Done", "Denied", "Failed"
	Result                      binding.String
	Took                        binding.String
	Pending                     binding.Bool // the approval buttons show

	once   sync.Once
	decide chan Decision
}

// savedToolCall shows a call of a saved reply (decided and ended).
func savedToolCall(r history.ToolRun) *ToolCallVM {
	t := newToolCallVM(r.Name, r.Server, r.Arguments)
	t.ID = r.ID
	_ = t.State.Set(r.State)
	_ = t.Result.Set(r.Result)
	if r.Millis > 0 {
		_ = t.Took.Set(fmt.Sprintf("%.2f s", r.Millis/1000))
	}
	t.once.Do(func() {}) // nothing left to decide
	return t
}

// run is the call as the conversation saves it.
func (t *ToolCallVM) run(ms float64) history.ToolRun {
	return history.ToolRun{ID: t.ID, Name: t.Name, Server: t.Server, Arguments: t.Arguments,
		State: get[string](t.State), Result: get[string](t.Result), Millis: ms}
}

// toolMessages are a saved reply's calls as the model saw them: its assistant turn with the
// calls, then one tool message per result (what the model read: the result, or why there was
// none).
func toolMessages(m history.Message) []reply.Message {
	if len(m.ToolCalls) == 0 {
		return nil
	}
	call := reply.Message{Role: "assistant"}
	var results []reply.Message
	for _, r := range m.ToolCalls {
		args := json.RawMessage(r.Arguments)
		if !json.Valid(args) {
			args = json.RawMessage("{}")
		}
		call.ToolCalls = append(call.ToolCalls, reply.ToolCall{ID: r.ID, Name: r.Name, Arguments: args})
		results = append(results, reply.Message{Role: "tool", Content: toolMessageText(r), ToolCallID: r.ID, Name: r.Name})
	}
	return append([]reply.Message{call}, results...)
}

// toolMessageText is what the model reads of a call.
func toolMessageText(r history.ToolRun) string {
	switch r.State {
	case "Denied":
		return fmt.Sprintf("The user denied this call of %s; it did not run.", r.Name)
	case "Failed":
		if !strings.HasPrefix(r.Result, "Error") {
			return "Error: " + r.Result
		}
	}
	return r.Result
}

func newToolCallVM(name, server, args string) *ToolCallVM {
	return &ToolCallVM{Name: name, Server: server, Arguments: args, State: binding.NewString(), Result: binding.NewString(),
		Took: binding.NewString(), Pending: binding.NewBool(), decide: make(chan Decision, 1)}
}

// Decide answers the approval (the buttons call it; later answers are ignored).
func (t *ToolCallVM) Decide(d Decision) {
	t.once.Do(func() {
		_ = t.Pending.Set(false)
		t.decide <- d
	})
}

// toolHost returns the tool host when the user added MCP servers (a chat, not a completion).
func (vm *ChatVM) toolHost(complete bool) ToolHost {
	if complete || vm.deps.Tools == nil {
		return nil
	}
	return vm.deps.Tools()
}

// replyWithTools runs on its own goroutine: it starts the servers and lists their tools
// (a server that fails is a note of the reply, the others' tools are offered), then streams
// the reply through toolLoop.
func (vm *ChatVM) replyWithTools(ctx context.Context, host ToolHost, req reply.Request, saver Autosaver, mvm *MessageVM, done chan struct{}) {
	_ = mvm.Status.Set("Starting the tool servers…")
	tools, errs := host.Tools(ctx)
	for _, err := range errs {
		mvm.addNote(err.Error())
	}
	req.Tools = tools
	_ = mvm.Status.Set("Starting…")
	ch, err := vm.deps.Engine.Generate(ctx, req)
	if err != nil {
		defer close(done)
		vm.finish(saver, mvm, &reply.Summary{FinishReason: reply.FinishError, Err: err}, done)
		return
	}
	if len(tools) > 0 {
		out := make(chan reply.Event)
		go vm.toolLoop(ctx, host, req, ch, saver, mvm, out)
		ch = out
	}
	vm.consume(ctx, ch, saver, mvm, done)
}

// toolLoop forwards the engine's events to out; a reply that ends by calling tools has them
// run (each approved by the user, or denied) and their results sent back as tool messages,
// and the next reply's events follow, until a reply calls none. Only the last Done is
// forwarded. It closes out.
func (vm *ChatVM) toolLoop(ctx context.Context, host ToolHost, req reply.Request, ch <-chan reply.Event, saver Autosaver, mvm *MessageVM, out chan<- reply.Event) {
	defer close(out)
	send := func(ev reply.Event) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for round := 1; ; round++ {
		var calls reply.ToolCalls
		var text string
		var done *reply.Summary
		for ev := range ch {
			switch ev.Kind {
			case reply.EventToolCall:
				if ev.Tool != nil {
					_ = calls.Add(*ev.Tool)
				}
				continue
			case reply.EventText:
				text += ev.Text
			case reply.EventDone:
				done = ev.Done
				continue
			}
			if !send(ev) {
				return
			}
		}
		cs := calls.Calls()
		if done == nil || done.FinishReason != reply.FinishToolCalls || len(cs) == 0 || round == maxToolRounds || ctx.Err() != nil {
			if done != nil && done.FinishReason == reply.FinishToolCalls && round == maxToolRounds {
				mvm.addNote(fmt.Sprintf("Stopped after %d replies that called tools.", maxToolRounds))
			}
			send(reply.Event{Kind: reply.EventDone, Done: done})
			return
		}
		req.Messages = append(req.Messages, reply.Message{Role: "assistant", Content: text, ToolCalls: cs})
		for _, c := range cs {
			result, run := vm.runCall(ctx, host, mvm, c)
			saver.Update(func(conv *history.Conversation) {
				if m := findMessage(conv, mvm.ID); m != nil {
					m.ToolCalls = append(m.ToolCalls, run)
				}
			})
			// The result is data in a tool message: the engine tokenizes it as text.
			req.Messages = append(req.Messages, reply.Message{Role: "tool", Content: result, ToolCallID: c.ID, Name: c.Name})
		}
		req.ToolChoice = reply.ToolChoice{}
		_ = mvm.Status.Set("Reading the tool results…")
		next, err := vm.deps.Engine.Generate(ctx, req)
		if err != nil {
			send(reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishError, Err: err}})
			return
		}
		ch = next
	}
}

// runCall shows a call, asks for approval unless the tool is always allowed, runs it and
// returns the text of its tool message and the call as the conversation saves it.
func (vm *ChatVM) runCall(ctx context.Context, host ToolHost, mvm *MessageVM, c reply.ToolCall) (string, history.ToolRun) {
	tc := newToolCallVM(c.Name, host.Server(c.Name), string(c.Arguments))
	tc.ID = c.ID
	text, ms := vm.decideAndRun(ctx, host, mvm, tc, c)
	return text, tc.run(ms)
}

func (vm *ChatVM) decideAndRun(ctx context.Context, host ToolHost, mvm *MessageVM, tc *ToolCallVM, c reply.ToolCall) (string, float64) {
	mvm.addToolCall(tc)
	vm.mu.Lock()
	always := vm.alwaysAllowed[c.Name]
	vm.mu.Unlock()
	if !always {
		_ = mvm.Status.Set("") // no progress bar while the user decides
		_ = tc.State.Set("Waiting for your approval")
		_ = tc.Pending.Set(true)
		if vm.onApproval != nil {
			vm.onApproval(tc)
		}
		timeout := vm.ApprovalTimeout
		if timeout <= 0 {
			timeout = DefaultApprovalTimeout
		}
		var d Decision
		select {
		case d = <-tc.decide:
		case <-time.After(timeout):
			tc.Decide(Deny)
			d = <-tc.decide
			_ = tc.Result.Set(fmt.Sprintf("No answer within %s: the call was denied.", timeout))
		case <-ctx.Done():
			tc.Decide(Deny)
			d = <-tc.decide
		}
		switch d {
		case AllowAlways:
			vm.mu.Lock()
			if vm.alwaysAllowed == nil {
				vm.alwaysAllowed = map[string]bool{}
			}
			vm.alwaysAllowed[c.Name] = true
			vm.mu.Unlock()
		case Deny:
			_ = tc.State.Set("Denied")
			return fmt.Sprintf("The user denied this call of %s; it did not run.", c.Name), 0
		}
	}
	_ = tc.State.Set("Running…")
	_ = mvm.Status.Set("Running " + c.Name + "…")
	start := time.Now()
	text, isError, err := host.Call(ctx, c.Name, c.Arguments)
	ms := float64(time.Since(start).Microseconds()) / 1000
	_ = tc.Took.Set(fmt.Sprintf("%.2f s", ms/1000))
	switch {
	case err != nil:
		_ = tc.State.Set("Failed")
		_ = tc.Result.Set(err.Error())
		return "Error: the tool could not run: " + err.Error(), ms
	case isError:
		_ = tc.State.Set("Failed")
	default:
		_ = tc.State.Set("Done")
	}
	_ = tc.Result.Set(text)
	return text, ms
}
