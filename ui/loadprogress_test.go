package ui

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"edgechat/config"
	"edgechat/models/discover"
	"edgechat/reply"
)

// While a model chosen in the window loads for the first time, the chat's header shows how
// far the preparation for this PC has gone, as the engine reports it (reply.Progress's
// words), then loading, then the model's name. (The first reply's own load shows the same
// words in the reply's status line: stream.go.)
func TestHeaderShowsFirstLoadProgress(t *testing.T) {
	// The desktop driver's timing: what fyne.Do queues (the header's text, the Models view
	// the scan rebuilds) runs here, on the test's goroutine, as on the main loop.
	d := newQueuedApp(t)
	a := fyne.CurrentApp()
	s := config.Defaults()
	s.CPU.Model = "/m/qwen3"
	st := &memSettings{s: s}
	hs := newMemStore()
	loading := "Loading the model for the CPU…"
	statuses := []string{
		loading,
		reply.Progress{Step: reply.StepReading, Fraction: 0}.Label(loading),
		reply.Progress{Step: reply.StepVerifying, Fraction: 0.45}.Label(loading),
		reply.Progress{Step: reply.StepVerifying, Fraction: 1}.Label(loading),
		reply.Progress{Step: reply.StepLoading, Fraction: 1}.Label(loading),
	}
	shown, next := make(chan string), make(chan struct{})
	m := New(a, Deps{
		Engine:   &fakeEngine{gen: script(reply.Summary{FinishReason: "stop", Backend: "cpu"}, text("ok"))},
		Settings: st, History: hs, NewSaver: hs.newSaver,
		Models: &fakeLibrary{scan: func() discover.Result { return discover.Result{} }},
		LoadModel: func(ctx context.Context, status func(string)) error {
			for _, s := range statuses {
				status(s)
				shown <- s
				<-next
			}
			return nil
		},
	})
	t.Cleanup(m.Chat.Close)
	t.Cleanup(m.Models.Close)
	m.Chat.LoadModel() // as after a choice in the picker (modelChosen)
	want := []string{
		"qwen3 · loading for the CPU",
		"qwen3 · preparing for this PC 0%",
		"qwen3 · preparing for this PC 45%",
		"qwen3 · preparing for this PC 100%",
		"qwen3 · starting ONNX Runtime (2 of 2)",
	}
	for i := range statuses {
		<-shown
		// On a loaded machine a step may take a second: the header then counts it too.
		waitFor(t, want[i], func() bool { d.run(); return withoutSeconds(m.ChatView.Model.Text) == want[i] })
		// The full sentence is the header's tip.
		if tip := m.ChatView.Model.Tip; tip != "qwen3: "+statuses[i] {
			t.Errorf("tip while %q = %q, want the full sentence", want[i], tip)
		}
		next <- struct{}{}
	}
	m.Chat.waitLoad()
	waitFor(t, "the model's name", func() bool { d.run(); return m.ChatView.Model.Text == "qwen3 · CPU" })
	if tip := m.ChatView.Model.Tip; tip != "Choose the model" {
		t.Errorf("tip once loaded = %q", tip)
	}
}

var seconds = regexp.MustCompile(` · \d+ s$`)

// withoutSeconds is a loading header without the seconds counted after the first.
func withoutSeconds(label string) string { return seconds.ReplaceAllString(label, "") }

func TestLoadClockLabel(t *testing.T) {
	c := newLoadClock("qwen3")
	starting := reply.Progress{Step: reply.StepLoading}.Label("Loading the model for the CPU…")
	c.say(starting)
	for _, tc := range []struct {
		after time.Duration
		want  string
	}{
		{0, "qwen3 · starting ONNX Runtime (2 of 2)"},
		{999 * time.Millisecond, "qwen3 · starting ONNX Runtime (2 of 2)"},
		{time.Second, "qwen3 · starting ONNX Runtime (2 of 2) · 1 s"},
		{3900 * time.Millisecond, "qwen3 · starting ONNX Runtime (2 of 2) · 3 s"},
	} {
		if got := c.label(c.start.Add(tc.after)); got != tc.want {
			t.Errorf("after %v: %q, want %q", tc.after, got, tc.want)
		}
	}
	if got := c.detail(); got != "qwen3: "+starting {
		t.Errorf("detail = %q, want the full sentence", got)
	}
	if got := newLoadClock("qwen3").label(time.Now()); got != "Loading qwen3…" {
		t.Errorf("before the engine says anything: %q", got)
	}
}

