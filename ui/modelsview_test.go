package ui

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
	"edgechat/internal/testkit/fakehub"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/models/discover"
	"edgechat/models/hub"
	"edgechat/reply"
)

func newModelsWindow(t *testing.T, s config.Settings, lib ModelLibrary) (*MainWindow, *memSettings) {
	t.Helper()
	a := test.NewTempApp(t)
	st := &memSettings{s: s}
	hs := newMemStore()
	m := New(a, Deps{
		Engine:   &fakeEngine{gen: script(reply.Summary{FinishReason: "stop", Backend: "cpu"}, text("ok"))},
		Settings: st, History: hs, NewSaver: hs.newSaver, Models: lib,
	})
	t.Cleanup(m.Chat.Close)
	t.Cleanup(m.Models.Close)
	waitFor(t, "the first scan", func() bool { return !m.Models.Scanning() })
	return m, st
}

// findButton returns the visible button with text under o.
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	switch x := o.(type) {
	case *widget.Button:
		if x.Text == text && x.Visible() {
			return x
		}
	case *fyne.Container:
		for _, c := range x.Objects {
			if b := findButton(c, text); b != nil {
				return b
			}
		}
	case *container.Scroll:
		return findButton(x.Content, text)
	}
	return nil
}

func TestModelsViewFromWelcomeAndSettings(t *testing.T) {
	lib := &fakeLibrary{scan: func() discover.Result { return twoModels }}
	m, st := newModelsWindow(t, config.Defaults(), lib)
	if !m.WelcomeView.Models.Visible() {
		t.Fatal("the welcome page has no Models button")
	}
	test.Tap(m.WelcomeView.Models)
	if m.Window.Content() != m.ModelsView.Content {
		t.Fatal("the Models button did not open the Models view")
	}
	test.Tap(m.ModelsView.Back)
	if m.Window.Content() != m.WelcomeView.Content {
		t.Fatal("Back did not return to the welcome page")
	}
	test.Tap(m.WelcomeView.Models)
	buttons, ok := m.ModelsView.UseButtons["/m/npu"]
	if !ok || len(m.ModelsView.UseButtons) != 2 {
		t.Fatalf("found rows %v, want both models", m.ModelsView.UseButtons)
	}
	if buttons[0].Importance != widget.HighImportance {
		t.Error("an NPU build's Use for NPU is not the main action")
	}
	test.Tap(buttons[0])
	if st.s.NPU.Model != "/m/npu" || m.Window.Content() != m.main || m.right.Objects[0] != m.ChatView.Content {
		t.Fatalf("Use for NPU: npu model %q, chat shown %v", st.s.NPU.Model, m.right.Objects[0] == m.ChatView.Content)
	}
	m.ShowSettings()
	test.Tap(m.SettingsView.Models)
	if m.right.Objects[0] != m.ModelsView.Content {
		t.Fatal("Settings' Models button did not open the Models view beside the sidebar")
	}
	test.Tap(m.ModelsView.Back)
	if m.right.Objects[0] != m.SettingsView.Content {
		t.Error("Back did not return to the settings")
	}
}

func TestModelsViewWithoutLibrary(t *testing.T) {
	m, _ := newTestWindow(t, config.Defaults())
	if m.WelcomeView.Models.Visible() || m.SettingsView.Models.Visible() || m.ModelsView != nil {
		t.Error("without a library the Models buttons show")
	}
}

// serveTinyModel serves a generated model as org/name on a fake hub and points HF_ENDPOINT at it.
func serveTinyModel(t *testing.T, name string) *fakehub.Server {
	t.Helper()
	o := synth.Tiny()
	o.Vocab = 4096
	o.TokenizerDir = testenv.TokenizerDir(t, "qwen3")
	src := filepath.Join(t.TempDir(), "src")
	if err := fakehub.WriteModel(src, o); err != nil {
		t.Fatal(err)
	}
	repo, err := fakehub.RepoFromDir(name, "0123456789abcdef0123456789abcdef01234567", src)
	if err != nil {
		t.Fatal(err)
	}
	s := fakehub.Start(repo)
	t.Cleanup(s.Close)
	t.Setenv("HF_ENDPOINT", s.URL)
	return s
}

// isolateHome points the scan's home folder and Hugging Face variables at an empty folder.
func isolateHome(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	for _, v := range []string{"XDG_CACHE_HOME", "HF_HOME", "HF_HUB_CACHE", "HF_TOKEN"} {
		t.Setenv(v, "")
	}
	return home
}

