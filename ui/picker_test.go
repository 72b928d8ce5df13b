package ui

import (
	"context"
	"image/png"
	"os"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/google/go-cmp/cmp"

	"edgechat/config"
	"edgechat/history"
	"edgechat/models/discover"
	"edgechat/reply"
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
	if got := v.Model.Text; got != "gpt2 · preparing for this PC 45%" || !v.SendButton.Disabled() {
		t.Errorf("while loading: header %q, Send disabled %v", got, v.SendButton.Disabled())
	}
	test.Type(v.Composer, "Once upon a time")
	v.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if get[string](vm.Error) != ErrLoading.Error() || v.Composer.Text != "Once upon a time" || len(messages(vm)) != 0 {
		t.Errorf("Enter while loading: banner %q, composer %q, %d messages", get[string](vm.Error), v.Composer.Text, len(messages(vm)))
	}
	close(release)
	vm.waitLoad()
	if get[string](vm.Error) != "" {
		t.Errorf("the loading message stayed after the load: %q", get[string](vm.Error))
	}
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

// In the window the picker lists the Models view's scan; choosing saves the settings (main
// rebuilds the engine), loads through Deps.LoadModel with its words in the header, and the
// next message records the model. Manage models… opens the Models view.
func TestModelPickerInWindow(t *testing.T) {
	a := test.NewTempApp(t)
	s := config.Defaults()
	s.CPU.Model = "/m/set-by-hand"
	st := &memSettings{s: s}
	hs := newMemStore()
	var saved []string
	loaded := make(chan string, 1)
	m := New(a, Deps{
		Engine:   &fakeEngine{gen: script(reply.Summary{FinishReason: "stop", Backend: "cpu"}, text("ok"))},
		Settings: st, History: hs, NewSaver: hs.newSaver,
		Models:        &fakeLibrary{scan: func() discover.Result { return twoModels }},
		SettingsSaved: func(s config.Settings) string { saved = append(saved, s.CPU.Model); return "" },
		LoadModel: func(ctx context.Context, status func(string)) error {
			status("Loading the model for the CPU…")
			loaded <- st.s.CPU.Model
			return nil
		},
	})
	t.Cleanup(m.Chat.Close)
	t.Cleanup(m.Models.Close)
	waitFor(t, "the first scan", func() bool { return !m.Models.Scanning() })

	test.Tap(m.ChatView.Model)
	p := m.ChatView.picker
	if len(p.rows) != 3 || p.rows[0].Text != "set-by-hand · CPU" || !p.rows[1].Disabled() || p.rows[2].Text != "org/qwen · 500.0 MB · CPU" {
		t.Fatalf("picker rows: %d, first %q", len(p.rows), p.rows[0].Text)
	}
	test.Tap(p.rows[2])
	if got := <-loaded; got != "/m/cpu" {
		t.Errorf("loaded with the CPU model %q, want /m/cpu", got)
	}
	m.Chat.waitLoad()
	if diff := cmp.Diff([]string{"/m/cpu"}, saved); diff != "" {
		t.Errorf("settings saved (-want +got):\n%s", diff)
	}
	if got := m.ChatView.Model.Text; got != "org/qwen · CPU" {
		t.Errorf("header = %q", got)
	}
	test.Type(m.ChatView.Composer, "Hello")
	m.ChatView.Composer.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	waitIdle(t, m.Chat)
	if c, _ := hs.Load(get[string](m.Chat.CurrentID)); c.Model != "/m/cpu" || c.Mode != history.ModeChat {
		t.Errorf("conversation saved with %q %q", c.Model, c.Mode)
	}
	test.Tap(m.ChatView.Model)
	test.Tap(m.ChatView.picker.manage)
	if m.right.Objects[0] != m.ModelsView.Content {
		t.Error("Manage models… did not open the Models view")
	}
}

// Ctrl+M opens the picker with the keyboard on the model that answers; Esc closes it.
func TestModelPickerKeyboard(t *testing.T) {
	s := config.Defaults()
	s.CPU.Model = modelDir(t)
	m, _ := newTestWindow(t, s)
	m.ShowSettings()
	m.Window.Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyM, Modifier: fyne.KeyModifierShortcutDefault})
	p := m.ChatView.picker
	if m.right.Objects[0] != m.ChatView.Content || p.popup == nil || !p.popup.Visible() {
		t.Fatal("Ctrl+M did not open the picker over the chat")
	}
	focused, ok := m.Window.Canvas().Focused().(*pickerRow)
	if !ok || focused != p.rows[0] {
		t.Fatalf("focus on %T, want the model that answers", m.Window.Canvas().Focused())
	}
	focused.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if p.popup.Visible() {
		t.Error("Esc did not close the picker")
	}
}
