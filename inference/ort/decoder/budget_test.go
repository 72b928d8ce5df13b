package decoder

import (
	"context"
	"errors"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/internal/testkit/synth"
	"edgechat/reply"
)

// shortContext is a tiny model whose context holds 160 tokens.
func shortContext(t testing.TB) string {
	return synthModel(t, "tiny-ctx-160", func(o *synth.Options) { o.MaxPositions = 160 })
}

// No reply budget sizes memory by itself: a budget over the context (up to 2^53, which once
// panicked in makeslice) is cut to the context; a strict request over it is refused before
// anything is generated, as context_length_exceeded.
func TestReplyBudgetOverContext(t *testing.T) {
	e := newTestEngine(t, shortContext(t), nil)
	for _, n := range []int{161, 2147483647, 9007199254740992} {
		_, sum := collect(t, e, context.Background(), greedy("Tell me a long story about the sea.", n))
		if sum.Err != nil || sum.FinishReason != reply.FinishLength {
			t.Fatalf("max_tokens %d: finish %q, error %v; want a reply cut at the context", n, sum.FinishReason, sum.Err)
		}
		if got := sum.PromptTokens + sum.GeneratedTokens; got != 160 {
			t.Errorf("max_tokens %d: prompt + reply = %d tokens, want the context, 160", n, got)
		}

		strict := greedy("Hi", n)
		strict.StrictMaxTokens = true
		evs, sum := collect(t, e, context.Background(), strict)
		if !errors.Is(sum.Err, reply.ErrContextLength) || len(withoutStatus(evs)) != 1 {
			t.Fatalf("strict max_tokens %d: %d events, error %v; want only a Done with ErrContextLength", n, len(evs), sum.Err)
		}
		if !strings.Contains(sum.Err.Error(), "160") {
			t.Errorf("strict max_tokens %d: %q does not say how many tokens the context holds", n, sum.Err)
		}
	}
	strict := greedy("Hi", 100)
	strict.StrictMaxTokens = true
	if _, sum := collect(t, e, context.Background(), strict); sum.Err != nil {
		t.Errorf("strict max_tokens within the context: %v", sum.Err)
	}
}

// A last message over the context is ErrContextLength before any token, and its message
// says it once.
func TestPromptOverContext(t *testing.T) {
	e := newTestEngine(t, shortContext(t), nil)
	evs, sum := collect(t, e, context.Background(), greedy(strings.Repeat("sea and sky ", 200), 10))
	if !errors.Is(sum.Err, reply.ErrContextLength) || len(withoutStatus(evs)) != 1 {
		t.Fatalf("events %+v, error %v; want only a Done with ErrContextLength", evs, sum.Err)
	}
	if n := strings.Count(sum.Err.Error(), "too long"); n != 1 {
		t.Errorf("%q says \"too long\" %d times, want once", sum.Err, n)
	}
}

// withoutStatus drops the status events ("Loading model…") that precede a reply.
func withoutStatus(evs []reply.Event) []reply.Event {
	var out []reply.Event
	for _, ev := range evs {
		if ev.Kind != reply.EventStatus {
			out = append(out, ev)
		}
	}
	return out
}

// A strict reply budget over the first route's context goes to a later route that holds it,
// without marking the first one failed.
func TestStrictBudgetFallsToLargerRoute(t *testing.T) {
	initORT(t)
	small, large := shortContext(t), tinyModel(t)
	e, err := inference.New(inference.Config{Open: Open, Routes: []inference.RouteConfig{
		{Name: "npu", Model: small, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}}},
		{Name: "cpu", Model: large, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	strict := greedy("Hi", 200)
	strict.StrictMaxTokens = true
	_, sum := collect(t, e, context.Background(), strict)
	if sum.Err != nil || sum.Backend != "cpu" || !strings.Contains(sum.RouteReason, "NPU cannot take it") {
		t.Fatalf("backend %q, route reason %q, error %v; want the cpu route to serve it", sum.Backend, sum.RouteReason, sum.Err)
	}
	if _, sum := collect(t, e, context.Background(), greedy("Hi", 4)); sum.Err != nil || sum.Backend != "npu" {
		t.Errorf("next request: backend %q, error %v; want the npu route, still in service", sum.Backend, sum.Err)
	}
}
