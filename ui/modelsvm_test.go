package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"edgechat/config"
	"edgechat/models/discover"
	"edgechat/models/hub"
)

// fakeLibrary's behaviour is its function fields; it counts scans and discards.
type fakeLibrary struct {
	scan     func() discover.Result
	pull     func(ctx context.Context, req hub.Request, progress func(hub.Progress)) (hub.Result, error)
	pending  func(dir string) []hub.Interrupted
	scans    atomic.Int32
	discards atomic.Int32
}

func (f *fakeLibrary) Scan() discover.Result {
	f.scans.Add(1)
	if f.scan == nil {
		return discover.Result{}
	}
	return f.scan()
}

func (f *fakeLibrary) Pull(ctx context.Context, req hub.Request, progress func(hub.Progress)) (hub.Result, error) {
	return f.pull(ctx, req, progress)
}

func (f *fakeLibrary) Pending(dir string) []hub.Interrupted {
	if f.pending == nil {
		return nil
	}
	return f.pending(dir)
}

// Delete and DiskSize are the hub's own, on the test's folders.
func (f *fakeLibrary) Delete(dir, path string) error { return hub.Delete(dir, path) }

func (f *fakeLibrary) DiskSize(dir, path string) (int64, error) { return hub.DiskSize(dir, path) }

func (f *fakeLibrary) Discard(context.Context, hub.Request) error {
	f.discards.Add(1)
	return nil
}

var twoModels = discover.Result{Models: []discover.Model{
	{Path: "/m/npu", Name: "qwen-npu", Source: discover.SourceFoundry, Layout: "D", Device: "npu", SizeBytes: 2e9},
	{Path: "/m/cpu", Name: "org/qwen", Source: discover.SourceHFCache, Layout: "A", Device: "cpu", SizeBytes: 5e8},
}, Skipped: []discover.Skipped{{Path: "/m/half", Reason: "unfinished download (download.tmp)"}}}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestModelsVMRefreshAndUse(t *testing.T) {
	lib := &fakeLibrary{scan: func() discover.Result { return twoModels }}
	st := &memSettings{s: config.Defaults()}
	vm := NewModelsVM(lib, st)
	var used []config.Settings
	vm.OnUse = func(s config.Settings) { used = append(used, s) }
	done := make(chan struct{})
	vm.Refresh(func() { close(done) })
	<-done
	if len(vm.Found()) != 2 || !strings.Contains(get[string](vm.Status), "Found 2 models") || !strings.Contains(get[string](vm.Status), "Skipped /m/half (unfinished download") {
		t.Errorf("after refresh: %d found, status %q", len(vm.Found()), get[string](vm.Status))
	}
	if err := vm.Use("/m/npu", "npu"); err != nil {
		t.Fatal(err)
	}
	if err := vm.Use("/m/cpu", "cpu"); err != nil {
		t.Fatal(err)
	}
	if st.s.NPU.Model != "/m/npu" || st.s.NPU.EP != "qnn" || st.s.CPU.Model != "/m/cpu" || st.saved != 2 || len(used) != 2 {
		t.Errorf("settings after Use: npu %q (%s), cpu %q, saved %d, OnUse %d", st.s.NPU.Model, st.s.NPU.EP, st.s.CPU.Model, st.saved, len(used))
	}
	st.err = errors.New("read-only")
	if err := vm.Use("/m/cpu", "cpu"); err == nil || !strings.Contains(get[string](vm.Error), "settings folder is writable") {
		t.Errorf("a failed save says %q", get[string](vm.Error))
	}
}

// blockingPull sends progress then waits until ctx ends (or release closes) and returns like
// the hub does.
func blockingPull(release <-chan struct{}, pulls *atomic.Int32) func(context.Context, hub.Request, func(hub.Progress)) (hub.Result, error) {
	return func(ctx context.Context, req hub.Request, progress func(hub.Progress)) (hub.Result, error) {
		pulls.Add(1)
		progress(hub.Progress{State: "downloading", File: "onnx/model_q4.onnx", Done: 120e6, Total: 540e6, Speed: 35e6, ETA: 12 * time.Second})
		select {
		case <-ctx.Done():
			return hub.Result{}, context.Cause(ctx)
		case <-release:
			return hub.Result{Path: "/models/" + req.Ref, Bytes: 540e6}, nil
		}
	}
}

