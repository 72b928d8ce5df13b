package ui

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"edgechat/config"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models/discover"
	"edgechat/models/hub"
)

const commitA = "0123456789abcdef0123456789abcdef01234567"

// writeDownloaded writes a generated model as EdgeChat's download of repo into models.
func writeDownloaded(t *testing.T, tokenizers, models, repo string) string {
	t.Helper()
	o := synth.Tiny()
	o.Vocab, o.TokenizerDir = 512, tokenizers
	dir := hub.RepoDir(models, repo)
	p := filepath.Join(dir, commitA)
	if err := synth.Write(p, o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// scanNow scans and waits for the list.
func scanNow(t *testing.T, vm *ModelsVM) {
	t.Helper()
	done := make(chan struct{})
	vm.Refresh(func() { close(done) })
	<-done
}

// A downloaded model is deleted off the main goroutine after a question naming its size; the
// model the chat uses is refused with the reason, and models EdgeChat does not keep are not
// offered. Real scan, real deletion.
func TestModelsVMDelete(t *testing.T) {
	tokenizers := testenv.TokenizerDir(t, "qwen3")
	home := isolateHome(t)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	st := &memSettings{s: config.Defaults()}
	st.s.ModelsDir = filepath.Join(home, "models")
	tiny := writeDownloaded(t, tokenizers, st.s.ModelsDir, "org/Tiny-ONNX")
	used := writeDownloaded(t, tokenizers, st.s.ModelsDir, "org/Used-ONNX")
	st.s.CPU.Model = used
	vm := NewModelsVM(Library{Settings: st}, st)
	scanNow(t, vm)
	byPath := map[string]discover.Model{}
	for _, m := range vm.Found() {
		byPath[m.Path] = m
	}
	if len(byPath) != 2 || !vm.CanDelete(byPath[tiny]) || !vm.CanDelete(byPath[used]) {
		t.Fatalf("found %v (%s), want both models, deletable", vm.Found(), get[string](vm.Status))
	}

	if err := <-vm.Delete(byPath[used]); err == nil || !strings.Contains(err.Error(), "CPU's model") || get[string](vm.Error) != err.Error() {
		t.Errorf("Delete of the model in use = %v (shown: %q), want a refusal naming the CPU", err, get[string](vm.Error))
	}
	if _, err := os.Stat(filepath.Join(used, "onnx", "model.onnx")); err != nil {
		t.Fatalf("the model in use was touched: %v", err)
	}

	var question string
	<-vm.AskDelete(byPath[tiny], func(q string) { question = q })
	size, _ := hub.DiskSize(st.s.ModelsDir, tiny)
	if want := "Delete Tiny-ONNX (" + hub.Bytes(size) + ")?"; !strings.HasPrefix(question, want) || !strings.Contains(question, tiny) || size < 1000 {
		t.Errorf("question %q, want it to start %q and name the folder", question, want)
	}
	if err := <-vm.Delete(byPath[tiny]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(hub.RepoDir(st.s.ModelsDir, "org/Tiny-ONNX")); !os.IsNotExist(err) {
		t.Errorf("the repository's folder is still there (%v)", err)
	}
	if f := vm.Found(); len(f) != 1 || f[0].Path != used || !strings.Contains(get[string](vm.Status), "Deleted org/Tiny-ONNX ("+hub.Bytes(size)+" freed)") {
		t.Errorf("after Delete: found %v, status %q", f, get[string](vm.Status))
	}
}

// A model whose download is running, one in another tool's cache and one reached through a
// link out of the models folder are refused, and nothing outside is touched.
func TestModelsVMDeleteRefused(t *testing.T) {
	models := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "model.onnx"), []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	downloading := filepath.Join(hub.RepoDir(models, "org/a"), commitA)
	linked := filepath.Join(models, "org--linked")
	if err := os.Symlink(outside, linked); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	found := discover.Result{Models: []discover.Model{
		{Path: downloading, Name: "org/a", Source: discover.SourceEdgeChat},
		{Path: filepath.Join(linked, commitA), Name: "org/linked", Source: discover.SourceEdgeChat},
		{Path: "/m/cpu", Name: "org/qwen", Source: discover.SourceHFCache},
	}}
	if err := os.MkdirAll(downloading, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(outside, commitA), 0o755); err != nil {
		t.Fatal(err)
	}
	var pulls atomic.Int32
	lib := &fakeLibrary{scan: func() discover.Result { return found }, pull: blockingPull(make(chan struct{}), &pulls)}
	st := &memSettings{s: config.Defaults()}
	st.s.ModelsDir = models
	vm := NewModelsVM(lib, st)
	scanNow(t, vm)
	d, _ := vm.Download("org/a", "")
	waitFor(t, "the download", func() bool { return pulls.Load() == 1 })

	for _, tc := range []struct {
		m    discover.Model
		want string
	}{
		{found.Models[0], "a download of it is running"},
		{found.Models[1], "EdgeChat deletes only real folders inside the models folder"},
		{found.Models[2], "not in EdgeChat's models folder"},
	} {
		if err := <-vm.Delete(tc.m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Delete(%s) = %v, want %q", tc.m.Name, err, tc.want)
		}
	}
	if vm.CanDelete(found.Models[2]) {
		t.Error("a model in the Hugging Face cache is offered Delete")
	}
	if _, err := os.Stat(filepath.Join(outside, commitA)); err != nil {
		t.Errorf("the folder behind the link was deleted: %v", err)
	}
	d.Pause()
	if err := <-vm.Delete(found.Models[0]); err != nil {
		t.Errorf("Delete after the download paused = %v", err)
	}
	vm.Close()
}

// In the view: the model in use carries "In use"; Delete asks with the size, Keep keeps it,
// Delete deletes it and takes its row off the list.
func TestModelsViewDelete(t *testing.T) {
	tokenizers := testenv.TokenizerDir(t, "qwen3")
	home := isolateHome(t)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	s := config.Defaults()
	s.ModelsDir = filepath.Join(home, "models")
	tiny := writeDownloaded(t, tokenizers, s.ModelsDir, "org/Tiny-ONNX")
	s.CPU.Model = writeDownloaded(t, tokenizers, s.ModelsDir, "org/Used-ONNX")
	lib := &settingsLibrary{}
	m, st := newModelsWindow(t, s, lib)
	lib.Library = Library{Settings: st}
	scanNow(t, m.Models)
	m.ShowModels()
	v := m.ModelsView
	if v.InUse[s.CPU.Model] == nil || v.InUse[tiny] != nil {
		t.Fatalf("In use marks on %v, want the CPU model's only", v.InUse)
	}
	test.Tap(v.DeleteButtons[s.CPU.Model]) // refused, with the reason in a dialog
	<-v.asking
	var said string
	walk(m.Window.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok {
			said += l.Text
		}
	})
	if !strings.Contains(said, "cannot be deleted: it is the CPU's model") || !strings.Contains(get[string](m.Models.Error), "CPU's model") {
		t.Errorf("Delete of the model in use says %q (error line %q)", said, get[string](m.Models.Error))
	}
	ok := visibleButton(m.Window.Canvas().Overlays().Top(), "OK")
	if ok == nil {
		t.Fatal("the refusal has no OK button")
	}
	test.Tap(ok)
	if m.Window.Canvas().Overlays().Top() != nil {
		t.Fatal("OK did not close the refusal")
	}
	del := v.DeleteButtons[tiny]
	if del == nil {
		t.Fatal("no Delete button on the downloaded model")
	}
	for _, answer := range []string{"Keep", "Delete"} {
		test.Tap(del)
		<-v.asking
		overlay := m.Window.Canvas().Overlays().Top()
		if overlay == nil || v.Confirm == nil {
			t.Fatal("Delete asked nothing")
		}
		var text string
		walk(overlay, func(o fyne.CanvasObject) {
			if l, ok := o.(*widget.Label); ok {
				text += l.Text
			}
		})
		if !strings.Contains(text, "Delete Tiny-ONNX (") {
			t.Errorf("the question says %q", text)
		}
		if shot := os.Getenv("EDGECHAT_SHOT"); shot != "" && answer == "Keep" { // to look at without a display
			f, err := os.Create(shot)
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, m.Window.Canvas().Capture()); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		b := visibleButton(overlay, answer)
		if b == nil {
			t.Fatalf("no %s button in the question", answer)
		}
		test.Tap(b)
		if _, err := os.Stat(tiny); answer == "Keep" && (err != nil || v.deleting != nil) {
			t.Fatalf("Keep deleted the model (%v)", err)
		}
	}
	if err := <-v.deleting; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tiny); !os.IsNotExist(err) {
		t.Errorf("the model is still on disk (%v)", err)
	}
	if v.DeleteButtons[tiny] != nil || len(v.DeleteButtons) != 1 {
		t.Errorf("Delete buttons after deleting: %v", v.DeleteButtons)
	}
}
