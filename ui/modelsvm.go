package ui

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2/data/binding"

	"edgechat/config"
	"edgechat/models"
	"edgechat/models/discover"
	"edgechat/models/hub"
)

// ModelLibrary finds the models on this PC and downloads new ones (main wires discover and
// hub to it).
type ModelLibrary interface {
	Scan() discover.Result
	Pull(ctx context.Context, req hub.Request, progress func(hub.Progress)) (hub.Result, error)
	// Discard deletes what a paused download left.
	Discard(ctx context.Context, req hub.Request) error
	// Pending lists the interrupted downloads into modelsDir, with what each left on disk.
	Pending(modelsDir string) []hub.Interrupted
	// Delete deletes the model folder path inside modelsDir; DiskSize is what that frees.
	Delete(modelsDir, path string) error
	DiskSize(modelsDir, path string) (int64, error)
}

// Library is the ModelLibrary of the app: discover and hub, with the folders and token of the
// settings in force at each call. Its methods run on scan and download goroutines, so
// Settings must be safe for concurrent use (config.Store is).
type Library struct {
	Settings SettingsStore
	// Options tune downloads (zero: the hub's defaults; Progress is set per download).
	Options hub.Options
}

// Scan finds the models in the hub cache, the tools' caches, the models folder and the
// user's folders.
func (l Library) Scan() discover.Result {
	s := l.Settings.Settings()
	return discover.Scan(discover.RootsFromEnv(s.ModelsFolders(), s.UserModelFolders()))
}

// Pull downloads with the token setting (else HF_TOKEN), reporting progress every 250 ms.
func (l Library) Pull(ctx context.Context, req hub.Request, progress func(hub.Progress)) (hub.Result, error) {
	opt := l.Options
	opt.Progress = progress
	if opt.ProgressEvery == 0 {
		opt.ProgressEvery = 250 * time.Millisecond
	}
	return hub.NewClient(l.Settings.Settings().HFToken).Pull(ctx, req, opt)
}

// Discard deletes what a paused download left.
func (l Library) Discard(ctx context.Context, req hub.Request) error { return hub.Discard(ctx, req) }

// Pending lists the interrupted downloads into modelsDir.
func (l Library) Pending(modelsDir string) []hub.Interrupted { return hub.Interruptions(modelsDir) }

// Delete deletes the model folder path inside modelsDir (never through a link).
func (l Library) Delete(modelsDir, path string) error { return hub.Delete(modelsDir, path) }

// DiskSize is what deleting the model folder path inside modelsDir frees.
func (l Library) DiskSize(modelsDir, path string) (int64, error) {
	return hub.DiskSize(modelsDir, path)
}

// ModelsVM is the Models view: the models found on this PC and the downloads. Scans and
// downloads run on their own goroutines; bindings carry their state to the view, and
// OnChanged (called from any goroutine) says that the list of found models or of downloads
// changed.
type ModelsVM struct {
	Status binding.String // what the last scan found, or that one is running
	Error  binding.String // the last problem using a model or starting a download
	// OnUse is called after a model was saved as a route's model.
	OnUse func(config.Settings)
	// OnChanged is called when Found or Downloads changed.
	OnChanged func()
	// NPUFound says this PC has an NPU runtime: "Use for NPU" is offered only then. The
	// window shares the settings' (SettingsVM.NPUFound); set it before building the view.
	NPUFound binding.Bool

	lib   ModelLibrary
	store SettingsStore

	mu        sync.Mutex
	notify    sync.Mutex // serialises OnChanged
	found     []discover.Model
	downloads []*DownloadVM
	scanning  bool
	// scans is the running scan or deletion, which Close waits for.
	scans  sync.WaitGroup
	closed bool
}

// NewModelsVM returns the view model; call Refresh to scan.
func NewModelsVM(lib ModelLibrary, store SettingsStore) *ModelsVM {
	return &ModelsVM{Status: binding.NewString(), Error: binding.NewString(), NPUFound: binding.NewBool(), lib: lib, store: store}
}

// Found returns the models of the last scan, grouped by source.
func (vm *ModelsVM) Found() []discover.Model {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.found
}

// Downloads returns the downloads started in this session, oldest first.
func (vm *ModelsVM) Downloads() []*DownloadVM {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return append([]*DownloadVM(nil), vm.downloads...)
}

// Scanning reports whether a scan is running (or its result is still being shown).
func (vm *ModelsVM) Scanning() bool {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.scanning
}