func TestModelsVMDownloadLifecycle(t *testing.T) {
	release := make(chan struct{})
	var pulls atomic.Int32
	lib := &fakeLibrary{pull: blockingPull(release, &pulls)}
	st := &memSettings{s: config.Defaults()}
	st.s.ModelsDir = t.TempDir()
	vm := NewModelsVM(lib, st)
	var changes atomic.Int32
	vm.OnChanged = func() { changes.Add(1) }

	d, err := vm.Download(" org/model ", "q4")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "progress", func() bool { return strings.Contains(get[string](d.Detail), "35.0 MB/s") })
	if want := "120.0 MB of 540.0 MB · 35.0 MB/s · 12s left · onnx/model_q4.onnx"; get[string](d.Detail) != want || d.State() != StateRunning {
		t.Errorf("detail %q (%s), want %q", get[string](d.Detail), d.State(), want)
	}
	if f := get[float64](d.Fraction); f < 0.22 || f > 0.23 {
		t.Errorf("fraction %.3f, want 120/540", f)
	}
	if again, _ := vm.Download("org/model", "q4"); again != d || len(vm.Downloads()) != 1 {
		t.Error("the same download twice made two")
	}

	d.Pause()
	if d.State() != StatePaused || !strings.Contains(get[string](d.Detail), "Paused at 22%") {
		t.Errorf("after pause: %s, %q", d.State(), get[string](d.Detail))
	}
	d.Resume()
	waitFor(t, "the second pull", func() bool { return pulls.Load() == 2 })
	close(release)
	waitFor(t, "done", func() bool { return d.State() == StateDone })
	if d.Result.Path != "/models/org/model" || get[float64](d.Fraction) != 1 {
		t.Errorf("done: %+v, fraction %v", d.Result, get[float64](d.Fraction))
	}
	waitFor(t, "a rescan after the download", func() bool { return lib.scans.Load() == 1 })
	if err := d.Use("cpu"); err != nil || st.s.CPU.Model != "/models/org/model" {
		t.Errorf("Use after download: %v, cpu model %q", err, st.s.CPU.Model)
	}
	if changes.Load() < 3 {
		t.Errorf("OnChanged called %d times, want on add, pause and done at least", changes.Load())
	}
}

func TestModelsVMCancel(t *testing.T) {
	var pulls atomic.Int32
	lib := &fakeLibrary{pull: blockingPull(make(chan struct{}), &pulls)}
	st := &memSettings{s: config.Defaults()}
	st.s.ModelsDir = t.TempDir()
	vm := NewModelsVM(lib, st)
	running, _ := vm.Download("org/a", "")
	waitFor(t, "running", func() bool { return pulls.Load() == 1 })
	running.Cancel()
	if running.State() != StateCancelled || !strings.Contains(get[string](running.Detail), "nothing of it was kept") {
		t.Errorf("cancel while running: %s, %q", running.State(), get[string](running.Detail))
	}
	paused, _ := vm.Download("org/b", "")
	waitFor(t, "running", func() bool { return pulls.Load() == 2 })
	paused.Pause()
	paused.Cancel()
	if paused.State() != StateCancelled || lib.discards.Load() != 1 {
		t.Errorf("cancel while paused: %s, %d discards", paused.State(), lib.discards.Load())
	}
}

func TestModelsVMFailures(t *testing.T) {
	gated := errors.New("org/gated is gated or private (HTTP 401): … set a Hugging Face token")
	lib := &fakeLibrary{pull: func(context.Context, hub.Request, func(hub.Progress)) (hub.Result, error) {
		return hub.Result{}, gated
	}}
	st := &memSettings{s: config.Defaults()}
	st.s.ModelsDir = t.TempDir()
	vm := NewModelsVM(lib, st)
	if _, err := vm.Download("not a name", ""); err == nil || !strings.Contains(get[string](vm.Error), "ORG/NAME") {
		t.Errorf("bad name: %v, %q", err, get[string](vm.Error))
	}
	d, err := vm.Download("org/gated", "")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "failure", func() bool { return d.State() == StateFailed })
	if get[string](d.Detail) != gated.Error() || get[string](vm.Error) != "" {
		t.Errorf("failure shows %q (vm error %q)", get[string](d.Detail), get[string](vm.Error))
	}
}

