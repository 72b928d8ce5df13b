package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"

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
		"qwen3: Loading the model for the CPU…",
		"qwen3: Preparing this model for your PC: 0%",
		"qwen3: Preparing this model for your PC: 45%",
		"qwen3: Preparing this model for your PC: 100%",
		"qwen3: Loading the model for the CPU…",
	}
	for i := range statuses {
		<-shown
		waitFor(t, want[i], func() bool { d.run(); return m.ChatView.Model.Text == want[i] })
		next <- struct{}{}
	}
	m.Chat.waitLoad()
	waitFor(t, "the model's name", func() bool { d.run(); return m.ChatView.Model.Text == "qwen3 · CPU" })
}