// Refresh scans in the background; done, if set, is called when the scan ended.
func (vm *ModelsVM) Refresh(done func()) {
	vm.mu.Lock()
	if vm.scanning || vm.lib == nil {
		vm.mu.Unlock()
		return
	}
	vm.scanning = true
	vm.mu.Unlock()
	_ = vm.Status.Set("Looking for models on this PC…")
	modelsDirs := vm.store.Settings().ModelsFolders() // the store is read on the caller's goroutine
	vm.scans.Add(1)
	go func() {
		defer vm.scans.Done()
		res := vm.lib.Scan()
		var pending []hub.Interrupted // in the folder earlier versions used too: Resume or Cancel them
		for _, dir := range modelsDirs {
			pending = append(pending, vm.lib.Pending(dir)...)
		}
		vm.mu.Lock()
		vm.found = res.Models
		vm.addPending(pending)
		vm.mu.Unlock()
		msg := fmt.Sprintf("Found %s on this PC.", plural(len(res.Models), "model"))
		if len(res.Models) == 0 {
			msg = "No models found on this PC yet: download one below."
		}
		msg += skippedText(res.Skipped)
		_ = vm.Status.Set(msg)
		vm.changed()
		vm.mu.Lock()
		vm.scanning = false // after the view showed the list: Scanning() false means it is shown
		vm.mu.Unlock()
		if done != nil {
			done()
		}
	}()
}

// skippedText names the folders that looked like models but were skipped, and why (the first
// of them; "1 folder skipped: unfinished or incomplete" left the user guessing which and why).
func skippedText(sk []discover.Skipped) string {
	if len(sk) == 0 {
		return ""
	}
	s := fmt.Sprintf(" Skipped %s (%s)", sk[0].Path, sk[0].Reason)
	if len(sk) > 1 {
		s += fmt.Sprintf(" and %s more", plural(len(sk)-1, "folder"))
	}
	return s + "."
}

// addPending lists interrupted downloads (from an earlier run) as paused; vm.mu is held.
func (vm *ModelsVM) addPending(ins []hub.Interrupted) {
	for _, in := range ins {
		req := in.Request
		known := false
		for _, d := range vm.downloads {
			known = known || d.req.Ref == req.Ref && d.req.Variant == req.Variant && d.req.ModelsDir == req.ModelsDir
		}
		if !known {
			d := newDownloadVM(vm, req)
			_ = d.Detail.Set(interruptedText(in.OnDisk))
			vm.downloads = append(vm.downloads, d)
		}
	}
}

// interruptedText says what an interrupted download left and what Resume and Cancel do. The
// bar stays empty: the model's size is known only once the download asks the Hub again.
func interruptedText(onDisk int64) string {
	if onDisk <= 0 {
		return "Interrupted earlier: Resume continues where it stopped, Cancel deletes it."
	}
	return fmt.Sprintf("Interrupted earlier with %s downloaded: Resume continues from there, Cancel deletes it.", hub.Bytes(onDisk))
}

func (vm *ModelsVM) changed() {
	if vm.OnChanged == nil {
		return
	}
	// One notification at a time: the app's OnChanged only queues a redraw on the main
	// goroutine, but the test driver runs it inline on whichever goroutine changed the list.
	vm.notify.Lock()
	defer vm.notify.Unlock()
	vm.OnChanged()
}

// Use saves path as the model of route ("npu" or "cpu"; "documents" makes it the embedding
// model, "reranker" the reranker) and calls OnUse. A chat route refuses an embedding model
// or a reranker.
func (vm *ModelsVM) Use(path, route string) error {
	s := vm.store.Settings()
	switch route {
	case "documents":
		s.EmbeddingModel = path
	case "reranker":
		s.RerankerModel = path
	default:
		if kind := models.KindOf(path); kind != models.KindChat {
			what := map[string]string{models.KindEmbedding: "a text-embedding model", models.KindReranker: "a reranker"}[kind]
			err := fmt.Errorf("%s is %s: it ranks attached documents and cannot chat — choose a chat model", path, what)
			_ = vm.Error.Set(err.Error())
			return err
		}
		r := &s.CPU
		if route == "npu" {
			r = &s.NPU
		}
		r.Model, r.ModelFile = path, ""
		if r.EP == "" {
			r.EP = map[string]string{"npu": "qnn", "cpu": "cpu"}[route]
		}
	}
	if err := vm.store.Save(s); err != nil {
		err = fmt.Errorf("could not save the settings: %w — check that the settings folder is writable", err)
		_ = vm.Error.Set(err.Error())
		return err
	}
	_ = vm.Error.Set("")
	vm.changed() // the "In use" marks moved
	if vm.OnUse != nil {
		vm.OnUse(s)
	}
	return nil
}

