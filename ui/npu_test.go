package ui

import (
	"regexp"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
	"edgechat/models/discover"
)

// npuTester says whether this PC has an NPU runtime.
type npuTester struct {
	finderTester
	has bool
}

func (n npuTester) HasNPURuntime() bool { return n.has }

// Without an NPU runtime the settings show one line instead of the NPU's settings; with one,
// or with an NPU model already set, they show them.
func TestSettingsNPUOnlyWhereFound(t *testing.T) {
	test.NewTempApp(t)
	for _, tc := range []struct {
		name     string
		has      bool
		npuModel string
		want     bool
	}{
		{"no NPU runtime", false, "", false},
		{"NPU runtime found", true, "", true},
		{"NPU model set", false, "/models/npu", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := config.Defaults()
			s.NPU.Model = tc.npuModel
			vm := NewSettingsVM(&memSettings{s: s}, npuTester{has: tc.has})
			<-vm.npuChecked
			if get[bool](vm.NPUFound) != tc.has {
				t.Fatalf("NPU runtime found %v, want %v", get[bool](vm.NPUFound), tc.has)
			}
			w := test.NewTempWindow(t, nil)
			v := NewSettingsView(vm, w, func() {})
			w.SetContent(v.Content)
			if v.NPU.Visible() != tc.want || v.NoNPU.Visible() == tc.want {
				t.Errorf("NPU settings shown %v, the no-NPU line %v; want NPU settings %v", v.NPU.Visible(), v.NoNPU.Visible(), tc.want)
			}
		})
	}
}

// "Use for NPU" and the welcome page's NPU build steps only where an NPU runtime is found.
func TestModelsAndWelcomeNPUOnlyWhereFound(t *testing.T) {
	lib := &fakeLibrary{scan: func() discover.Result { return twoModels }}
	m, _ := newModelsWindow(t, config.Defaults(), lib)
	test.Tap(m.WelcomeView.Models)
	npu := m.ModelsView.UseButtons["/m/npu"][0]
	if npu == nil || npu.Visible() || m.WelcomeView.NPU.Visible() || !m.WelcomeView.NoNPU.Visible() {
		t.Fatalf("without an NPU runtime: Use for NPU shown %v, welcome NPU steps %v", npu != nil && npu.Visible(), m.WelcomeView.NPU.Visible())
	}
	_ = m.Settings.NPUFound.Set(true)
	npu = m.ModelsView.UseButtons["/m/npu"][0]
	if !npu.Visible() || !m.WelcomeView.NPU.Visible() || m.WelcomeView.NoNPU.Visible() {
		t.Errorf("with an NPU runtime: Use for NPU shown %v, welcome NPU steps %v", npu.Visible(), m.WelcomeView.NPU.Visible())
	}
}

// The no-NPU line's link scrolls the settings to the Runtime section.
func TestNoNPULinkScrollsToRuntime(t *testing.T) {
	test.NewTempApp(t)
	vm := NewSettingsVM(&memSettings{s: config.Defaults()}, nil)
	w := test.NewTempWindow(t, nil)
	v := NewSettingsView(vm, w, func() {})
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(900, 500))
	var link *widget.Hyperlink
	for _, o := range test.LaidOutObjects(v.Content) {
		if l, ok := o.(*widget.Hyperlink); ok && l.Text == "Settings → Runtime" {
			link = l
		}
	}
	scroll := v.scroll
	if link == nil || !v.NoNPU.Visible() {
		t.Fatal("no Settings → Runtime link shown")
	}
	link.OnTapped() // what a tap on the text runs
	if scroll.Offset.Y <= 0 {
		t.Errorf("the link left the settings at offset %v", scroll.Offset)
	}
}

// The path fields that may be empty say what empty means (the banner of a library that did
// not load sends the user to the ONNX Runtime field, which gave no hint that empty is the
// way back to the bundled one).
func TestSettingsSayWhatEmptyMeans(t *testing.T) {
	test.NewTempApp(t)
	vm := NewSettingsVM(&memSettings{s: config.Defaults()}, nil)
	v := NewSettingsView(vm, test.NewTempWindow(t, nil), func() {})
	for _, key := range []string{"ort_library", "data_dir", "models_dir"} {
		if v.entries[key].PlaceHolder == "" {
			t.Errorf("%s: no placeholder", key)
		}
	}
}

