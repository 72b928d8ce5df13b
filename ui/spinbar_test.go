package ui

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
)

// animating reports whether the bar's renderer still runs its animation. Fyne keeps that in
// an unexported field; Running() alone cannot tell, as Hide clears it and leaves the
// animation going.
func animating(t *testing.T, bar *widget.ProgressBarInfinite) bool {
	t.Helper()
	f := reflect.ValueOf(test.WidgetRenderer(bar)).Elem().FieldByName("wasRunning")
	if !f.IsValid() {
		t.Fatal("Fyne's infinite progress renderer has no wasRunning field any more: check whether a hidden bar still animates, and update runBar and this test")
	}
	return f.Bool()
}

// bars returns the infinite progress bars under o, shown or not.
func bars(o fyne.CanvasObject) []*widget.ProgressBarInfinite {
	var out []*widget.ProgressBarInfinite
	walk(o, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.ProgressBarInfinite); ok {
			out = append(out, b)
		}
	})
	return out
}

// The settings' Test progress bar animates only while a test runs: a bar that kept
// animating unseen redrew the window 60 times a second.
func TestSettingsTestStopsItsProgressBar(t *testing.T) {
	s := config.Defaults()
	s.CPU.Model = modelDir(t)
	m, _ := newTestWindow(t, s)
	release := make(chan struct{})
	done := make(chan struct{})
	var once sync.Once
	m.Settings.tester = fakeTester{test: func(ctx context.Context, _ config.Route, _ string) (string, error) {
		<-release
		return "CPU: 12 tokens/s", nil
	}}
	m.Settings.Testing.AddListener(bindingListener(func() {
		if !get[bool](m.Settings.Testing) && get[string](m.Settings.Result) == "CPU: 12 tokens/s" {
			once.Do(func() { close(done) })
		}
	}))
	m.ShowSettings()
	m.Window.Content().Refresh()
	for _, b := range bars(m.Window.Content()) {
		if animating(t, b) {
			t.Fatal("a progress bar animates before any test")
		}
	}
	m.Settings.Test("cpu")
	m.Window.Content().Refresh()
	running := bars(m.Window.Content())
	if len(running) != 1 || !running[0].Visible() || !animating(t, running[0]) {
		t.Fatalf("while testing: %d progress bars, want one shown and running", len(running))
	}
	close(release)
	<-done
	if animating(t, running[0]) {
		t.Error("the progress bar still animates after the test")
	}
	if n := len(bars(m.Window.Content())); n != 0 {
		t.Errorf("%d progress bars left after the test, want none", n)
	}
}
