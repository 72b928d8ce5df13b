package inference

import (
	"context"
	"errors"
	"testing"
	"time"

	"edgechat/inference/chat"
	"edgechat/reply"
)

// A request's rendering stops when the request is cancelled (a client that disconnects), also
// inside a template that would run for long.
func TestRenderStopsWithTheRequest(t *testing.T) {
	tpl, err := chat.New(`{% if messages|length > 50 %}{% for i in range(60000) %}{{ i }}{% endfor %}{% endif %}{% for m in messages %}{{ m.content }}{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{Template: tpl}
	msgs := make([]reply.Message, 60)
	for i := range msgs {
		msgs[i] = reply.Message{Role: "user", Content: "hi"}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err = m.conversation(ctx, msgs, turnOptions{}).from(0)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want the request's cancellation", err)
	}
	if took := time.Since(start); took > time.Second { // the error shows it stopped; this, that it stopped soon (load allowed for)
		t.Errorf("a cancelled render took %v", took)
	}
}
