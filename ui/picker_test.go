package ui

import (
	"context"
	"image/png"
	"os"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/google/go-cmp/cmp"
)

// The header's model button opens the picker: every model with its size, NPU/CPU and
// Complete text, the one that answers checked, an NPU build without an NPU runtime disabled.
// Choosing one closes it, the header shows the load and Send waits, then the header names
// the new model and a base model's notice shows.
func TestModelPickerView(t *testing.T) {
	ch := modelDirs(t, "qwen", "phi", "gpt2")
	ch = append(ch, ModelChoice{Path: "/m/npu", Name: "qwen-npu", Device: "npu", Size: 2e9, Unusable: "needs an NPU runtime (Settings → Runtime)"})
	started, release := make(chan struct{}), make(chan struct{})
	fm := &fakeModels{cur: ch[0], choices: ch, load: func(ctx context.Context, status func(string)) error {
		status("Preparing this model for your PC: 45%")
		started <- struct{}{}
		<-release
		return nil
	}}
	vm, _ := newModelChat(t, fm)
	w := test.NewTempWindow(t, nil)
	v := NewChatView(vm, w, func() {})
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(900, 600))
	if v.Model.Text != "qwen · CPU" {
		t.Errorf("header = %q", v.Model.Text)
	}

	test.Tap(v.Model)
	if top := w.Canvas().Overlays().Top(); top == nil || top != v.picker.popup || !v.picker.popup.Visible() {
		t.Fatal("the model button did not open the picker")
	}
	var labels []string
	for _, b := range v.picker.rows {
		labels = append(labels, b.Text)
	}
	want := []string{"qwen · 500.0 MB · CPU", "phi · 500.0 MB · CPU", "gpt2 · 500.0 MB · CPU · Complete text",
		"qwen-npu · 2.00 GB · NPU · needs an NPU runtime (Settings → Runtime)"}
	if diff := cmp.Diff(want, labels); diff != "" {
		t.Errorf("picker rows (-want +got):\n%s", diff)
	}
	if v.picker.rows[0].Icon != theme.RadioButtonCheckedIcon() || v.picker.rows[1].Icon != theme.RadioButtonIcon() {
		t.Error("the model that answers is not the one checked")
	}
	if !v.picker.rows[3].Disabled() || v.picker.rows[2].Disabled() {
		t.Error("only the NPU build without an NPU runtime should be disabled")
	}
	if v.picker.manage.Visible() && v.OnManageModels == nil {
		t.Error("Manage models… shown with no Models view")
	}

	test.Tap(v.picker.rows[2])
	<-started
	if v.picker.popup.Visible() {
		t.Error("the picker stayed open after a choice")
	}
	if got := v.Model.Text; got != "gpt2: Preparing this model for your PC: 45%" || !v.SendButton.Disabled() {
		t.Errorf("while loading: header %q, Send disabled %v", got, v.SendButton.Disabled())
	}
	close(release)
	vm.waitLoad()
	if got := v.Model.Text; got != "gpt2 · CPU · Complete text" || v.SendButton.Disabled() || !v.CompleteNotice.Visible() {
		t.Errorf("after loading: header %q, Send disabled %v, Complete text notice %v", got, v.SendButton.Disabled(), v.CompleteNotice.Visible())
	}
	test.Tap(v.Model)
	if v.picker.rows[2].Icon != theme.RadioButtonCheckedIcon() {
		t.Error("the picker does not check the model chosen")
	}
	if out := os.Getenv("EDGECHAT_SHOT"); out != "" { // a picture to look at without a display
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, w.Canvas().Capture()); err != nil {
			t.Fatal(err)
		}
	}
}