// TestWelcomeDownloadChat: a fresh profile, the Hub on loopback: welcome page → Download →
// Use for CPU → chat, with no file picker.
func TestWelcomeDownloadChat(t *testing.T) {
	s := serveTinyModel(t, "onnx-community/Qwen3-0.6B-ONNX")
	home := isolateHome(t)
	cfg := config.Defaults()
	cfg.ModelsDir = filepath.Join(home, "models")
	lib := &settingsLibrary{}
	m, st := newModelsWindow(t, cfg, lib)
	lib.Library = Library{Settings: st, Options: hub.Options{Backoff: 1e6}}

	test.Tap(m.WelcomeView.Models)
	test.Tap(m.ModelsView.Suggested[0]) // Qwen3-0.6B, q4
	ds := m.Models.Downloads()
	if len(ds) != 1 {
		t.Fatalf("%d downloads, want 1", len(ds))
	}
	waitFor(t, "the download", func() bool { s := ds[0].State(); return s != StateRunning })
	if ds[0].State() != StateDone {
		t.Fatalf("download %s: %s", ds[0].State(), get[string](ds[0].Detail))
	}
	if s.BytesSent.Load() == 0 {
		t.Fatal("nothing came from the fake hub")
	}
	waitFor(t, "the rescan", func() bool { return !m.Models.Scanning() && len(m.Models.Found()) == 1 })
	use := findButton(m.ModelsView.Content, "Use for CPU")
	if use == nil {
		t.Fatal("no Use for CPU button")
	}
	test.Tap(use)
	if m.Window.Content() != m.main || m.right.Objects[0] != m.ChatView.Content {
		t.Fatal("the chat is not shown after Use for CPU")
	}
	if _, err := models.Open(st.s.CPU.Model, ""); err != nil || filepath.Dir(filepath.Dir(st.s.CPU.Model)) != cfg.ModelsDir {
		t.Errorf("CPU model %q: %v", st.s.CPU.Model, err)
	}
}

// settingsLibrary lets a test build the Library after the window (it needs its store).
type settingsLibrary struct{ Library }

func (l *settingsLibrary) Scan() discover.Result {
	if l.Settings == nil {
		return discover.Result{}
	}
	return l.Library.Scan()
}

func (l *settingsLibrary) Pull(ctx context.Context, req hub.Request, p func(hub.Progress)) (hub.Result, error) {
	return l.Library.Pull(ctx, req, p)
}

// TestFoundryModelToChat: a model in a fake Foundry Local cache is found and, with one click,
// becomes the CPU route's model.
func TestFoundryModelToChat(t *testing.T) {
	o := synth.Tiny()
	o.Vocab, o.Layout, o.TokenizerDir = 512, synth.LayoutGenAI, testenv.TokenizerDir(t, "qwen3")
	home := isolateHome(t) // after finding the test data under the real home
	dir := filepath.Join(home, ".foundry", "cache", "models", "Microsoft", "qwen2.5-0.5b-instruct-generic-cpu-4", "v4")
	if err := synth.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inference_model.json"), []byte(`{"Name": "qwen2.5-0.5b-instruct-generic-cpu:4"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	st0 := config.Defaults()
	st0.ModelsDir = filepath.Join(home, "models")
	lib := &settingsLibrary{}
	m, st := newModelsWindow(t, st0, lib)
	lib.Library = Library{Settings: st}
	done := make(chan struct{})
	m.Models.Refresh(func() { close(done) })
	<-done
	waitFor(t, "the scan", func() bool { return !m.Models.Scanning() })
	test.Tap(m.WelcomeView.Models)
	b, ok := m.ModelsView.UseButtons[dir]
	if !ok {
		t.Fatalf("the Foundry model was not found: %v (%s)", m.ModelsView.UseButtons, get[string](m.Models.Status))
	}
	test.Tap(b[1])
	if st.s.CPU.Model != dir || m.right.Objects[0] != m.ChatView.Content {
		t.Errorf("CPU model %q, chat shown %v", st.s.CPU.Model, m.right.Objects[0] == m.ChatView.Content)
	}
}

// TestModelsViewPicture renders the view with a download under way to $EDGECHAT_SHOT (a PNG),
// to look at without a display.
func TestModelsViewPicture(t *testing.T) {
	out := os.Getenv("EDGECHAT_SHOT")
	if out == "" {
		t.Skip("set EDGECHAT_SHOT=file.png to write the picture")
	}
	var pulls atomic.Int32
	lib := &fakeLibrary{scan: func() discover.Result { return twoModels }, pull: blockingPull(make(chan struct{}), &pulls)}
	s := config.Defaults()
	s.ModelsDir = t.TempDir()
	m, _ := newModelsWindow(t, s, lib)
	m.Window.Resize(fyne.NewSize(1100, 720))
	test.Tap(m.WelcomeView.Models)
	test.Tap(m.ModelsView.Suggested[0])
	waitFor(t, "progress", func() bool { return pulls.Load() == 1 })
	time.Sleep(100 * time.Millisecond)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, m.Window.Canvas().Capture()); err != nil {
		t.Fatal(err)
	}
}

