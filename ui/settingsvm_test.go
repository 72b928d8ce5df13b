package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"edgechat/config"
)

type memSettings struct {
	s     config.Settings
	saved int
	err   error
}

func (m *memSettings) Settings() config.Settings { return m.s }
func (m *memSettings) Save(s config.Settings) error {
	if m.err != nil {
		return m.err
	}
	m.s, m.saved = s, m.saved+1
	return nil
}

// fakeTester's behaviour is its test field.
type fakeTester struct {
	test func(ctx context.Context, r config.Route, ort string) (string, error)
}

func (f fakeTester) Test(ctx context.Context, r config.Route, ort string) (string, error) {
	return f.test(ctx, r, ort)
}

// modelDir makes a folder that passes config.CheckModelPath.
func modelDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "onnx"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"tokenizer.json": "{}", "config.json": "{}", "onnx/model.onnx": "\x08\x07rest",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSettingsVMValidate(t *testing.T) {
	test.NewTempApp(t)
	model := modelDir(t)
	tests := []struct {
		name  string
		key   string
		value string
		want  string // substring of the field's error; "" = valid
	}{
		{"valid", "temperature", "0.7", ""},
		{"comma decimal", "top_p", "0,9", ""},
		{"not a number", "temperature", "warm", "enter a number, e.g. 0.6"},
		{"out of range", "temperature", "3", "between 0 and 2"},
		{"top-k not whole", "top_k", "2.5", "whole number"},
		{"missing model folder", "npu.model", "/no/such/folder", "does not exist"},
		{"folder without model", "npu.model", os.TempDir(), "ONNX"},
		{"unknown EP", "cpu.ep", "cuda", "choose one of"},
		{"bad options", "npu.ep_options", "backend_path", "key=value"},
		{"missing ORT library", "ort_library", "/no/libonnxruntime.so", "does not exist"},
		{"max tokens", "max_tokens", "0", "between 1 and 32768"},
		{"unusable data folder", "data_dir", "/dev/null/data", "/dev/null is a file, not a folder"},
		{"data folder to create", "data_dir", filepath.Join(t.TempDir(), "chats"), ""},
		{"unusable models folder", "models_dir", "/dev/null/models", "/dev/null is a file, not a folder — choose another folder"},
		{"models folder is a file", "models_dir", "/dev/null", "is a file — choose a folder for downloaded models"},
		{"models folder to create", "models_dir", filepath.Join(t.TempDir(), "big", "models"), ""},
		{"default models folder", "models_dir", "", ""},
		{"KV cache", "kv_cache", "32-bit", ""},
		{"unknown KV cache", "kv_cache", "4-bit", "KV cache must be one of auto, 32-bit, 8-bit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &memSettings{s: config.Defaults()}
			st.s.CPU.Model = model
			vm := NewSettingsVM(st, nil)
			_ = vm.Fields[tt.key].Set(tt.value)
			got := get[string](vm.Errors[tt.key])
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("error for %s=%q: %q, want %q", tt.key, tt.value, got, tt.want)
			}
			err := vm.Save()
			if (err == nil) != (tt.want == "") {
				t.Errorf("Save() = %v", err)
			}
			if tt.want != "" && st.saved != 0 {
				t.Error("invalid settings were saved")
			}
		})
	}
}

func TestSettingsVMSave(t *testing.T) {
	test.NewTempApp(t)
	st := &memSettings{s: config.Defaults()}
	vm := NewSettingsVM(st, nil)
	if vm.Validate() {
		t.Fatal("settings with no model validated")
	}
	if got := get[string](vm.Errors["cpu.model"]); !strings.Contains(got, "choose a model folder") {
		t.Errorf("no-model error = %q", got)
	}
	var applied config.Settings
	vm.OnSaved = func(s config.Settings) { applied = s }
	_ = vm.Fields["cpu.model"].Set(modelDir(t))
	_ = vm.Fields["npu.ep_options"].Set("backend_path=QnnHtp.dll, htp_performance_mode=burst")
	_ = vm.Fields["theme"].Set("dark")
	_ = vm.Thinking.Set(false)
	_ = vm.Fields["kv_cache"].Set(config.KVCache8)
	_ = vm.PromptInt8.Set(true)
	_ = vm.Fields["power.mode"].Set("saver")
	_ = vm.Fields["power.saver_htp_mode"].Set("power_saver")
	if err := vm.Save(); err != nil {
		t.Fatal(err)
	}
	if st.s.Theme != "dark" || st.s.Thinking || st.s.KVCache != config.KVCache8 || !st.s.PromptInt8 || st.s.NPU.EPOptions["htp_performance_mode"] != "burst" || applied.Theme != "dark" ||
		st.s.Power != (config.Power{Mode: "saver", SaverHTPMode: "power_saver"}) {
		t.Errorf("saved %+v", st.s)
	}
	st.err = errors.New("disk full")
	if err := vm.Save(); err == nil || !strings.Contains(get[string](vm.Summary), "disk full") {
		t.Errorf("failed save: %v, summary %q", err, get[string](vm.Summary))
	}
}

