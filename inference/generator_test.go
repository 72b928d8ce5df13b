package inference

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeGen is a Generator whose behaviour is a function.
type fakeGen func(ctx context.Context, req Request, out chan<- Event)

func (f fakeGen) Generate(ctx context.Context, req Request) (<-chan Event, error) {
	out := make(chan Event, 8)
	go func() {
		defer close(out)
		f(ctx, req, out)
	}()
	return out, nil
}

func TestRemoteRouteServesAndFallsBack(t *testing.T) {
	up := fakeGen(func(ctx context.Context, req Request, out chan<- Event) {
		out <- Event{Kind: EventText, Text: "from afar"}
		out <- Event{Kind: EventDone, Done: &Summary{FinishReason: FinishStop, Backend: "remote", GeneratedTokens: 2}}
	})
	down := fakeGen(func(ctx context.Context, req Request, out chan<- Event) {
		out <- Event{Kind: EventDone, Done: &Summary{FinishReason: FinishError, Err: errors.New("connection refused by 127.0.0.1:9")}}
	})
	cpu := RouteConfig{Name: "cpu", Model: tinyModel(t), LoadOptions: LoadOptions{EP: EP{Name: "cpu"}}}

	e := twoRoutes(t, RouteConfig{Name: "remote", Generator: up}, cpu)
	evs, s := collect(t, e, context.Background(), greedy("Hi", 4))
	if a, _ := replyText(evs); a != "from afar" || s.Backend != "remote" {
		t.Fatalf("remote route: %q via %q", a, s.Backend)
	}

	e = twoRoutes(t, RouteConfig{Name: "remote", Generator: down}, cpu)
	for range 2 { // a remote failure is retried on the next message
		_, s = collect(t, e, context.Background(), greedy("Hi", 4))
		if s.Backend != "cpu" || !strings.Contains(s.FallbackReason, "connection refused") || s.FinishReason == FinishError {
			t.Fatalf("fallback: %+v", s)
		}
	}
}