// Download starts downloading ref (ORG/NAME[@REVISION]) in variant ("" = best for this PC),
// or returns the download of the same model already listed.
func (vm *ModelsVM) Download(ref, variant string) (*DownloadVM, error) {
	ref, variant = strings.TrimSpace(ref), strings.TrimSpace(variant)
	if _, _, err := hub.ParseRef(ref); err != nil {
		_ = vm.Error.Set(err.Error())
		return nil, err
	}
	s := vm.store.Settings()
	dir := s.ModelsFolder()
	if dir == "" {
		err := errors.New("no models folder: set one in Settings → Models folder")
		_ = vm.Error.Set(err.Error())
		return nil, err
	}
	_ = vm.Error.Set("")
	vm.mu.Lock()
	for _, d := range vm.downloads {
		if d.req.Ref == ref && d.req.Variant == variant && d.req.ModelsDir == dir {
			vm.mu.Unlock()
			if d.State() == StatePaused || d.State() == StateFailed {
				d.Resume()
			}
			return d, nil
		}
	}
	d := newDownloadVM(vm, hub.Request{Ref: ref, Variant: variant, ModelsDir: dir, NPU: runtime.GOOS == "windows" && runtime.GOARCH == "arm64"})
	vm.downloads = append(vm.downloads, d)
	vm.mu.Unlock()
	vm.changed()
	d.Resume()
	return d, nil
}

// Dismiss removes a finished, failed or cancelled download from the list (what it fetched
// stays: a failed one resumes when the same download starts again). A running or paused one
// stays listed: Cancel it first.
func (vm *ModelsVM) Dismiss(d *DownloadVM) bool {
	if s := d.State(); s != StateDone && s != StateFailed && s != StateCancelled {
		return false
	}
	vm.mu.Lock()
	vm.downloads = slices.DeleteFunc(vm.downloads, func(x *DownloadVM) bool { return x == d })
	vm.mu.Unlock()
	vm.changed()
	return true
}

// Close pauses the running downloads (they continue on the next start of the same download)
// and waits for them and for a running scan to end.
func (vm *ModelsVM) Close() {
	vm.mu.Lock()
	vm.closed = true
	list := append([]*DownloadVM(nil), vm.downloads...)
	vm.mu.Unlock()
	for _, d := range list {
		d.Pause()
	}
	for _, d := range list {
		d.wait()
	}
	vm.scans.Wait()
}

func (vm *ModelsVM) isClosed() bool {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.closed
}

// Download states.
const (
	StateRunning   = "running"
	StatePaused    = "paused"
	StateFailed    = "failed"
	StateDone      = "done"
	StateCancelled = "cancelled"
)

// DownloadVM is one download: its progress as bindings, and pause, resume and cancel.
type DownloadVM struct {
	Title    string
	Detail   binding.String // bytes, speed, time left, file; or the error
	Fraction binding.Float  // 0..1
	Status   binding.String // one of the State constants
	Result   hub.Result     // set when done
	vm       *ModelsVM
	req      hub.Request
	mu       sync.Mutex
	cancel   context.CancelCauseFunc
	finished chan struct{}
	final    atomic.Bool // failed for good (the repository does not exist): no Resume
}

// CanResume says whether Resume may help: paused, or failed for a reason that may pass.
func (d *DownloadVM) CanResume() bool {
	s := d.State()
	return s == StatePaused || s == StateFailed && !d.final.Load()
}

func newDownloadVM(vm *ModelsVM, req hub.Request) *DownloadVM {
	title := req.Ref
	if req.Variant != "" {
		title += " (" + req.Variant + ")"
	}
	d := &DownloadVM{Title: title, Detail: binding.NewString(), Fraction: binding.NewFloat(), Status: binding.NewString(), vm: vm, req: req}
	_ = d.Status.Set(StatePaused)
	return d
}

// State is the current state.
func (d *DownloadVM) State() string { return get[string](d.Status) }

// Resume starts (or continues) the download in the background.
func (d *DownloadVM) Resume() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel != nil || d.vm.isClosed() {
		return
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	d.cancel, d.finished = cancel, make(chan struct{})
	_ = d.Status.Set(StateRunning)
	_ = d.Detail.Set("Starting…")
	go d.run(ctx, d.finished)
}

