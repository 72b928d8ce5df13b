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

// After a Test in the settings, the progress bar stops, not only hides: a hidden bar that
// kept animating redrew the window 60 times a second.
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
	m.Settings.Test("cpu")
	var bars []*widget.ProgressBarInfinite
	walk(m.Window.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.ProgressBarInfinite); ok && b.Visible() {
			bars = append(bars, b)
		}
	})
	if len(bars) != 1 || !animating(t, bars[0]) {
		t.Fatalf("while testing: %d visible progress bars, want one running", len(bars))
	}
	close(release)
	<-done
	if bars[0].Visible() || animating(t, bars[0]) {
		t.Errorf("after the test: bar visible %v, animating %v; want hidden and stopped", bars[0].Visible(), animating(t, bars[0]))
	}
}