func TestSettingsVMTest(t *testing.T) {
	test.NewTempApp(t)
	model := modelDir(t)
	st := &memSettings{s: config.Defaults()}
	st.s.CPU.Model = model
	var gotRoute config.Route
	vm := NewSettingsVM(st, fakeTester{test: func(_ context.Context, r config.Route, _ string) (string, error) {
		gotRoute = r
		return "Qwen3 · 28 layers", nil
	}})
	vm.Test("cpu")
	deadline := time.Now().Add(5 * time.Second)
	for get[bool](vm.Testing) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := get[string](vm.Result); got != "Qwen3 · 28 layers" || gotRoute.Model != model {
		t.Errorf("Test result %q for route %+v", got, gotRoute)
	}
	vm.Test("npu") // no NPU model: says what to do without calling the tester
	if got := get[string](vm.Result); !strings.Contains(got, "NPU: choose the folder") {
		t.Errorf("NPU test without a model = %q", got)
	}
}

func TestWelcomeVM(t *testing.T) {
	test.NewTempApp(t)
	st := &memSettings{s: config.Defaults()}
	vm := NewWelcomeVM(st)
	ready := false
	vm.OnReady = func(config.Settings) { ready = true }
	if err := vm.UseModel(t.TempDir()); err == nil || get[string](vm.Error) == "" {
		t.Errorf("an empty folder was accepted: %v", err)
	}
	model := modelDir(t)
	if err := vm.UseModel(model); err != nil {
		t.Fatal(err)
	}
	if !ready || st.s.CPU.Model != model || !HasModel(st.s) {
		t.Errorf("model not saved: %+v", st.s.CPU)
	}
}

type envSettings struct{ memSettings }

func (*envSettings) Overridden() []string { return []string{"cpu.model", "temperature"} }

func TestSettingsVMOverridden(t *testing.T) {
	test.NewTempApp(t)
	vm := NewSettingsVM(&envSettings{memSettings{s: config.Defaults()}}, nil)
	want := map[string]string{"cpu.model": "EDGECHAT_CPU_MODEL", "temperature": "EDGECHAT_TEMPERATURE"}
	if diff := cmp.Diff(want, vm.Overridden); diff != "" {
		t.Errorf("Overridden (-want +got):\n%s", diff)
	}
	w := test.NewTempWindow(t, nil)
	v := NewSettingsView(vm, w, func() {})
	w.SetContent(v.Content)
	test.Tap(v.Save) // invalid (no model): the summary says what to do
	if got := get[string](vm.Summary); !strings.Contains(got, "marked in red") {
		t.Errorf("summary after Save = %q", got)
	}
}

// epTester also answers CheckEP, like the app's tester once ONNX Runtime is loaded.
type epTester struct {
	fakeTester
	missing string
}

func (e epTester) CheckEP(ep string) error {
	if ep == e.missing {
		return errors.New("QNN is not usable in the ONNX Runtime at /x/libonnxruntime.so.1: choose a build that has it")
	}
	return nil
}

func TestSettingsVMFlagsMissingEP(t *testing.T) {
	test.NewTempApp(t)
	s := config.Defaults()
	s.NPU.Model, s.CPU.Model = modelDir(t), modelDir(t)
	vm := NewSettingsVM(&memSettings{s: s}, epTester{missing: "qnn"})
	if vm.Validate() {
		t.Fatal("a provider the ONNX Runtime lacks passed validation")
	}
	if msg := get[string](vm.Errors["npu.ep"]); !strings.Contains(msg, "not usable") {
		t.Fatalf("npu.ep error %q", msg)
	}
	_ = vm.Fields["npu.ep"].Set("cpu")
	if !vm.Validate() {
		t.Fatalf("still invalid: %q", get[string](vm.Summary))
	}
}

