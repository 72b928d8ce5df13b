package decoder

import (
	"context"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/reply"
)

func twoRoutes(t *testing.T, npu, cpu inference.RouteConfig) *inference.Engine {
	t.Helper()
	e, err := inference.New(inference.Config{Open: Open, Routes: []inference.RouteConfig{npu, cpu}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestRouterSendsLongPromptsToCPU(t *testing.T) {
	model := tinyModel(t)
	e := twoRoutes(t,
		inference.RouteConfig{Name: "npu", Model: model, PrefillLimit: 40, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}}},
		inference.RouteConfig{Name: "cpu", Model: model, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}}})
	_, short := collect(t, e, context.Background(), greedy("Hi", 4))
	if short.Backend != "npu" || short.RouteReason != "" {
		t.Fatalf("short prompt: backend %q reason %q", short.Backend, short.RouteReason)
	}
	_, long := collect(t, e, context.Background(), greedy(strings.Repeat("many words here ", 20), 4))
	if long.Backend != "cpu" || !strings.Contains(long.RouteReason, "prefill limit of 40") {
		t.Fatalf("long prompt: backend %q reason %q", long.Backend, long.RouteReason)
	}
	if long.FallbackReason != "" {
		t.Fatalf("routing by length is not a fallback: %q", long.FallbackReason)
	}
}

func TestRouterFallsBackOnceWhenNPUCannotLoad(t *testing.T) {
	model := tinyModel(t)
	e := twoRoutes(t,
		inference.RouteConfig{Name: "npu", Model: model, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "qnn"}}},
		inference.RouteConfig{Name: "cpu", Model: model, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}}})
	for i := range 2 {
		evs, s := collect(t, e, context.Background(), greedy("Hello", 6))
		if s.Backend != "cpu" || s.FinishReason == reply.FinishError {
			t.Fatalf("request %d: backend %q finish %q err %v", i, s.Backend, s.FinishReason, s.Err)
		}
		if want := "fallback: QNN execution provider is not supported in this build"; !strings.HasPrefix(s.FallbackReason, want) {
			t.Fatalf("request %d: fallback reason %q, want it to start with %q", i, s.FallbackReason, want)
		}
		if a, _ := replyText(evs); a == "" || s.GeneratedTokens == 0 {
			t.Fatalf("request %d: empty reply", i)
		}
	}
}

func TestRouterFallsBackWhenNPUModelIsRefused(t *testing.T) {
	cpu := tinyModel(t)
	bad := notADecoder(t, cpu)
	e := twoRoutes(t,
		inference.RouteConfig{Name: "npu", Model: bad, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}}},
		inference.RouteConfig{Name: "cpu", Model: cpu, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}}})
	_, s := collect(t, e, context.Background(), greedy("Hello", 4))
	if s.Backend != "cpu" || !strings.Contains(s.FallbackReason, "not a text decoder") {
		t.Fatalf("backend %q fallback %q", s.Backend, s.FallbackReason)
	}
}

func TestSingleCPURouteHasNoLimit(t *testing.T) {
	e := newTestEngine(t, tinyModel(t), func(rc *inference.RouteConfig) { rc.PrefillLimit = 5 })
	_, s := collect(t, e, context.Background(), greedy(strings.Repeat("word ", 30), 4))
	if s.Backend != "cpu" || s.FinishReason == reply.FinishError {
		t.Fatalf("%+v", s)
	}
}