// While ONNX Runtime creates its session, which reports nothing, the header names the step
// and counts the seconds; once loaded it names the model, without seconds.
func TestHeaderCountsTheSecondsOfALoad(t *testing.T) {
	d := newQueuedApp(t)
	a := fyne.CurrentApp()
	s := config.Defaults()
	s.CPU.Model = "/m/qwen3"
	hs := newMemStore()
	starting := reply.Progress{Step: reply.StepLoading}.Label("Loading the model for the CPU…")
	release := make(chan struct{})
	m := New(a, Deps{
		Engine:   &fakeEngine{gen: script(reply.Summary{FinishReason: "stop", Backend: "cpu"}, text("ok"))},
		Settings: &memSettings{s: s}, History: hs, NewSaver: hs.newSaver,
		Models: &fakeLibrary{scan: func() discover.Result { return discover.Result{} }},
		LoadModel: func(ctx context.Context, status func(string)) error {
			status(starting)
			<-release
			return nil
		},
	})
	t.Cleanup(m.Chat.Close)
	t.Cleanup(m.Models.Close)
	m.Chat.LoadModel()
	want := "qwen3 · starting ONNX Runtime (2 of 2)"
	waitFor(t, want, func() bool { d.run(); return withoutSeconds(m.ChatView.Model.Text) == want })
	waitFor(t, want+" · 1 s", func() bool { d.run(); return m.ChatView.Model.Text == want+" · 1 s" })
	close(release)
	m.Chat.waitLoad()
	d.run()
	time.Sleep(loadTick + 100*time.Millisecond) // the clock stopped: no tick comes after the name
	d.run()
	if got := m.ChatView.Model.Text; got != "qwen3 · CPU" {
		t.Errorf("header after the load = %q, want the model's name", got)
	}
}

// A long header (a long model name, a load's words and seconds) is cut with an ellipsis to the
// room the header has for it — what the title and the other buttons leave, recomputed when the
// window is resized — and is whole when there is room; the whole of it is the button's tip. A
// fixed cap of 340 units cut it in a window with room to spare.
func TestHeaderFitsItsRoom(t *testing.T) {
	ch := modelDirs(t, "qwen")
	vm, _ := newModelChat(t, &fakeModels{cur: ch[0], choices: ch})
	w := test.NewTempWindow(t, nil)
	v := NewChatView(vm, w, func() {})
	w.SetContent(v.Content)
	long := "onnx-community/Qwen3-0.6B-Instruct-ONNX-with-a-long-name · preparing for this PC 45% · 12 s"
	_ = vm.ModelLabel.Set(long)
	_ = vm.Title.Set("A conversation about the decode loop and its KV cache")
	right := func() float32 { return v.Settings.Position().X + v.Settings.Size().Width }
	for _, width := range []float32{1400, 700, 1400, 500} {
		w.Resize(fyne.NewSize(width, 600))
		text := v.Model.Text
		fits := width == 1400
		if fits && text != long {
			t.Errorf("width %.0f: header %q, want the whole label", width, text)
			continue
		}
		if !fits && (!strings.HasSuffix(text, "…") || !strings.HasPrefix(long, strings.TrimSuffix(text, "…"))) {
			t.Errorf("width %.0f: header %q is not the label cut with an ellipsis", width, text)
			continue
		}
		if !fits && v.Model.Tip != long+" — choose the model" {
			t.Errorf("width %.0f: tip = %q, want the whole header", width, v.Model.Tip)
		}
		// The model button ends where the others start, all inside the header, and leaves the
		// title its room.
		content := w.Content().Size().Width
		if r := right(); r > content+0.5 {
			t.Errorf("width %.0f: the header's buttons end at %.0f, past the view's %.0f", width, r, content)
		}
		if x := v.Model.Position().X; x < titleRoom && width >= 700 {
			t.Errorf("width %.0f: the model button starts at %.0f, leaving the title no room", width, x)
		}
		if !fits {
			// cut, so it takes the room it is given: no more than a letter's width to spare
			spare := v.Model.Position().X - titleRoom - 2*theme.Padding()
			if spare > 30 {
				t.Errorf("width %.0f: %.0f units left unused beside a cut header %q", width, spare, text)
			}
		}
	}
	_ = vm.ModelLabel.Set("qwen · CPU")
	if v.Model.Text != "qwen · CPU" || v.Model.Tip != "Choose the model" {
		t.Errorf("a short header: %q, tip %q", v.Model.Text, v.Model.Tip)
	}
}
