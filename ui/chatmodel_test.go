package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"edgechat/config"
	"edgechat/history"
	"edgechat/models/discover"
	"edgechat/reply"
)

// fakeModels is a ModelSwitch whose loading is its load field; it records what was used.
type fakeModels struct {
	mu      sync.Mutex
	cur     ModelChoice
	choices []ModelChoice
	used    []string // paths, in order
	useErr  error
	load    func(ctx context.Context, status func(string)) error
}

func (f *fakeModels) Current() ModelChoice {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur
}

func (f *fakeModels) Choices() []ModelChoice { return f.choices }

func (f *fakeModels) Use(c ModelChoice) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.useErr != nil {
		return f.useErr
	}
	for _, k := range f.choices { // the switch knows whether a folder holds a base model
		if k.Path == c.Path {
			c.Base = k.Base
		}
	}
	f.cur = c
	f.used = append(f.used, c.Path)
	return nil
}

func (f *fakeModels) Load(ctx context.Context, status func(string)) error {
	if f.load == nil {
		return nil
	}
	return f.load(ctx, status)
}

func (f *fakeModels) uses() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.used...)
}

// modelDirs makes n model folders (they exist: a conversation's model is looked for on disk)
// and returns the choices for them; the last one is a base model.
func modelDirs(t *testing.T, names ...string) []ModelChoice {
	t.Helper()
	root := t.TempDir()
	var out []ModelChoice
	for i, n := range names {
		p := filepath.Join(root, n)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		out = append(out, ModelChoice{Path: p, Name: n, Device: "cpu", Size: 5e8, Base: i == len(names)-1})
	}
	return out
}

// newModelChat is a ChatVM over fake models whose current one is choices[0].
func newModelChat(t *testing.T, fm *fakeModels) (*ChatVM, *memStore) {
	t.Helper()
	vm, _, st := newTestChat(t, script(reply.Summary{FinishReason: reply.FinishStop}, text("ok")))
	vm.deps.Models = fm
	vm.deps.BaseModel = func() bool { return fm.Current().Base }
	vm.RefreshModel()
	return vm, st
}

