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
