package enginetest

import (
	"context"
	"strings"
	"testing"

	"edgechat/reply"
)

// Generator is what Collect drives: the engine, a route's generator, a remote client.
type Generator interface {
	Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error)
}

// Ptr returns a pointer to v (for optional sampling fields).
func Ptr[T any](v T) *T { return &v }

// Greedy is a one-message request for a deterministic reply of at most maxTokens.
func Greedy(prompt string, maxTokens int) reply.Request {
	return reply.Request{
		Messages:  []reply.Message{{Role: "user", Content: prompt}},
		MaxTokens: maxTokens,
		Sampling:  reply.Sampling{Temperature: Ptr(0.0)},
	}
}

// Collect runs a request to the end and returns its events and summary, failing the test
// when the stream breaks the contract: exactly one done event, and it comes last.
func Collect(t testing.TB, g Generator, ctx context.Context, req reply.Request) ([]reply.Event, *reply.Summary) {
	t.Helper()
	ch, err := g.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var evs []reply.Event
	var sum *reply.Summary
	for ev := range ch {
		evs = append(evs, ev)
		if ev.Kind == reply.EventDone {
			if sum != nil {
				t.Fatal("two done events")
			}
			sum = ev.Done
		}
	}
	if sum == nil {
		t.Fatal("stream closed without a done event")
	}
	if evs[len(evs)-1].Kind != reply.EventDone {
		t.Fatal("done is not the last event")
	}
	return evs, sum
}

// Text joins a reply's answer and thinking text.
func Text(evs []reply.Event) (answer, thinking string) {
	var a, th strings.Builder
	for _, ev := range evs {
		switch ev.Kind {
		case reply.EventText:
			a.WriteString(ev.Text)
		case reply.EventThinking:
			th.WriteString(ev.Text)
		}
	}
	return a.String(), th.String()
}

// CloseMidReply asks g for an endless reply, closes the engine (close) once its first text
// has come while the reply is still running, and returns the reply's summary once both are
// done.
func CloseMidReply(t testing.TB, g Generator, close func()) *reply.Summary {
	t.Helper()
	ch, err := g.Generate(context.Background(), Greedy("Write forever", 1_000_000))
	if err != nil {
		t.Fatal(err)
	}
	for ev := range ch {
		if ev.Kind == reply.EventText || ev.Kind == reply.EventThinking {
			break
		}
	}
	closed := make(chan struct{})
	go func() { close(); closed <- struct{}{} }()
	var sum *reply.Summary
	for ev := range ch {
		if ev.Kind == reply.EventDone {
			sum = ev.Done
		}
	}
	<-closed
	return sum
}