func (d *DownloadVM) run(ctx context.Context, finished chan struct{}) {
	defer close(finished)
	res, err := d.vm.lib.Pull(ctx, d.req, d.progress)
	d.mu.Lock()
	d.cancel = nil
	d.mu.Unlock()
	var status string
	switch {
	case err == nil && res.Problem != "":
		d.Result = res
		status = StateFailed
		_ = d.Detail.Set("Downloaded to " + res.Path + ", but EdgeChat cannot use it: " + res.Problem)
	case err == nil:
		d.Result = res
		_ = d.Fraction.Set(1)
		status = StateDone
		_ = d.Detail.Set(fmt.Sprintf("Done: %s in %s", hub.Bytes(res.Bytes), res.Path))
	case errors.Is(err, hub.ErrPaused):
		status = StatePaused
		_ = d.Detail.Set("Paused at " + percent(get[float64](d.Fraction)) + ": Resume continues where it stopped.")
	case errors.Is(err, hub.ErrCancelled):
		status = StateCancelled
		_ = d.Detail.Set("Cancelled: nothing of it was kept.")
	default:
		status = StateFailed
		// A repository or file that does not exist: trying again cannot help (access refused can:
		// a token set in Settings opens a gated model).
		d.final.Store(errors.Is(err, hub.ErrNotFound))
		_ = d.Detail.Set(err.Error())
	}
	d.vm.changed()
	// The state last: whoever sees the download end sees the view redrawn for it.
	_ = d.Status.Set(status)
	if status == StateDone {
		d.vm.Refresh(nil)
	}
}

// progress turns a hub snapshot into the bindings (the hub coalesces them).
func (d *DownloadVM) progress(p hub.Progress) {
	_ = d.Fraction.Set(p.Fraction())
	switch p.State {
	case "resolving":
		_ = d.Detail.Set("Looking up the files…")
	case "waiting":
		_ = d.Detail.Set("Waiting for another download of this model to finish…")
	case "downloading", "retrying":
		_ = d.Detail.Set(progressText(p))
	}
}

// progressText is "120 MB of 540 MB · 35 MB/s · 12 s left · onnx/model_q4.onnx", with
// "stalled — retrying in 8 s (connection reset)" after a failed try, or "no data for 12 s"
// while the connection is quiet.
func progressText(p hub.Progress) string {
	parts := []string{fmt.Sprintf("%s of %s", hub.Bytes(p.Done), hub.Bytes(p.Total))}
	switch {
	case p.State == "retrying":
		s := fmt.Sprintf("stalled — retrying in %s", roundUp(p.RetryIn))
		if p.Problem != "" {
			s += " (" + p.Problem + ")"
		}
		parts = append(parts, s)
	case p.Stalled >= 3*time.Second && p.Speed == 0:
		s := fmt.Sprintf("no data for %s — waiting for the server", p.Stalled.Round(time.Second))
		if p.Retries > 0 { // the time counts from the last byte, across the tries since
			s = fmt.Sprintf("no data for %s — tried again %s, waiting for the server", p.Stalled.Round(time.Second), times(p.Retries))
		}
		parts = append(parts, s)
	case p.Speed > 0:
		parts = append(parts, hub.Bytes(int64(p.Speed))+"/s", p.ETA.Round(time.Second).String()+" left")
	}
	if p.File != "" {
		parts = append(parts, p.File)
	}
	return strings.Join(parts, " · ")
}

// times is "once", "twice", "3 times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// roundUp is d in whole seconds, rounded up ("8s"), and at least 1 s.
func roundUp(d time.Duration) time.Duration {
	return max(time.Second, (d + time.Second - 1).Truncate(time.Second))
}

func percent(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }

// Pause stops the download, keeping what arrived.
func (d *DownloadVM) Pause() { d.stop(hub.ErrPaused) }

// Cancel stops the download and deletes what it fetched.
func (d *DownloadVM) Cancel() {
	if d.stop(hub.ErrCancelled) {
		return
	}
	if s := d.State(); s == StatePaused || s == StateFailed {
		if err := d.vm.lib.Discard(context.Background(), d.req); err != nil {
			_ = d.Detail.Set("Could not delete the partial download: " + err.Error())
			return
		}
		_ = d.Status.Set(StateCancelled)
		_ = d.Detail.Set("Cancelled: nothing of it was kept.")
		d.vm.changed()
	}
}

// stop cancels a running download with cause; false when it was not running.
func (d *DownloadVM) stop(cause error) bool {
	d.mu.Lock()
	cancel := d.cancel
	d.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel(cause)
	d.wait()
	return true
}

// wait waits for the running download's goroutine to end.
func (d *DownloadVM) wait() {
	d.mu.Lock()
	f := d.finished
	d.mu.Unlock()
	if f != nil {
		<-f
	}
}

// Use makes the finished download the model of route.
func (d *DownloadVM) Use(route string) error { return d.vm.Use(d.Result.Path, route) }
