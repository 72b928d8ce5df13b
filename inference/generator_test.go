package inference

import (
	"context"
	"errors"
	"strings"
	"testing"

	"edgechat/reply"
)

// fakeGen is a Generator whose behaviour is a function.
type fakeGen func(ctx context.Context, req reply.Request, out chan<- reply.Event)

func (f fakeGen) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	out := make(chan reply.Event, 8)
	go func() {
		defer close(out)
		f(ctx, req, out)
	}()
	return out, nil
}

func TestRemoteRouteServesAndFallsBack(t *testing.T) {
	up := fakeGen(func(ctx context.Context, req reply.Request, out chan<- reply.Event) {
		out <- reply.Event{Kind: reply.EventText, Text: "from afar"}
		out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishStop, Backend: "remote", GeneratedTokens: 2}}
	})
	down := fakeGen(func(ctx context.Context, req reply.Request, out chan<- reply.Event) {
		out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{FinishReason: reply.FinishError, Err: errors.New("connection refused by 127.0.0.1:9")}}
	})
	cpu := fakeRoute(t, "cpu", 512)

	e := fakeEngine(t, decoderOf(fakeDecoder{}), Config{}, RouteConfig{Name: "remote", Generator: up}, cpu)
	evs, s := collect(t, e, context.Background(), greedy("Hi", 4))
	if a, _ := replyText(evs); a != "from afar" || s.Backend != "remote" {
		t.Fatalf("remote route: %q via %q", a, s.Backend)
	}

	e = fakeEngine(t, decoderOf(fakeDecoder{}), Config{}, RouteConfig{Name: "remote", Generator: down}, cpu)
	for range 2 { // a remote failure is retried on the next message
		_, s = collect(t, e, context.Background(), greedy("Hi", 4))
		if s.Backend != "cpu" || !strings.Contains(s.FallbackReason, "connection refused") || s.FinishReason == reply.FinishError {
			t.Fatalf("fallback: %+v", s)
		}
	}
}