// Choosing a model loads it in the background: the header shows the engine's words, Send
// waits, and the conversation records the model it goes on with.
func TestChooseModelLoads(t *testing.T) {
	ch := modelDirs(t, "qwen", "phi", "gpt2")
	started, release := make(chan struct{}), make(chan struct{})
	fm := &fakeModels{cur: ch[0], choices: ch, load: func(ctx context.Context, status func(string)) error {
		status("Loading the model for the CPU…")
		close(started)
		<-release
		return nil
	}}
	vm, st := newModelChat(t, fm)
	if got := get[string](vm.ModelLabel); got != "qwen · CPU" {
		t.Errorf("header before = %q", got)
	}
	if err := vm.Send("Hello"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	id := get[string](vm.CurrentID)

	if err := vm.ChooseModel(ch[1]); err != nil {
		t.Fatal(err)
	}
	<-started
	if got, want := get[string](vm.ModelLabel), "phi · loading for the CPU"; got != want || !get[bool](vm.ModelLoading) {
		t.Errorf("header while loading = %q (loading %v), want %q", got, get[bool](vm.ModelLoading), want)
	}
	if got, want := get[string](vm.ModelDetail), "phi: Loading the model for the CPU…"; got != want {
		t.Errorf("the load's full sentence = %q, want %q", got, want)
	}
	if err := vm.Send("Are you there?"); !errors.Is(err, ErrLoading) {
		t.Errorf("Send while loading: %v, want ErrLoading", err)
	}
	close(release)
	vm.waitLoad()
	if got := get[string](vm.ModelLabel); got != "phi · CPU" || get[bool](vm.ModelLoading) {
		t.Errorf("header after loading = %q (loading %v)", got, get[bool](vm.ModelLoading))
	}
	if c, _ := st.Load(id); c.Model != ch[1].Path || c.Mode != history.ModeChat || c.Device != "cpu" {
		t.Errorf("conversation's model = %q %q %q, want %s chat on the CPU", c.Model, c.Device, c.Mode, ch[1].Path)
	}
	if err := vm.Send("Are you there?"); err != nil {
		t.Errorf("Send after loading: %v", err)
	}
	waitIdle(t, vm)
}

// Each conversation goes on with its model and mode: reopening one loads its model when
// another answers; a new chat goes on with the model chosen last; a conversation saved
// before models were kept opens with the model that answers.
func TestConversationKeepsItsModel(t *testing.T) {
	ch := modelDirs(t, "qwen", "gpt2") // gpt2: a base model
	fm := &fakeModels{cur: ch[0], choices: ch}
	vm, st := newModelChat(t, fm)
	if err := vm.Send("chat with qwen"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	chat := get[string](vm.CurrentID)

	vm.NewChat()
	if err := vm.ChooseModel(ch[1]); err != nil {
		t.Fatal(err)
	}
	vm.waitLoad()
	if !get[bool](vm.CompleteText) {
		t.Fatal("a base model did not turn on Complete text")
	}
	if err := vm.Send("Once upon a time"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	complete := get[string](vm.CurrentID)
	if c, _ := st.Load(complete); c.Model != ch[1].Path || c.Mode != history.ModeComplete {
		t.Errorf("complete-text conversation saved with %q %q", c.Model, c.Mode)
	}

	old := storedChat(t, st, "Old", "from before models were kept", "yes")
	steps := []struct {
		open, model string
		complete    bool
	}{
		{chat, ch[0].Path, false},
		{complete, ch[1].Path, true},
		{old, ch[1].Path, true}, // no model recorded: the one that answers stays
		{chat, ch[0].Path, false},
	}
	for _, s := range steps {
		if err := vm.Open(s.open); err != nil {
			t.Fatal(err)
		}
		vm.waitLoad()
		if got := fm.Current().Path; got != s.model || get[bool](vm.CompleteText) != s.complete {
			t.Errorf("open %s: model %s complete %v, want %s %v", s.open, filepath.Base(got), get[bool](vm.CompleteText), filepath.Base(s.model), s.complete)
		}
	}
	if diff := cmp.Diff([]string{ch[1].Path, ch[0].Path, ch[1].Path, ch[0].Path}, fm.uses()); diff != "" {
		t.Errorf("models used (-want +got):\n%s", diff)
	}
	vm.NewChat()
	if err := vm.Send("new"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	if c, _ := st.Load(get[string](vm.CurrentID)); c.Model != ch[0].Path {
		t.Errorf("a new chat went on with %q, want the model chosen last", c.Model)
	}
}

// A conversation whose model is gone opens with its messages, says so and offers the
// picker; sending goes on with the model that answers.
func TestConversationModelMissing(t *testing.T) {
	ch := modelDirs(t, "qwen")
	fm := &fakeModels{cur: ch[0], choices: ch}
	vm, st := newModelChat(t, fm)
	c := history.NewConversation("Gone")
	c.Model, c.Device, c.Mode = filepath.Join(t.TempDir(), "deleted-model"), "cpu", history.ModeComplete
	c.Messages = []history.Message{{ID: "u", Role: "user", Content: "Once upon", Created: time.Now()}}
	if err := st.Save(c); err != nil {
		t.Fatal(err)
	}
	if err := vm.Open(c.ID); err != nil {
		t.Fatal(err)
	}
	if len(messages(vm)) != 1 {
		t.Fatal("the conversation's messages are not shown")
	}
	msg := get[string](vm.Error)
	for _, want := range []string{"deleted-model", "no longer on this PC", "Choose a model", "completing text"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if !get[bool](vm.ModelMissing) || !strings.Contains(get[string](vm.ModelLabel), "not on this PC") || len(fm.uses()) != 0 {
		t.Errorf("header %q missing %v, used %v", get[string](vm.ModelLabel), get[bool](vm.ModelMissing), fm.uses())
	}
	if err := vm.Send("and then"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, vm)
	if got, _ := st.Load(c.ID); got.Model != ch[0].Path || len(got.Messages) != 3 || get[bool](vm.ModelMissing) {
		t.Errorf("after sending: model %q, %d messages, missing %v", got.Model, len(got.Messages), get[bool](vm.ModelMissing))
	}
}

// A model that fails to load, or settings that cannot be saved, leave a message in the chat
// with what to do; the conversation goes on.
func TestChooseModelFails(t *testing.T) {
	ch := modelDirs(t, "qwen", "broken")
	fm := &fakeModels{cur: ch[0], choices: ch, load: func(ctx context.Context, status func(string)) error {
		return errors.New("onnx/model.onnx: protobuf parsing failed")
	}}
	vm, _ := newModelChat(t, fm)
	if err := vm.ChooseModel(ch[1]); err != nil {
		t.Fatal(err)
	}
	vm.waitLoad()
	msg := get[string](vm.Error)
	if !strings.Contains(msg, "Could not load broken") || !strings.Contains(msg, "protobuf parsing failed") || !strings.Contains(msg, "Choose another model") {
		t.Errorf("load failure said %q", msg)
	}
	if get[bool](vm.ModelLoading) || !get[bool](vm.ModelMissing) || !strings.Contains(get[string](vm.ModelLabel), "not loaded") {
		t.Errorf("header after a failed load: %q loading %v", get[string](vm.ModelLabel), get[bool](vm.ModelLoading))
	}
	if err := vm.Send("still here?"); err != nil {
		t.Errorf("Send after a failed load: %v", err)
	}
	waitIdle(t, vm)

	fm.useErr = errors.New("settings.yaml: permission denied")
	fm.load = func(context.Context, func(string)) error { t.Error("loaded although Use failed"); return nil }
	if err := vm.ChooseModel(ch[0]); err == nil || !strings.Contains(get[string](vm.Error), "permission denied") {
		t.Errorf("Use failure: %v, banner %q", err, get[string](vm.Error))
	}
	if get[bool](vm.ModelLoading) {
		t.Error("loading after Use failed")
	}
}

// The window's switch: a CPU model clears the NPU's (else it would go on answering first), an
// NPU model keeps the CPU's for long prompts; the choices leave out embedding models, mark NPU
// builds without an NPU runtime, and list a model set in Settings outside the scanned folders.
func TestSettingsModels(t *testing.T) {
	st := &memSettings{s: config.Settings{NPU: config.Route{Model: "/m/npu", EP: "qnn"}, CPU: config.Route{Model: "/m/cpu", EP: "cpu"}}}
	var saved []config.Settings
	sm := &settingsModels{store: st, saved: func(s config.Settings) { saved = append(saved, s) },
		found: func() []discover.Model {
			return append(twoModels.Models, discover.Model{Path: "/m/emb", Kind: "embedding"}, discover.Model{Path: "/m/rr", Kind: "reranker"})
		},
		npu: func() bool { return false }, base: map[string]bool{"/m/npu": false, "/m/cpu": false, "/x/mine": true}}
	if got := sm.Current(); got.Path != "/m/npu" || got.Device != "npu" {
		t.Errorf("Current = %+v, want the NPU's model", got)
	}
	got := sm.Choices()
	if len(got) != 2 || got[0].Path != "/m/npu" || got[0].Unusable == "" || got[1].Unusable != "" {
		t.Fatalf("choices %+v", got)
	}
	if err := sm.Use(got[0]); err == nil {
		t.Error("an NPU build was used without an NPU runtime")
	}
	if err := sm.Use(got[1]); err != nil {
		t.Fatal(err)
	}
	if st.s.NPU.Model != "" || st.s.CPU.Model != "/m/cpu" || len(saved) != 1 {
		t.Errorf("after using a CPU model: npu %q cpu %q, %d saves", st.s.NPU.Model, st.s.CPU.Model, len(saved))
	}
	if s := applyChoice(config.Settings{CPU: config.Route{Model: "/m/cpu"}}, ModelChoice{Path: "/m/npu2", Device: "npu"}); s.NPU.Model != "/m/npu2" || s.NPU.EP != "qnn" || s.CPU.Model != "/m/cpu" {
		t.Errorf("an NPU model: %+v", s)
	}
	st.s.CPU.Model = "/x/mine"
	if c := sm.Choices(); c[0].Path != "/x/mine" || !c[0].Base || c[0].Name != "mine" {
		t.Errorf("a model set in Settings is not listed first: %+v", c)
	}
	if l := (ModelChoice{Name: "gpt2", Size: 5e8, Device: "cpu", Base: true}).Label(); l != "gpt2 · 500.0 MB · CPU · Complete text" {
		t.Errorf("Label = %q", l)
	}
}

func TestLoadingLabel(t *testing.T) {
	for _, tc := range []struct{ status, want string }{
		{"", "Loading qwen…"},
		{"Preparing this model for your PC: 45%", "qwen · preparing for this PC 45%"},
		{"Loading the model for the NPU…", "qwen · loading for the NPU"},
		{"Loading the model for the CPU: reading the tokenizer (step 1 of 2)", "qwen · reading the tokenizer (1 of 2)"},
		{"Loading qwen: 45%", "Loading qwen: 45%"},
		{"Warming up the NPU", "qwen · Warming up the NPU"},
	} {
		if got := loadingLabel("qwen", tc.status); got != tc.want {
			t.Errorf("loadingLabel(%q) = %q, want %q", tc.status, got, tc.want)
		}
	}
	if got := loadingDetail("qwen", "Preparing this model for your PC: 45%"); got != "qwen: Preparing this model for your PC: 45%" {
		t.Errorf("loadingDetail = %q", got)
	}
}

// Choosing the model that already answers changes nothing: the settings are not saved (the
// variant chosen in Settings stays), so the engine is not rebuilt and keeps its loaded model
// and its conversations' KV caches.
func TestUseCurrentModelKeepsEngine(t *testing.T) {
	st := &memSettings{s: config.Settings{CPU: config.Route{Model: "/m/cpu", ModelFile: "model_q4.onnx", EP: "cpu"}}}
	var saved []config.Settings
	sm := &settingsModels{store: st, saved: func(s config.Settings) { saved = append(saved, s) },
		found: func() []discover.Model { return twoModels.Models }, base: map[string]bool{"/m/cpu": false}}
	cur := sm.Current()
	if err := sm.Use(cur); err != nil {
		t.Fatal(err)
	}
	if st.saved != 0 || len(saved) != 0 || st.s.CPU.ModelFile != "model_q4.onnx" {
		t.Errorf("using the current model saved %d times (%d callbacks), variant %q", st.saved, len(saved), st.s.CPU.ModelFile)
	}
	if err := sm.Use(ModelChoice{Path: "/m/other", Device: "cpu", Name: "other"}); err != nil || st.saved != 1 || st.s.CPU.Model != "/m/other" {
		t.Errorf("another model: %v, %d saves, cpu %q", err, st.saved, st.s.CPU.Model)
	}
}
