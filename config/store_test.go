package config

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustOpen(t *testing.T, file string) *Store {
	t.Helper()
	s, err := Open(file)
	if err != nil {
		t.Fatalf("Open(%s): %v", file, err)
	}
	return s
}

func TestOpenMissingFileGivesDefaults(t *testing.T) {
	file := filepath.Join(t.TempDir(), "nested", "settings.yaml")
	s := mustOpen(t, file)
	if diff := cmp.Diff(Defaults(), s.Settings()); diff != "" {
		t.Errorf("Settings() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string(nil), s.Warnings()); diff != "" {
		t.Errorf("Warnings() (-want +got):\n%s", diff)
	}
	if s.Path() != file {
		t.Errorf("Path() = %q, want %q", s.Path(), file)
	}
}

func TestSaveRoundTrip(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "EdgeChat", "settings.yaml")
	want := Defaults()
	want.CPU.Model = `D:\models\qwen3`
	want.CPU.ModelFile = "model_q4.onnx"
	want.CPU.Threads = 4
	want.NPU.Model = "/models/qwen3-npu"
	want.NPU.EPOptions = map[string]string{"backend_path": "QnnCpu.dll"} // a removed default option stays removed
	want.Remote = Remote{BaseURL: "https://example.com/v1", Model: "qwen", APIKey: "12345", UseForLongPrompts: true}
	want.ORTLibrary = "/opt/ort/libonnxruntime.so"
	want.PrefillLimit = 256
	want.Temperature = 0
	want.TopP = 0.5
	want.TopK = 0
	want.MaxTokens = 2048
	want.RepetitionPenalty = 1.1
	want.SystemPrompt = "Be brief.\nSecond line: with colon"
	want.Thinking = false
	want.Theme = "dark"
	want.DataDir = filepath.Join(dir, "data")
	want.Server = Server{Enabled: true, Addr: "0.0.0.0:9000", APIKey: "secret"}

	s := mustOpen(t, file)
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, s.Settings()); diff != "" {
		t.Errorf("after Save (-want +got):\n%s", diff)
	}
	again := mustOpen(t, file)
	if diff := cmp.Diff(want, again.Settings()); diff != "" {
		t.Errorf("reopened (-want +got):\n%s", diff)
	}
	if w := again.Warnings(); len(w) != 0 {
		t.Errorf("Warnings() = %q, want none", w)
	}
	entries, _ := os.ReadDir(filepath.Dir(file))
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only settings.yaml (no temp files left)", len(entries))
	}
	if info, err := os.Stat(file); err != nil {
		t.Fatal(err)
	} else if perm := info.Mode().Perm(); perm&0o077 != 0 && os.PathSeparator == '/' {
		t.Errorf("settings file mode %v, want private (it holds API keys)", perm)
	}
}

