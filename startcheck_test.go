package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/config"
	"edgechat/ui"
)

// writeBrokenModel writes a model folder whose graph is not an ONNX model.
func writeBrokenModel(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{"config.json": "{}", "tokenizer.json": "{}", "onnx/model.onnx": "<html>rate limited</html>"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestModelProblems(t *testing.T) {
	broken := writeBrokenModel(t)
	notLib := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	if err := os.WriteFile(notLib, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	type want struct {
		fix  ui.ProblemFix
		text string
	}
	tests := []struct {
		name string
		edit func(s *config.Settings)
		want []want
	}{
		{"no model yet", func(s *config.Settings) {}, nil},
		{"a remote server only", func(s *config.Settings) {
			s.Remote.BaseURL, s.ORTLibrary = "http://127.0.0.1:1/v1", "/nowhere/libonnxruntime.so.1"
		}, nil},
		{"a model folder that is gone", func(s *config.Settings) { s.CPU.Model, s.ORTLibrary = "/nowhere/qwen3", "/nowhere/libonnxruntime.so.1" }, []want{
			{ui.FixModel, "The CPU's model cannot be used, so replies will fail: /nowhere/qwen3 does not exist"},
			{ui.FixRuntime, "cannot load ONNX Runtime, which runs the models on this PC, so replies will fail: ONNX Runtime library /nowhere/libonnxruntime.so.1 (from the setting) does not exist"},
		}},
		{"a graph that is not ONNX, a library that does not load", func(s *config.Settings) { s.NPU.Model, s.ORTLibrary = broken, notLib }, []want{
			{ui.FixModel, "The NPU's model cannot be used, so replies will fail: " + filepath.Join(broken, "onnx", "model.onnx") + " is not an ONNX model"},
			// Not loaded: "load ONNX Runtime from …"; another test of this process loaded one:
			// "already loaded from …; restart EdgeChat to use …". Both name the file.
			{ui.FixRuntime, notLib},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := config.Defaults()
			tt.edit(&s)
			got := modelProblems(s)
			if len(got) != len(tt.want) {
				t.Fatalf("problems %+v, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				if got[i].Fix != w.fix || !strings.Contains(got[i].Message, w.text) {
					t.Errorf("problem %d = %+v, want fix %d saying %q", i, got[i], w.fix, w.text)
				}
				// The loader's reason is the system's words, and the sentence says so.
				if w.text == notLib && !strings.Contains(got[i].Message, "already loaded") {
					if want := notLib + " as its ONNX Runtime library (the system says: file too short)"; !strings.Contains(got[i].Message, want) {
						t.Errorf("problem %d = %q, want it to say %q", i, got[i].Message, want)
					}
				}
			}
		})
	}
}

// A broken model and a missing ONNX Runtime show in the window when it opens, not in the
// first reply: the chat opens with the banner and its ways out (ui's tests tap them).
func TestStartupModelProblem(t *testing.T) {
	st, _ := startIn(t, "cpu:\n  model: /nowhere/qwen3\nort_library: /nowhere/libonnxruntime.so.1\n")
	if st.main == nil {
		t.Fatalf("the chat window did not open (problem window: %v)", st.problem != nil)
	}
	<-st.main.Checked()
	b := st.main.Banner
	if !b.Content.Visible() || !b.Runtime.Visible() || !b.Model.Visible() {
		t.Fatalf("banner shown %v, runtime %v, model %v; want all", b.Content.Visible(), b.Runtime.Visible(), b.Model.Visible())
	}
	for _, want := range []string{"/nowhere/qwen3 does not exist", "/nowhere/libonnxruntime.so.1 (from the setting) does not exist"} {
		if !strings.Contains(b.Text.Text, want) {
			t.Errorf("banner %q does not say %q", b.Text.Text, want)
		}
	}
}

func TestLoadFailure(t *testing.T) {
	for _, tc := range []struct {
		err  string
		want string // "" = not a load failure
	}{
		{`load ONNX Runtime from /x/libonnxruntime.so.1: Platform-specific initialization failed: Error loading ONNX shared library "/x/libonnxruntime.so.1": /x/libonnxruntime.so.1: file too short (is it ONNX Runtime 1.30.0 for this platform?)`, "file too short"},
		{`load ONNX Runtime from C:\x\onnxruntime.dll: Platform-specific initialization failed: Error loading ONNX shared library "C:\x\onnxruntime.dll": The specified module could not be found. (is it ONNX Runtime 1.30.0 for this platform?)`, "The specified module could not be found."},
		{`ONNX Runtime is already loaded from /a; restart EdgeChat to use /b`, ""},
		{`load ONNX Runtime from /x: (is it ONNX Runtime 1.30.0 for this platform?)`, ""},
	} {
		got, ok := loadFailure(errors.New(tc.err))
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("loadFailure(%q) = %q, %v; want %q", tc.err, got, ok, tc.want)
		}
	}
}