// Back with unsaved edits asks what to do with them (they were dropped without a word): Keep
// editing stays, Discard changes goes back with the saved settings; with nothing edited,
// Back goes straight back.
func TestSettingsBackAsksAboutUnsavedEdits(t *testing.T) {
	test.NewTempApp(t)
	st := &memSettings{s: config.Defaults()}
	st.s.CPU.Model = modelDir(t) // settings that validate
	vm := NewSettingsVM(st, nil)
	w := test.NewTempWindow(t, nil)
	closed := 0
	v := NewSettingsView(vm, w, func() { closed++ })
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(900, 600))
	test.Tap(v.Close)
	if closed != 1 || w.Canvas().Overlays().Top() != nil {
		t.Fatalf("nothing edited: closed %d times, dialog %v", closed, w.Canvas().Overlays().Top())
	}
	tap := func(text string) {
		t.Helper()
		top := w.Canvas().Overlays().Top()
		if top == nil {
			t.Fatal("no dialog")
		}
		for _, o := range test.LaidOutObjects(top) {
			if b, ok := o.(*widget.Button); ok && b.Text == text {
				test.Tap(b)
				return
			}
		}
		t.Fatalf("no %q button in the dialog", text)
	}
	_ = vm.Fields["max_tokens"].Set("2048")
	test.Tap(v.Close)
	tap("Keep editing")
	if closed != 1 || get[string](vm.Fields["max_tokens"]) != "2048" {
		t.Fatalf("Keep editing: closed %d times, max tokens %q", closed, get[string](vm.Fields["max_tokens"]))
	}
	test.Tap(v.Close)
	tap("Discard changes")
	if closed != 2 || get[string](vm.Fields["max_tokens"]) != "1024" || st.saved != 0 {
		t.Fatalf("Discard: closed %d times, max tokens %q, saved %d", closed, get[string](vm.Fields["max_tokens"]), st.saved)
	}
	_ = vm.Fields["max_tokens"].Set("512")
	test.Tap(v.Close)
	tap("Save")
	if closed != 3 || st.s.MaxTokens != 512 {
		t.Fatalf("Save: closed %d times, saved max tokens %d (%s)", closed, st.s.MaxTokens, get[string](vm.Summary))
	}
}

// Settings' field labels and the words shown with them are a user's words, not the engine's
// ("Execution provider", "EP options" were): the experts' term stays in the small hint under
// the field. Checked with the NPU's settings shown, on every label, check box and form item.
func TestSettingsLabelsHaveNoJargon(t *testing.T) {
	test.NewTempApp(t)
	vm := NewSettingsVM(&memSettings{s: config.Defaults()}, npuTester{has: true})
	<-vm.npuChecked
	w := test.NewTempWindow(t, nil)
	v := NewSettingsView(vm, w, func() {})
	w.SetContent(v.Content)
	w.Resize(fyne.NewSize(900, 600))
	jargon := regexp.MustCompile(`(?i)\b(EPs?|execution provider|route|backend|session)\b`)
	var shown []string
	hints := 0
	for _, o := range test.LaidOutObjects(v.Content) {
		switch o := o.(type) {
		case *widget.Form:
			for _, it := range o.Items {
				shown = append(shown, it.Text)
			}
		case *widget.Check:
			shown = append(shown, o.Text)
		case *widget.Label:
			if strings.Contains(o.Text, "execution provider") {
				hints++ // the expert's word, in the hint under the field
				continue
			}
			shown = append(shown, o.Text)
		}
	}
	for _, s := range shown {
		if jargon.MatchString(s) {
			t.Errorf("settings show %q", s)
		}
	}
	if hints != 4 {
		t.Errorf("%d hints name the execution provider, want 4 (NPU and CPU: accelerator and its options)", hints)
	}
}

// On a processor whose 8-bit kernels overflow (x86 without VNNI) the Prompts switch is off
// and says why; elsewhere it can be turned on.
func TestPromptInt8SwitchSaysWhyItIsOff(t *testing.T) {
	test.NewTempApp(t)
	for _, refused := range []string{"", "no VNNI (played)"} {
		vm := NewSettingsVM(&memSettings{s: config.Defaults()}, nil)
		vm.Int8Refused = refused
		w := test.NewTempWindow(t, nil)
		v := NewSettingsView(vm, w, func() {})
		w.SetContent(v.Content)
		var check *widget.Check
		for _, o := range test.LaidOutObjects(v.Content) {
			if c, ok := o.(*widget.Check); ok && (strings.Contains(c.Text, "replies start") || strings.Contains(c.Text, "processor")) {
				check = c
			}
		}
		if check == nil {
			t.Fatalf("refused %q: no Prompts switch", refused)
		}
		if got := check.Disabled(); got != (refused != "") {
			t.Errorf("refused %q: switch disabled %v", refused, got)
		}
		if refused != "" && !strings.Contains(check.Text, "VNNI") {
			t.Errorf("the refused switch says %q, not why", check.Text)
		}
	}
}
