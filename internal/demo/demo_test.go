package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"edgechat/reply"
)

func TestEngineStreamsAndStops(t *testing.T) {
	ch, err := Engine{}.Generate(context.Background(), reply.Request{Thinking: true, Messages: []reply.Message{{Role: "user", Content: "Hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := reply.Collect(context.Background(), ch)
	if c.Summary.FinishReason != reply.FinishStop || !strings.Contains(c.Text, "Prefill") || c.Thinking == "" {
		t.Errorf("reply %q thinking %q summary %+v", c.Text, c.Thinking, c.Summary)
	}

	ctx, cancel := context.WithCancel(context.Background())
	ch, _ = Engine{}.Generate(ctx, reply.Request{Messages: []reply.Message{{Role: "user", Content: "Hi"}}})
	time.AfterFunc(800*time.Millisecond, cancel)
	if c := reply.Collect(ctx, ch); c.Summary.FinishReason != reply.FinishCancelled {
		t.Errorf("after cancel: finish %q", c.Summary.FinishReason)
	}
}

// Offered echo, the demo engine calls it; given its result, it quotes it.
func TestDemoToolCall(t *testing.T) {
	req := reply.Request{Messages: []reply.Message{{Role: "user", Content: "Use the tool"}}, Tools: []reply.Tool{{Name: "echo"}}}
	ch, _ := Engine{}.Generate(t.Context(), req)
	c := reply.Collect(t.Context(), ch)
	if c.Summary.FinishReason != reply.FinishToolCalls || len(c.ToolCalls) != 1 || c.ToolCalls[0].Name != "echo" {
		t.Fatalf("%+v %+v", c.Summary, c.ToolCalls)
	}
	req.Messages = append(req.Messages, reply.Message{Role: "assistant", ToolCalls: c.ToolCalls},
		reply.Message{Role: "tool", Content: "Echo: Hello from EdgeChat", ToolCallID: c.ToolCalls[0].ID})
	ch, _ = Engine{}.Generate(t.Context(), req)
	if c := reply.Collect(t.Context(), ch); !strings.Contains(c.Text, "Echo: Hello from EdgeChat") {
		t.Errorf("answer %q", c.Text)
	}
}
