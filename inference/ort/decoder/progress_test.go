package decoder

import (
	"context"
	"slices"
	"testing"

	"edgechat/inference"
	"edgechat/internal/testkit/synth"
	"edgechat/reply"
)

// The first load of a model says how far the preparation of its optimized copy has gone,
// through the reply's status events and before the first token: "Loading the model for the
// CPU…", the tokenizer read, then the preparation's steps in order with a fraction that never
// goes back and reaches 100%, then ONNX Runtime starting. The second load, the copy cached,
// says only the tokenizer and ONNX Runtime steps.
func TestFirstLoadProgress(t *testing.T) {
	model := synthModel(t, "tiny-q4", func(o *synth.Options) { o.Quant = synth.QuantQ4 })
	cache := t.TempDir()
	statuses := func() ([]reply.Event, []reply.Progress) {
		e := newTestEngine(t, model, func(rc *inference.RouteConfig) {
			rc.GraphCache = cache
			rc.EP.Threads = 1
		})
		events, sum := collect(t, e, context.Background(), greedy("Hello", 2))
		if sum.FinishReason == reply.FinishError {
			t.Fatal(sum.Err)
		}
		var status []reply.Event
		var ps []reply.Progress
		for i, ev := range events {
			if ev.Kind == reply.EventText || ev.Kind == reply.EventThinking {
				if i == 0 {
					t.Fatal("the reply began before any status")
				}
				break
			}
			if ev.Kind == reply.EventStatus {
				status = append(status, ev)
				if ev.Progress != nil {
					ps = append(ps, *ev.Progress)
				}
			}
		}
		return status, ps
	}
	status, ps := statuses()
	loading := "Loading the model for the CPU…"
	if len(status) < 2 || status[0].Text != loading || status[0].Progress != nil {
		t.Fatalf("first status %+v, want %q without progress", status, loading)
	}
	if len(ps) < 5 {
		t.Fatalf("%d progress events, want the preparation's steps: %+v", len(ps), ps)
	}
	order := []string{reply.StepTokenizer, reply.StepReading, reply.StepRewriting, reply.StepWriting, reply.StepVerifying, reply.StepLoading}
	var steps []string
	for i, p := range ps {
		if i > 0 && p.Fraction < ps[i-1].Fraction {
			t.Errorf("progress went back: %+v after %+v", p, ps[i-1])
		}
		if len(steps) == 0 || steps[len(steps)-1] != p.Step {
			steps = append(steps, p.Step)
		}
		if i > 0 && slices.Index(order, p.Step) < slices.Index(order, ps[i-1].Step) && p.Step != reply.StepReading {
			t.Errorf("step %s after %s", p.Step, ps[i-1].Step)
		}
	}
	for _, s := range order {
		if !slices.Contains(steps, s) {
			t.Errorf("no %s step in %v", s, steps)
		}
	}
	last, before := ps[len(ps)-1], ps[len(ps)-2]
	if last.Step != reply.StepLoading || before.Percent() != 100 {
		t.Errorf("the preparation ends with %+v, %+v; want 100%% then loading", before, last)
	}
	if got := status[len(status)-2].Text; got != "Preparing this model for your PC: 100%" {
		t.Errorf("status %q before loading", got)
	}
	starting := reply.Progress{Step: reply.StepLoading}.Label(loading)
	if got := status[len(status)-1].Text; got != starting {
		t.Errorf("last status %q, want %q", got, starting)
	}
	t.Logf("%d status events, steps %v", len(status), steps)

	status, ps = statuses()
	var texts []string
	for _, ev := range status {
		texts = append(texts, ev.Text)
	}
	want := []string{loading, reply.Progress{Step: reply.StepTokenizer}.Label(loading), starting}
	if !slices.Equal(texts, want) || len(ps) != 2 {
		t.Errorf("the second load (copy cached) said %q (progress %+v), want %q", texts, ps, want)
	}
}