func TestModelsVMClosePausesDownloads(t *testing.T) {
	var pulls atomic.Int32
	lib := &fakeLibrary{pull: blockingPull(make(chan struct{}), &pulls)}
	st := &memSettings{s: config.Defaults()}
	st.s.ModelsDir = t.TempDir()
	vm := NewModelsVM(lib, st)
	var ds []*DownloadVM
	for _, ref := range []string{"org/a", "org/b"} {
		d, _ := vm.Download(ref, "")
		ds = append(ds, d)
	}
	waitFor(t, "both running", func() bool { return pulls.Load() == 2 })
	var wg sync.WaitGroup
	wg.Go(vm.Close)
	wg.Wait()
	for _, d := range ds {
		if d.State() != StatePaused {
			t.Errorf("%s after Close: %s", d.Title, d.State())
		}
	}
	ds[0].Resume()
	if ds[0].State() != StatePaused {
		t.Error("a download resumed after the window closed")
	}
}

func TestModelsVMListsInterruptedDownloads(t *testing.T) {
	var pulls atomic.Int32
	st := &memSettings{s: config.Defaults()}
	st.s.ModelsDir = t.TempDir()
	earlier := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", earlier) // the folder earlier versions downloaded into is searched too
	lib := &fakeLibrary{pull: blockingPull(make(chan struct{}), &pulls), pending: func(dir string) []hub.Interrupted {
		switch dir {
		case st.s.ModelsDir:
			return []hub.Interrupted{{Request: hub.Request{Ref: "org/left", Variant: "q4", ModelsDir: dir}, OnDisk: 12_000_000}}
		case config.EarlierModelsDir():
			return []hub.Interrupted{{Request: hub.Request{Ref: "org/older", ModelsDir: dir}}}
		}
		return nil
	}}
	vm := NewModelsVM(lib, st)
	for range 2 { // a second scan does not list it twice
		done := make(chan struct{})
		vm.Refresh(func() { close(done) })
		<-done
	}
	ds := vm.Downloads()
	if len(ds) != 2 || ds[0].Title != "org/left (q4)" || ds[0].State() != StatePaused || ds[1].Title != "org/older" || ds[1].req.ModelsDir != filepath.Join(earlier, "EdgeChat", "models") {
		t.Fatalf("downloads %v, want the interrupted ones, paused, each in its folder", ds)
	}
	// What it left on disk, not a bare 0%: the bytes are there for the resume.
	if got := get[string](ds[0].Detail); !strings.Contains(got, "12.0 MB downloaded") {
		t.Errorf("interrupted download says %q, want the 12.0 MB it left", got)
	}
	ds[0].Resume()
	waitFor(t, "the resumed pull", func() bool { return pulls.Load() == 1 })
	if d, _ := vm.Download("org/left", "q4"); d != ds[0] {
		t.Error("Download of the same model made a second one")
	}
	vm.Close()
}

// A repository that does not exist is not offered Resume (a network failure is), and finished
// or failed rows can be dismissed; a running one cannot.
func TestModelsVMResumeAndDismiss(t *testing.T) {
	release := make(chan struct{})
	lib := &fakeLibrary{pull: func(ctx context.Context, req hub.Request, _ func(hub.Progress)) (hub.Result, error) {
		switch req.Ref {
		case "org/missing":
			return hub.Result{}, fmt.Errorf("org/missing: %w (HTTP 404)", hub.ErrNotFound)
		case "org/flaky":
			return hub.Result{}, fmt.Errorf("connection reset: %w", hub.ErrNetwork)
		}
		select {
		case <-release:
		case <-ctx.Done():
			return hub.Result{}, context.Cause(ctx)
		}
		return hub.Result{}, fmt.Errorf("stopped: %w", hub.ErrNetwork)
	}}
	st := &memSettings{s: config.Defaults()}
	st.s.ModelsDir = t.TempDir()
	vm := NewModelsVM(lib, st)
	missing, _ := vm.Download("org/missing", "")
	flaky, _ := vm.Download("org/flaky", "")
	running, _ := vm.Download("org/slow", "")
	waitFor(t, "failures", func() bool { return missing.State() == StateFailed && flaky.State() == StateFailed })
	if missing.CanResume() || !flaky.CanResume() {
		t.Errorf("CanResume: missing repository %v, network failure %v; want false, true", missing.CanResume(), flaky.CanResume())
	}
	if vm.Dismiss(running) {
		t.Error("a running download was dismissed")
	}
	if !vm.Dismiss(missing) || len(vm.Downloads()) != 2 {
		t.Errorf("after dismissing the failed one: %d downloads listed, want 2", len(vm.Downloads()))
	}
	close(release)
	vm.Close()
}