// TestEmbeddingModelIsForDocumentsOnly: an embedding model is offered for documents, never
// for a chat route.
func TestEmbeddingModelIsForDocumentsOnly(t *testing.T) {
	found := discover.Result{Models: []discover.Model{{Path: "/m/emb", Name: "onnx-community/Qwen3-Embedding-0.6B-ONNX", Source: discover.SourceHFCache, Layout: "A", Kind: models.KindEmbedding, Device: "cpu", Quantization: "fp32"}}}
	lib := &fakeLibrary{scan: func() discover.Result { return found }}
	m, st := newModelsWindow(t, config.Defaults(), lib)
	test.Tap(m.WelcomeView.Models)
	buttons, ok := m.ModelsView.UseButtons["/m/emb"]
	if !ok || buttons[0] != nil || buttons[1] == nil || buttons[1].Text != "Use for documents" {
		t.Fatalf("buttons %v: want only Use for documents", buttons)
	}
	test.Tap(buttons[1])
	if st.s.EmbeddingModel != "/m/emb" || st.s.CPU.Model != "" || st.s.NPU.Model != "" {
		t.Errorf("settings after Use for documents: embedding %q, cpu %q, npu %q", st.s.EmbeddingModel, st.s.CPU.Model, st.s.NPU.Model)
	}
}

// TestRerankerIsForDocumentsOnly: a reranker is offered for re-ranking, never for a chat route.
func TestRerankerIsForDocumentsOnly(t *testing.T) {
	found := discover.Result{Models: []discover.Model{{Path: "/m/rr", Name: "Xenova/ms-marco-MiniLM-L-6-v2", Source: discover.SourceHFCache, Layout: "A", Kind: models.KindReranker, Device: "cpu", Quantization: "fp32"}}}
	lib := &fakeLibrary{scan: func() discover.Result { return found }}
	m, st := newModelsWindow(t, config.Defaults(), lib)
	test.Tap(m.WelcomeView.Models)
	buttons, ok := m.ModelsView.UseButtons["/m/rr"]
	if !ok || buttons[0] != nil || buttons[1] == nil || buttons[1].Text != "Use for re-ranking" {
		t.Fatalf("buttons %v: want only Use for re-ranking", buttons)
	}
	test.Tap(buttons[1])
	if st.s.RerankerModel != "/m/rr" || st.s.EmbeddingModel != "" || st.s.CPU.Model != "" || st.s.NPU.Model != "" {
		t.Errorf("settings after Use for re-ranking: reranker %q, embedding %q, cpu %q, npu %q", st.s.RerankerModel, st.s.EmbeddingModel, st.s.CPU.Model, st.s.NPU.Model)
	}
}

// The chat's header names the model that answers and where, and its picker opens the Models
// view; Back returns to the chat.
func TestChatHeaderNamesTheModel(t *testing.T) {
	s := config.Defaults()
	s.CPU.Model = "/m/onnx-community--Qwen3-0.6B-ONNX/0123456789abcdef0123456789abcdef01234567"
	m, st := newModelsWindow(t, s, &fakeLibrary{scan: func() discover.Result { return twoModels }})
	if got, want := m.ChatView.Model.Text, "onnx-community/Qwen3-0.6B-ONNX · CPU"; got != want {
		t.Errorf("header model = %q, want %q", got, want)
	}
	test.Tap(m.ChatView.Model)
	test.Tap(m.ChatView.picker.manage)
	if m.right.Objects[0] != m.ModelsView.Content {
		t.Fatal("the picker's Manage models… did not open the Models view")
	}
	test.Tap(m.ModelsView.UseButtons["/m/cpu"][1])
	if st.s.CPU.Model != "/m/cpu" || m.right.Objects[0] != m.ChatView.Content {
		t.Fatalf("Use for CPU from the header: cpu model %q, chat shown %v", st.s.CPU.Model, m.right.Objects[0] == m.ChatView.Content)
	}
	if got, want := m.ChatView.Model.Text, "org/qwen · CPU"; got != want { // named as the scan names it
		t.Errorf("header model after the change = %q, want %q", got, want)
	}
	if got := headerLabel(choiceOf(config.Settings{NPU: config.Route{Model: "/x/qwen3-npu"}, CPU: config.Route{Model: "/x/c"}}, nil), true); got != "qwen3-npu · NPU · Complete text" {
		t.Errorf("header for an NPU base model = %q", got)
	}
}

