package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"edgechat/documents"
	"edgechat/mcp"
	"edgechat/reply"
)

// maxToolRounds bounds the replies of one generate --mcp-config: a model that calls tools
// round after round is stopped with a notice.
const maxToolRounds = 8

// Approval modes of --approve-tools.
const (
	approveAsk  = "ask"
	approveAll  = "all"
	approveNone = "none"
)

// toolFlags are generate's MCP flags.
type toolFlags struct {
	mcpConfig, approve, toolChoice string
}

func (f *toolFlags) registerTools(fsRegister func(p *string, name, value, usage string)) {
	fsRegister(&f.mcpConfig, "mcp-config", "", "an mcp.json naming MCP servers ({\"mcpServers\": {NAME: {\"command\",\"args\",\"env\"} | {\"url\",\"headers\"}}}) whose tools the model may call")
	fsRegister(&f.approve, "approve-tools", "", "with --mcp-config: all runs every call, none denies them; default: ask y/n on the terminal (denied when stdin is not one)")
	fsRegister(&f.toolChoice, "tool-choice", "", "with --mcp-config: auto (the model decides), required (it must call a tool) or a tool's NAME, for the first reply (default auto)")
}

// check refuses tool flags that cannot work, before the model loads.
func (f *toolFlags) checkTools(raw bool) error {
	if f.mcpConfig == "" {
		if f.approve != "" || f.toolChoice != "" {
			return errors.New("--approve-tools and --tool-choice go with --mcp-config FILE, the MCP servers whose tools the model may call")
		}
		return nil
	}
	if raw {
		return errors.New("--raw continues a text without a chat template; tools need one: leave out --raw or --mcp-config")
	}
	if f.approve != "" && f.approve != approveAll && f.approve != approveNone && f.approve != approveAsk {
		return fmt.Errorf("--approve-tools %s: choose all, none or ask", f.approve)
	}
	return nil
}

// toolRun is one tool call as --json lists it.
type toolRun struct {
	Name      string          `json:"name"`
	Server    string          `json:"server,omitempty"`
	Arguments json.RawMessage `json:"arguments"`
	Result    string          `json:"result"`
	IsError   bool            `json:"is_error,omitempty"`
	Denied    bool            `json:"denied,omitempty"`
	Millis    float64         `json:"ms"`
}

// generator is what the tool loop asks for replies (the documents engine before the model).
type generator interface {
	Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error)
}

var _ generator = (*documents.Engine)(nil)

