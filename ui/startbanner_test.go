package ui

import (
	"image/png"
	"os"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"edgechat/config"
	"edgechat/models/discover"
	"edgechat/reply"
)

// checkSettings is a CheckModel over the window's settings: a library or a model named
// "/broken…" is a problem. Each check waits for release: the test driver runs the banner's
// change on the check's goroutine, so the test lets it go only while it waits for it.
func checkSettings(st *memSettings, release <-chan struct{}) func() []ModelProblem {
	return func() []ModelProblem {
		<-release
		s := st.Settings()
		var out []ModelProblem
		if strings.HasPrefix(s.ORTLibrary, "/broken") {
			out = append(out, ModelProblem{Message: "EdgeChat cannot load ONNX Runtime from " + s.ORTLibrary, Fix: FixRuntime})
		}
		if strings.HasPrefix(s.CPU.Model, "/broken") {
			out = append(out, ModelProblem{Message: "The CPU's model " + s.CPU.Model + " cannot be opened", Fix: FixModel})
		}
		return out
	}
}

// The problems found at start show in a banner across the window at once, each with its way
// out, the chat still usable; fixing one takes it off, fixing all hides the banner.
func TestStartupModelProblemBanner(t *testing.T) {
	a := test.NewTempApp(t)
	release := make(chan struct{})
	s := config.Defaults()
	s.CPU.Model, s.ORTLibrary = "/broken/model", "/broken/libonnxruntime.so"
	st := &memSettings{s: s}
	hs := newMemStore()
	lib := &fakeLibrary{scan: func() discover.Result { return twoModels }}
	m := New(a, Deps{
		Engine:   &fakeEngine{gen: script(reply.Summary{FinishReason: "stop", Backend: "cpu"}, text("ok"))},
		Settings: st, History: hs, NewSaver: hs.newSaver, Models: lib, CheckModel: checkSettings(st, release),
	})
	t.Cleanup(m.Stopped)
	waitFor(t, "the first scan", func() bool { return !m.Models.Scanning() })
	checked := func() {
		release <- struct{}{}
		<-m.checked
	}
	checked()
	b := m.Banner
	if m.Window.Content() != m.main || !b.Content.Visible() {
		t.Fatal("the chat opened without the banner")
	}
	for _, want := range []string{"cannot load ONNX Runtime from /broken/libonnxruntime.so", "/broken/model cannot be opened"} {
		if !strings.Contains(b.Text.Text, want) {
			t.Errorf("banner %q does not say %q", b.Text.Text, want)
		}
	}
	m.Window.Resize(fyne.NewSize(1100, 720))
	for _, o := range m.main.(*fyne.Container).Objects { // the banner pushes the rest down
		if o != b.Content && o.Position().Y < b.Content.MinSize().Height {
			t.Errorf("the window's content at y=%v overlaps the banner (%v high)", o.Position().Y, b.Content.MinSize().Height)
		}
	}
	if !b.Runtime.Visible() || !b.Model.Visible() {
		t.Errorf("ways out shown: runtime %v, model %v; want both", b.Runtime.Visible(), b.Model.Visible())
	}
	_ = m.ChatView.vm.Draft.Set("Hello") // Send waits for something to send
	if !m.ChatView.SendButton.Visible() || m.ChatView.SendButton.Disabled() {
		t.Error("the chat cannot be used while the banner shows")
	}

	if shot := os.Getenv("EDGECHAT_SHOT"); shot != "" { // the banner, to look at without a display
		f, err := os.Create(shot)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, m.Window.Canvas().Capture()); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}

	test.Tap(b.Runtime)
	if m.right.Objects[0] != m.SettingsView.Content || !b.Content.Visible() {
		t.Fatal("Open Settings → Runtime did not open the settings (with the banner above)")
	}
	test.Tap(b.Model)
	if m.right.Objects[0] != m.ModelsView.Content {
		t.Fatal("Choose another model did not open the Models view")
	}
	test.Tap(m.ModelsView.UseButtons["/m/cpu"][1])
	checked()
	if !b.Content.Visible() || b.Model.Visible() || !b.Runtime.Visible() || strings.Contains(b.Text.Text, "model") {
		t.Errorf("after choosing a model: banner %q, model button %v, runtime button %v; want the runtime problem only", b.Text.Text, b.Model.Visible(), b.Runtime.Visible())
	}

	m.ShowSettings()
	_ = m.Settings.Fields["ort_library"].Set("")
	_ = m.Settings.Fields["cpu.model"].Set(modelDir(t))
	if err := m.Settings.Save(); err != nil {
		t.Fatal(err)
	}
	checked()
	if b.Content.Visible() {
		t.Errorf("the banner stays after the settings were fixed: %q", b.Text.Text)
	}
}

// Dismiss hides the banner; without a check there is none.
func TestProblemBannerDismiss(t *testing.T) {
	m, _ := newTestWindow(t, config.Defaults())
	<-m.checked
	if m.Banner.Content.Visible() {
		t.Fatal("a banner without a check")
	}
	m.Banner.show([]ModelProblem{{Message: "x", Fix: FixModel}})
	if !m.Banner.Content.Visible() || m.Banner.Runtime.Visible() {
		t.Fatal("show did not show the problem with its one way out")
	}
	test.Tap(m.Banner.Dismiss)
	if m.Banner.Content.Visible() {
		t.Error("Dismiss did not hide the banner")
	}
}