func TestModelsViewDismissRemovesRow(t *testing.T) {
	test.NewTempApp(t)
	lib := &fakeLibrary{pull: func(context.Context, hub.Request, func(hub.Progress)) (hub.Result, error) {
		return hub.Result{}, fmt.Errorf("org/missing: %w", hub.ErrNotFound)
	}}
	st := &memSettings{s: config.Defaults()}
	st.s.ModelsDir = t.TempDir()
	vm := NewModelsVM(lib, st)
	v := NewModelsView(vm, test.NewTempWindow(t, nil), func() {})
	d, _ := vm.Download("org/missing", "")
	waitFor(t, "failure", func() bool { return d.State() == StateFailed })
	// The test driver runs the row's listeners on the download's goroutine: wait for it to
	// end before touching the view from this one (the app runs both on the main goroutine).
	d.wait()
	if v.rows[d] == nil {
		t.Fatal("no row for the download")
	}
	vm.Dismiss(d)
	waitFor(t, "row removed", func() bool { return v.rows[d] == nil && len(v.downloads.Objects) == 0 })
}

func TestProgressText(t *testing.T) {
	base := hub.Progress{State: "downloading", Done: 20_000_000, Total: 50_000_000, File: "onnx/model_q4.onnx"}
	flowing, quiet, retrying, quietAgain := base, base, base, base
	flowing.Speed, flowing.ETA = 4_000_000, 7500*time.Millisecond
	quiet.Stalled = 12 * time.Second
	quietAgain.Stalled, quietAgain.Retries = 55*time.Second, 1
	retrying.State, retrying.RetryIn, retrying.Problem = "retrying", 7200*time.Millisecond, "no data for 30 s"
	for _, tc := range []struct {
		p    hub.Progress
		want string
	}{
		{flowing, "20.0 MB of 50.0 MB · 4.0 MB/s · 8s left · onnx/model_q4.onnx"},
		{quiet, "20.0 MB of 50.0 MB · no data for 12s — waiting for the server · onnx/model_q4.onnx"},
		// After a retry the quiet time still counts from the last byte: say that it was retried.
		{quietAgain, "20.0 MB of 50.0 MB · no data for 55s — tried again once, waiting for the server · onnx/model_q4.onnx"},
		{retrying, "20.0 MB of 50.0 MB · stalled — retrying in 8s (no data for 30 s) · onnx/model_q4.onnx"},
	} {
		if got := progressText(tc.p); got != tc.want {
			t.Errorf("progressText(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// A folder the scan skipped is named with the reason ("1 folder skipped: unfinished or
// incomplete" did not say which, nor why); the scan's time is not shown.
func TestModelsVMNamesSkippedFolders(t *testing.T) {
	lib := &fakeLibrary{scan: func() discover.Result {
		return discover.Result{Models: twoModels.Models, Skipped: []discover.Skipped{
			{Path: "/c/hub/models--a--b", Reason: `refs/main holds "abc", which is not a commit id`},
			{Path: "/c/other", Reason: "no tokenizer.json"},
		}}
	}}
	st := &memSettings{s: config.Defaults()}
	st.s.ModelsDir = t.TempDir()
	vm := NewModelsVM(lib, st)
	done := make(chan struct{})
	vm.Refresh(func() { close(done) })
	<-done
	want := `Found 2 models on this PC. Skipped /c/hub/models--a--b (refs/main holds "abc", which is not a commit id) and 1 folder more.`
	if got := get[string](vm.Status); got != want {
		t.Errorf("status %q, want %q", got, want)
	}
	vm.Close()
}