// runTools answers with the MCP servers' tools: each reply that calls tools has them run (as
// approved) and their results sent back as tool messages, until a reply calls none.
func (g *generateFlags) runTools(ctx context.Context, env Env, gen generator, req reply.Request) error {
	cfg, err := mcp.LoadConfig(g.mcpConfig)
	if err != nil {
		return err
	}
	host := mcp.NewHost(cfg)
	defer host.Close()
	if len(host.Servers()) == 0 {
		return fmt.Errorf("%s names no enabled MCP server", g.mcpConfig)
	}
	offered, errs := host.Tools(ctx)
	for _, err := range errs {
		fmt.Fprintf(env.Stderr, "[notice] %v\n", err)
	}
	if len(offered) == 0 {
		return errors.New("no MCP server offered a tool: see the notices above")
	}
	req.Tools, errs = mcp.ReplyTools(offered)
	for _, err := range errs {
		fmt.Fprintf(env.Stderr, "[notice] %v\n", err)
	}
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	switch c := g.toolChoice; {
	case c == "" || c == reply.ToolAuto:
	case c == reply.ToolRequired:
		req.ToolChoice = reply.ToolChoice{Mode: reply.ToolRequired}
	case slices.Contains(names, c):
		req.ToolChoice = reply.ToolChoice{Mode: reply.ToolFunction, Name: c}
	default:
		return fmt.Errorf("--tool-choice %s: no server offers a tool of that name; the tools are %s", c, strings.Join(names, ", "))
	}
	ap := newApprover(env, g.approve)
	var runs []toolRun
	for round := 1; ; round++ {
		events, err := gen.Generate(ctx, req)
		if err != nil {
			return err
		}
		p := printStream(ctx, env, events, g.asJSON, &runs)
		if p.final.FinishReason == reply.FinishError {
			return p.final.Err
		}
		if p.final.FinishReason != reply.FinishToolCalls || len(p.calls) == 0 {
			return nil
		}
		if round == maxToolRounds {
			fmt.Fprintf(env.Stderr, "[notice] stopped after %d replies that called tools\n", maxToolRounds)
			return nil
		}
		req.Messages = append(req.Messages, reply.Message{Role: "assistant", Content: p.text, Thinking: p.thinking, ToolCalls: p.calls})
		for _, call := range p.calls {
			run := runTool(ctx, host, ap, call)
			runs = append(runs, run)
			if !g.asJSON {
				fmt.Fprintf(env.Stderr, "[tool] %s %s → %s (%.0f ms)\n", run.Name, run.Arguments, oneLine(run.Result, 300), run.Millis)
			}
			// The result is data in a tool message: the engine tokenizes its text as text,
			// whatever control tokens it may spell.
			req.Messages = append(req.Messages, reply.Message{Role: "tool", Content: run.Result, ToolCallID: call.ID, Name: call.Name})
		}
		// A forced choice holds for the first reply; after the results the model may answer.
		req.ToolChoice = reply.ToolChoice{}
	}
}

// runTool runs one call if it is approved.
func runTool(ctx context.Context, host *mcp.Host, ap *approver, call reply.ToolCall) toolRun {
	run := toolRun{Name: call.Name, Arguments: call.Arguments}
	tool, ok := host.Tool(call.Name)
	if !ok {
		run.Result, run.IsError = fmt.Sprintf("Error: there is no tool named %s", call.Name), true
		return run
	}
	run.Server = tool.Server
	if !ap.allow(tool, call) {
		run.Result, run.Denied = fmt.Sprintf("The user denied this call of %s; it did not run.", call.Name), true
		return run
	}
	start := time.Now()
	res, err := host.Call(ctx, call.Name, call.Arguments)
	run.Millis = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		run.Result, run.IsError = "Error: the tool could not run: "+err.Error(), true
		return run
	}
	run.Result, run.IsError = res.Text(), res.IsError
	return run
}

// approver decides whether a call runs: always, never, or by asking on the terminal (y, n,
// or a for always this tool).
type approver struct {
	mode   string
	in     *bufio.Reader
	out    io.Writer
	always map[string]bool
}

func newApprover(env Env, mode string) *approver {
	a := &approver{mode: mode, out: env.Stderr, always: map[string]bool{}}
	if mode == "" {
		mode = approveNone
		if isTerminal(env.Stdin) {
			mode = approveAsk
		} else {
			fmt.Fprintln(env.Stderr, "[notice] tool calls are denied: stdin is not a terminal to ask on; pass --approve-tools all to allow them")
		}
		a.mode = mode
	}
	if a.mode == approveAsk {
		a.in = bufio.NewReader(env.Stdin)
	}
	return a
}

func (a *approver) allow(t mcp.Tool, call reply.ToolCall) bool {
	switch {
	case a.mode == approveAll || a.always[call.Name]:
		return true
	case a.mode == approveNone:
		return false
	}
	fmt.Fprintf(a.out, "Allow the tool %s (MCP server %s) with %s? [y]es once, [a]lways for this tool, [N]o: ", call.Name, t.Server, oneLine(string(call.Arguments), 500))
	line, _ := a.in.ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	case "a", "always":
		a.always[call.Name] = true
		return true
	}
	return false
}

// isTerminal says whether r is a character device (a console), not a pipe or file.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n]) + "…"
	}
	return s
}