// finderTester also answers FindRuntimes, like the app's tester on Windows.
type finderTester struct {
	fakeTester
	found []Runtime
}

func (f finderTester) FindRuntimes() []Runtime { return f.found }

func TestSettingsViewListsRuntimes(t *testing.T) {
	test.NewTempApp(t)
	good := Runtime{Path: `C:\Users\me\venv\Lib\site-packages\onnxruntime\capi\onnxruntime.dll`, Origin: "Python environment you named",
		Version: "1.24.1", Providers: []string{"QNNExecutionProvider", "CPUExecutionProvider"}}
	old := Runtime{Path: `C:\Users\me\.nuget\packages\microsoft.ml.onnxruntime.qnn\1.22.0\runtimes\win-arm64\native\onnxruntime.dll`,
		Origin: "NuGet Microsoft.ML.OnnxRuntime.QNN 1.22.0", Version: "1.22.0", Problem: "ONNX Runtime 1.22.0 is older than 1.24.0"}
	vm := NewSettingsVM(&memSettings{s: config.Defaults()}, finderTester{found: []Runtime{good, old}})
	w := test.NewTempWindow(t, nil)
	v := NewSettingsView(vm, w, func() {})
	w.SetContent(v.Content)
	v.Shown()
	select {
	case <-v.runtimesListed:
	case <-time.After(5 * time.Second):
		t.Fatal("the runtimes found were not shown")
	}
	var uses []*widget.Button
	for _, o := range test.LaidOutObjects(v.Content) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Use" {
			uses = append(uses, b)
		}
	}
	if len(uses) != 2 {
		t.Fatalf("%d Use buttons, want one per runtime found", len(uses))
	}
	if uses[0].Disabled() || !uses[1].Disabled() {
		t.Errorf("Use buttons disabled = %v, %v; want only the unusable one disabled", uses[0].Disabled(), uses[1].Disabled())
	}
	test.Tap(uses[0])
	if got := get[string](vm.Fields["ort_library"]); got != good.Path {
		t.Errorf("ort_library after Use = %q, want %q", got, good.Path)
	}
}

// The summary's colour follows what happened, not its wording.
func TestSettingsSummaryImportance(t *testing.T) {
	test.NewTempApp(t)
	s := config.Defaults()
	s.CPU.Model = modelDir(t)
	vm := NewSettingsVM(&memSettings{s: s}, nil)
	w := test.NewTempWindow(t, nil)
	v := NewSettingsView(vm, w, func() {})
	w.SetContent(v.Content)
	tests := []struct {
		name string
		set  func()
		want widget.Importance
	}{
		{"saved", func() { _ = vm.Save() }, widget.SuccessImportance},
		{"saved, data folder after restart", func() {
			vm.setSummary(SummarySuccess, "Saved. The new data folder is used after EdgeChat restarts.")
		}, widget.SuccessImportance},
		{"saved with a problem", func() { vm.setSummary(SummaryWarning, "Saved, but the port is taken") }, widget.WarningImportance},
		{"invalid", func() { _ = vm.Fields["temperature"].Set("hot"); _ = vm.Save() }, widget.DangerImportance},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.set()
			if v.Summary.Importance != tt.want {
				t.Errorf("importance %v for %q, want %v", v.Summary.Importance, v.Summary.Text, tt.want)
			}
		})
	}
}

// The Models folder row says where downloads go by default and that the models in the folder
// earlier versions used are still found there.
func TestSettingsViewModelsFolder(t *testing.T) {
	test.NewTempApp(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	if err := os.MkdirAll(config.EarlierModelsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	w := test.NewTempWindow(t, nil)
	v := NewSettingsView(NewSettingsVM(&memSettings{s: config.Defaults()}, nil), w, func() {})
	if got, want := v.entries["models_dir"].PlaceHolder, filepath.Join(home, ".local", "share", "EdgeChat", "models"); got != want {
		t.Errorf("models folder placeholder %q, want the data folder's %q", got, want)
	}
	var note string
	for _, o := range test.LaidOutObjects(v.Content) {
		if l, ok := o.(*widget.Label); ok && strings.HasPrefix(l.Text, "Downloaded models go here") {
			note = l.Text
		}
	}
	if !strings.Contains(note, config.EarlierModelsDir()+" (where earlier versions put them) are still found") {
		t.Errorf("the models folder note says %q", note)
	}
}
