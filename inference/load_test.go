package inference

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"edgechat/models"
	"edgechat/reply"
)

// Load loads the first route's model once, reporting the route's status, and falls back to
// the next route when it cannot load; the reply after it does not load again.
func TestLoad(t *testing.T) {
	t.Run("loads once", func(t *testing.T) {
		rt := decoderOf(fakeDecoder{})
		e := fakeEngine(t, rt, Config{}, fakeRoute(t, "cpu", 512))
		var lines []string
		if err := e.Load(context.Background(), func(s string) { lines = append(lines, s) }); err != nil {
			t.Fatal(err)
		}
		if len(lines) == 0 || !strings.Contains(lines[0], "Loading the model for the CPU") {
			t.Errorf("status lines %q, want the route's loading line", lines)
		}
		lines = nil
		if err := e.Load(context.Background(), func(s string) { lines = append(lines, s) }); err != nil || len(lines) != 0 {
			t.Errorf("second Load: %v, lines %q; want nothing to do", err, lines)
		}
		collect(t, e, context.Background(), greedy("Hi", 2))
		if rt.opens != 1 {
			t.Errorf("opened %d times, want 1", rt.opens)
		}
	})
	t.Run("falls back, then fails", func(t *testing.T) {
		fails := &fakeRuntime{make: func() (*fakeDecoder, error) { return nil, errors.New("no QNN here") }}
		cpu := decoderOf(fakeDecoder{})
		open := func(f *models.Folder, o LoadOptions) (Decoder, error) {
			if o.MaxContext == 256 {
				return fails.open(f, o)
			}
			return cpu.open(f, o)
		}
		e, err := New(Config{Routes: []RouteConfig{fakeRoute(t, "npu", 256), fakeRoute(t, "cpu", 512)}, Open: open})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.Load(context.Background(), nil); err != nil || cpu.opens != 1 {
			t.Errorf("Load: %v, CPU opened %d times; want the CPU's model loaded", err, cpu.opens)
		}
		only, err := New(Config{Routes: []RouteConfig{fakeRoute(t, "npu", 256)}, Open: open})
		if err != nil {
			t.Fatal(err)
		}
		defer only.Close()
		if err := only.Load(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "no QNN here") {
			t.Errorf("Load of a model that cannot load: %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		e := fakeEngine(t, decoderOf(fakeDecoder{}), Config{}, fakeRoute(t, "cpu", 512))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := e.Load(ctx, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled Load: %v", err)
		}
	})
}

// The steps of a load reach the status lines — the tokenizer read (the engine's), a first
// load's preparation and ONNX Runtime starting (the decoder's) — a preload's (serve prints
// them) and a reply's, where the events carry the progress itself.
func TestLoadProgress(t *testing.T) {
	cpu := decoderOf(fakeDecoder{})
	open := func(f *models.Folder, o LoadOptions) (Decoder, error) {
		if o.Progress != nil {
			o.Progress(reply.Progress{Step: reply.StepVerifying, Fraction: 0.5})
			o.Progress(reply.Progress{Step: reply.StepLoading, Fraction: 1})
		}
		return cpu.open(f, o)
	}
	want := []string{"Loading the model for the CPU…", "Loading the model for the CPU: reading the tokenizer (step 1 of 2)",
		"Preparing this model for your PC: 50%", "Loading the model for the CPU: starting ONNX Runtime (step 2 of 2)"}
	lines := make(chan string, 8)
	e, err := New(Config{Routes: []RouteConfig{fakeRoute(t, "cpu", 512)}, Open: open, Preload: true,
		PreloadStatus: func(route, text string) { lines <- route + ": " + text }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, w := range want {
		if got := <-lines; got != "cpu: "+w {
			t.Errorf("preload said %q, want %q", got, "cpu: "+w)
		}
	}

	e2, err := New(Config{Routes: []RouteConfig{fakeRoute(t, "cpu", 512)}, Open: open})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	events, _ := collect(t, e2, context.Background(), greedy("Hi", 2))
	var got []string
	var ps []reply.Progress
	for _, ev := range events {
		if ev.Kind == reply.EventStatus {
			got = append(got, ev.Text)
			if ev.Progress != nil {
				ps = append(ps, *ev.Progress)
			}
		}
	}
	wantSteps := []string{reply.StepTokenizer, reply.StepVerifying, reply.StepLoading}
	var steps []string
	for _, p := range ps {
		steps = append(steps, p.Step)
	}
	if !slices.Equal(got, want) || !slices.Equal(steps, wantSteps) || ps[1].Percent() != 50 {
		t.Errorf("a reply's status %q, progress %+v", got, ps)
	}
}