func TestEnvOverride(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.yaml")
	writeFile(t, file, "temperature: 0.3\ncpu:\n  model: /from/file\ntheme: light\n")
	t.Setenv("EDGECHAT_CPU_MODEL", "/from/env")
	t.Setenv("EDGECHAT_NPU_MODEL", "/npu/env")
	t.Setenv("EDGECHAT_ORT_LIBRARY", "/env/libonnxruntime.so")
	t.Setenv("EDGECHAT_TEMPERATURE", "0.9")
	t.Setenv("EDGECHAT_DATA_DIR", "/env/data")
	t.Setenv("EDGECHAT_THINKING", "false")
	t.Setenv("EDGECHAT_SERVER_ADDR", "127.0.0.1:9999")
	t.Setenv("EDGECHAT_TOP_K", "") // empty counts as unset

	s := mustOpen(t, file)
	got := s.Settings()
	want := Defaults()
	want.CPU.Model = "/from/env"
	want.NPU.Model = "/npu/env"
	want.ORTLibrary = "/env/libonnxruntime.so"
	want.Temperature = 0.9
	want.DataDir = "/env/data"
	want.Thinking = false
	want.Server.Addr = "127.0.0.1:9999"
	want.Theme = "light"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Settings() (-want +got):\n%s", diff)
	}
	wantKeys := []string{"cpu.model", "data_dir", "npu.model", "ort_library", "server.addr", "temperature", "thinking"}
	if diff := cmp.Diff(wantKeys, s.Overridden()); diff != "" {
		t.Errorf("Overridden() (-want +got):\n%s", diff)
	}
	if got := EnvName("cpu.model"); got != "EDGECHAT_CPU_MODEL" {
		t.Errorf("EnvName = %q", got)
	}

	// Saving what the UI shows must not write the environment's values into the file.
	got.Theme = "dark"
	got.TopK = 5
	if err := s.Save(got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.CPU.Model, s.Settings().CPU.Model); diff != "" {
		t.Errorf("env still wins after Save (-want +got):\n%s", diff)
	}
	for _, k := range wantKeys {
		t.Setenv(EnvName(k), "")
	}
	fileOnly := mustOpen(t, file).Settings()
	wantFile := Defaults()
	wantFile.Temperature = 0.3
	wantFile.CPU.Model = "/from/file"
	wantFile.Theme = "dark"
	wantFile.TopK = 5
	if diff := cmp.Diff(wantFile, fileOnly); diff != "" {
		t.Errorf("file after Save (-want +got):\n%s", diff)
	}
}

func TestEnvBadValueIsIgnoredWithWarning(t *testing.T) {
	t.Setenv("EDGECHAT_TEMPERATURE", "hot")
	t.Setenv("EDGECHAT_MAX_TOKENS", "1.5")
	t.Setenv("EDGECHAT_THINKING", "maybe")
	s := mustOpen(t, filepath.Join(t.TempDir(), "settings.yaml"))
	if diff := cmp.Diff(Defaults(), s.Settings()); diff != "" {
		t.Errorf("Settings() (-want +got):\n%s", diff)
	}
	want := []string{
		`EDGECHAT_MAX_TOKENS="1.5" is ignored: it should be a whole number`,
		`EDGECHAT_TEMPERATURE="hot" is ignored: it should be a number`,
		`EDGECHAT_THINKING="maybe" is ignored: it should be true or false`,
	}
	if diff := cmp.Diff(want, s.Warnings()); diff != "" {
		t.Errorf("Warnings() (-want +got):\n%s", diff)
	}
	if len(s.Overridden()) != 0 {
		t.Errorf("Overridden() = %q, want none", s.Overridden())
	}
}

func TestConfigFlagSelectsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "other.yaml")
	writeFile(t, file, "top_k: 7\n")
	got, rest, err := FileFromArgs([]string{"--config", file, "-v"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"-v"}, rest); diff != "" {
		t.Errorf("rest (-want +got):\n%s", diff)
	}
	if s := mustOpen(t, got); s.Settings().TopK != 7 || s.Path() != file {
		t.Errorf("Open(%q): TopK=%d Path=%q, want 7 and the --config file", got, s.Settings().TopK, s.Path())
	}

	tests := []struct {
		args     []string
		file     string
		rest     []string
		wantErr  bool
		testName string
	}{
		{[]string{}, "", nil, false, "none"},
		{[]string{"--config=a.yaml"}, "a.yaml", nil, false, "equals"},
		{[]string{"x", "-config", "b.yaml", "y"}, "b.yaml", []string{"x", "y"}, false, "single dash"},
		{[]string{"--config"}, "", nil, true, "missing value"},
		{[]string{"--config="}, "", nil, true, "empty value"},
	}
	for _, tt := range tests {
		t.Run(tt.testName, func(t *testing.T) {
			file, rest, err := FileFromArgs(tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.file, file); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.rest, rest); diff != "" {
				t.Errorf("rest (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCorruptFileMovedAside(t *testing.T) {
	tests := []struct{ name, content string }{
		{"broken yaml", "temperature: [0.6\ncpu: {\n"},
		{"zip bytes", "PK\x03\x04\x14\x00\x00\x00\x08\x00binary"},
		{"not a mapping", "just some text"},
		{"a list", "- a\n- b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "settings.yaml")
			writeFile(t, file, tt.content)
			s := mustOpen(t, file)
			if diff := cmp.Diff(Defaults(), s.Settings()); diff != "" {
				t.Errorf("Settings() (-want +got):\n%s", diff)
			}
			moved, _ := filepath.Glob(file + ".corrupt-*")
			if len(moved) != 1 {
				t.Fatalf("found %q, want one settings.yaml.corrupt-<timestamp>", moved)
			}
			data, err := os.ReadFile(moved[0])
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.content, string(data)); diff != "" {
				t.Errorf("moved file bytes (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Errorf("original still at %s (err %v)", file, err)
			}
			w := strings.Join(s.Warnings(), "\n")
			if !strings.Contains(w, moved[0]) || !strings.Contains(w, "default settings are in use") {
				t.Errorf("Warnings() = %q, want the moved path and what happened", w)
			}
			if err := s.Save(Defaults()); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(moved[0]); string(data) != tt.content {
				t.Errorf("Save touched the moved-aside file")
			}
		})
	}
}

func TestCorruptFileMovedAsideTwice(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.yaml")
	for i, content := range []string{"{{one", "{{two"} {
		writeFile(t, file, content)
		mustOpen(t, file)
		moved, _ := filepath.Glob(file + ".corrupt-*")
		if len(moved) != i+1 {
			t.Fatalf("after %d damaged files found %q; an earlier copy was replaced", i+1, moved)
		}
	}
}

func TestBadValuesInFileKeepTheRest(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.yaml")
	writeFile(t, file, "temperature: hot\ntop_k: 7\nfuture_option: keep me\nnpu:\n  ep_options:\n    backend_path: QnnCpu.dll\n")
	s := mustOpen(t, file)
	want := Defaults()
	want.TopK = 7
	want.NPU.EPOptions = map[string]string{"backend_path": "QnnCpu.dll"}
	if diff := cmp.Diff(want, s.Settings()); diff != "" {
		t.Errorf("Settings() (-want +got):\n%s", diff)
	}
	wantWarn := []string{
		file + `: unknown setting "future_option" is ignored (kept in the file)`,
		file + ": temperature should be a number; using the default instead (the file is unchanged)",
	}
	if diff := cmp.Diff(wantWarn, s.Warnings()); diff != "" {
		t.Errorf("Warnings() (-want +got):\n%s", diff)
	}
	if err := s.Save(s.Settings()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), "future_option: keep me") {
		t.Errorf("unknown key lost on Save:\n%s", data)
	}
}

func TestOpenUnusable(t *testing.T) {
	dir := t.TempDir() // a folder where the file should be
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("Open(folder) = %v, want an error naming it", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "settings.yaml"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			st := s.Settings()
			st.TopK = i
			st.NPU.EPOptions["x"] = "y" // a caller's copy must not alias the store's map
			if err := s.Save(st); err != nil {
				t.Error(err)
			}
			_ = s.Warnings()
			_ = s.Overridden()
		})
	}
	wg.Wait()
}

func TestSectionGivenAsValue(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.yaml")
	writeFile(t, file, "cpu: oops\nfuture:\n  a: 1\n")
	s := mustOpen(t, file)
	wantWarn := []string{
		file + ": cpu should be a section of settings (like cpu.model), not a single value; using the defaults instead",
		file + `: unknown setting "future.a" is ignored (kept in the file)`,
	}
	if diff := cmp.Diff(wantWarn, s.Warnings()); diff != "" {
		t.Errorf("Warnings() (-want +got):\n%s", diff)
	}
	st := s.Settings()
	st.CPU.Model = "/m"
	if err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	again := mustOpen(t, file)
	if diff := cmp.Diff(st, again.Settings()); diff != "" {
		t.Errorf("reopened (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{file + `: unknown setting "future.a" is ignored (kept in the file)`}, again.Warnings()); diff != "" {
		t.Errorf("Warnings() after Save (-want +got):\n%s", diff)
	}
}