// A suggestion's button follows its download: "Downloading…" while it runs, "Downloaded" once
// done (both disabled), where it said "Download" throughout and invited a second download;
// the other suggestions stay as they were.
func TestSuggestionFollowsItsDownload(t *testing.T) {
	release := make(chan struct{})
	var pulls atomic.Int32
	lib := &fakeLibrary{pull: blockingPull(release, &pulls)}
	s := config.Defaults()
	s.ModelsDir = t.TempDir()
	m, _ := newModelsWindow(t, s, lib)
	d := newQueuedApp(t) // the download's goroutine updates the view through fyne.Do
	test.Tap(m.WelcomeView.Models)
	d.run()
	first, second := m.ModelsView.Suggested[0], m.ModelsView.Suggested[1]
	test.Tap(first)
	waitFor(t, "the pull", func() bool { return pulls.Load() == 1 })
	waitFor(t, "Downloading…", func() bool { d.run(); return first.Text == "Downloading…" && first.Disabled() })
	close(release)
	waitFor(t, "Downloaded", func() bool { d.run(); return first.Text == "Downloaded" && first.Disabled() })
	if second.Text != "Download" || second.Disabled() {
		t.Errorf("another suggestion says %q (disabled %v)", second.Text, second.Disabled())
	}
}

// An interrupted download from an earlier run shows what it left, not a bar at 0%.
func TestInterruptedDownloadShowsNoEmptyBar(t *testing.T) {
	s := config.Defaults()
	s.ModelsDir = t.TempDir()
	lib := &fakeLibrary{pending: func(dir string) []hub.Interrupted {
		if dir != s.ModelsDir {
			return nil
		}
		return []hub.Interrupted{{Request: hub.Request{Ref: "org/left", Variant: "q4", ModelsDir: dir}, OnDisk: 12_000_000}}
	}}
	m, _ := newModelsWindow(t, s, lib)
	d := newQueuedApp(t) // the scan's goroutine updates the view through fyne.Do
	test.Tap(m.WelcomeView.Models)
	waitFor(t, "the interrupted download", func() bool { return len(m.Models.Downloads()) == 1 })
	var bars []*widget.ProgressBar
	waitFor(t, "its row", func() bool {
		d.run()
		bars = nil
		walkObjects(m.ModelsView.Content, func(o fyne.CanvasObject) {
			if b, ok := o.(*widget.ProgressBar); ok {
				bars = append(bars, b)
			}
		})
		return len(bars) == 1
	})
	if bars[0].Visible() {
		t.Errorf("a bar at %.0f%% under %q", 100*bars[0].Value, get[string](m.Models.Downloads()[0].Detail))
	}
}

// walkObjects calls fn with o and every object under it (containers and scrolls).
func walkObjects(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	fn(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walkObjects(c, fn)
		}
	case *container.Scroll:
		walkObjects(x.Content, fn)
	}
}

// A found base model says that it completes text, in plain words ("Layout A", the folder's file
// layout, is not shown); a chat model does not.
func TestFoundBaseModelSaysCompleteText(t *testing.T) {
	base, chat := modelDir(t), modelDir(t)
	if err := os.WriteFile(filepath.Join(chat, "tokenizer_config.json"), []byte(`{"chat_template": "{{ messages }}"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := &fakeLibrary{scan: func() discover.Result {
		return discover.Result{Models: []discover.Model{
			{Path: base, Name: "org/base", Source: discover.SourceHFCache, Layout: "A", Kind: models.KindChat, Device: "cpu"},
			{Path: chat, Name: "org/chat", Source: discover.SourceHFCache, Layout: "A", Kind: models.KindChat, Device: "cpu"},
		}}
	}}
	s := config.Defaults()
	s.ModelsDir = t.TempDir()
	m, _ := newModelsWindow(t, s, lib)
	d := newQueuedApp(t) // the scan's goroutine updates the view through fyne.Do
	test.Tap(m.WelcomeView.Models)
	captions := map[string]string{}
	waitFor(t, "the found models", func() bool {
		d.run()
		walkObjects(m.ModelsView.Content, func(o fyne.CanvasObject) {
			if l, ok := o.(*widget.Label); ok {
				for _, p := range []string{base, chat} {
					if strings.HasSuffix(l.Text, p) {
						captions[p] = l.Text
					}
				}
			}
		})
		return len(captions) == 2
	})
	if c := captions[base]; !strings.Contains(c, "Complete text") || strings.Contains(c, "Layout") {
		t.Errorf("base model: %q", c)
	}
	if c := captions[chat]; strings.Contains(c, "Complete text") || strings.Contains(c, "Layout") {
		t.Errorf("chat model: %q", c)
	}
}
