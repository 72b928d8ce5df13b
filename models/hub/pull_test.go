package hub

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/testkit/fakehub"
	"edgechat/models"
)

func TestPullDefaultVariant(t *testing.T) {
	s := serve(t)
	dir := t.TempDir()
	var last Progress
	opt := fastOptions()
	opt.Progress = func(p Progress) { last = p }
	res, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: dir}, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{
		Path: filepath.Join(dir, "test-org--Tiny-ONNX", testCommit), Repo: testRepo, Commit: testCommit,
		Variant: "q4", Files: q4Files, Bytes: size(t, q4Files...), Fetched: size(t, q4Files...),
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	f, err := models.Open(res.Path, "")
	if err != nil {
		t.Fatalf("the pulled folder does not open: %v", err)
	}
	if filepath.Base(f.Model) != "model_q4.onnx" {
		t.Errorf("model file = %s, want model_q4.onnx", f.Model)
	}
	if last.State != "done" || last.Done != want.Bytes || last.Total != want.Bytes {
		t.Errorf("last progress = %+v, want done with %d of %d bytes", last, want.Bytes, want.Bytes)
	}
	entries, _ := os.ReadDir(filepath.Dir(res.Path))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".partial") {
			t.Errorf("staging folder %s left behind", e.Name())
		}
	}
	// A second pull finds everything in place and fetches nothing.
	sent := s.BytesSent.Load()
	res2, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: dir}, opt)
	if err != nil || res2.Fetched != 0 || s.BytesSent.Load() != sent {
		t.Errorf("second pull: fetched %d (server sent %d more), err %v; want nothing", res2.Fetched, s.BytesSent.Load()-sent, err)
	}
}

func TestPullVariantWithExternalData(t *testing.T) {
	serve(t)
	dir := t.TempDir()
	res, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo + "@main", Variant: "fp32", ModelsDir: dir}, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"config.json", "generation_config.json", "onnx/model.onnx", "onnx/model.onnx_data", "tokenizer.json", "tokenizer_config.json"}
	if diff := cmp.Diff(want, res.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if _, err := models.Open(res.Path, ""); err != nil {
		t.Fatal(err)
	}
	// Another variant of the same commit joins the folder.
	res2, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, Variant: "q4", ModelsDir: dir}, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res2.Fetched != size(t, "onnx/model_q4.onnx") {
		t.Errorf("second variant fetched %d bytes, want only model_q4.onnx (%d)", res2.Fetched, size(t, "onnx/model_q4.onnx"))
	}
	f, err := models.Open(res.Path, "")
	if err != nil || len(f.Variants) != 2 {
		t.Errorf("folder after two pulls: %v, variants %v; want both", err, f)
	}
}

// TestFaults: each fault of the server gives the documented outcome.
func TestFaults(t *testing.T) {
	file := "onnx/model_q4.onnx"
	fileSize := size(t, file)
	total := size(t, q4Files...)
	for _, tc := range []struct {
		name   string
		faults []fakehub.Fault
		ref    string
		// wantErr is nil for a pull that succeeds.
		wantErr error
		// maxFetched bounds the bytes over the network (as a multiple of the model's size).
		maxFetched float64
		minRanged  int64
	}{
		{name: "cut mid-file resumes with Range", faults: []fakehub.Fault{{Kind: fakehub.Cut, File: file, At: fileSize / 2, Times: 1}}, maxFetched: 1.01, minRanged: 1},
		{name: "cut twice resumes twice", faults: []fakehub.Fault{{Kind: fakehub.Cut, File: file, At: fileSize / 3, Times: 1}, {Kind: fakehub.Cut, File: file, At: 2 * fileSize / 3, Times: 1}}, maxFetched: 1.01, minRanged: 1},
		{name: "stall is retried and resumed", faults: []fakehub.Fault{{Kind: fakehub.Stall, File: file, At: fileSize / 2, Times: 1}}, maxFetched: 1.01, minRanged: 1},
		{name: "200 instead of 206 restarts the file", faults: []fakehub.Fault{{Kind: fakehub.Cut, File: file, At: fileSize / 2, Times: 1}, {Kind: fakehub.NoRange, File: file, Times: 1}}, maxFetched: 1.01 + float64(fileSize/2)/float64(total)},
		{name: "a wrong byte is fetched again", faults: []fakehub.Fault{{Kind: fakehub.WrongByte, File: file, At: fileSize - 10, Times: 1}}, maxFetched: 1.01 + float64(fileSize)/float64(total)},
		{name: "a wrong byte every time fails", faults: []fakehub.Fault{{Kind: fakehub.WrongByte, File: file, At: 1000}}, wantErr: ErrVerify},
		{name: "cut every time gives up", faults: []fakehub.Fault{{Kind: fakehub.Cut, File: file, At: 0}}, wantErr: ErrNetwork},
		{name: "401 asks for a token", faults: []fakehub.Fault{{Kind: fakehub.Unauthorized}}, wantErr: ErrAuth},
		{name: "403 on a file asks for access", faults: []fakehub.Fault{{Kind: fakehub.Forbidden, File: file}}, wantErr: ErrAuth},
		{name: "503 from the API is retried", faults: []fakehub.Fault{{Kind: fakehub.ServerError, Times: 2}}, maxFetched: 1.01},
		{name: "503 from the API three times fails", faults: []fakehub.Fault{{Kind: fakehub.ServerError, Times: 3}}, wantErr: errStatus{503}},
		{name: "404 says the name is wrong", ref: "test-org/No-Such-Model", wantErr: ErrNotFound},
		{name: "404 on a revision", ref: testRepo + "@v9", wantErr: ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t)
			for _, f := range tc.faults {
				s.AddFault(f)
			}
			ref := tc.ref
			if ref == "" {
				ref = testRepo
			}
			dir := t.TempDir()
			c := NewClient("")
			c.Backoff = time.Millisecond
			res, err := c.Pull(context.Background(), Request{Ref: ref, ModelsDir: dir}, fastOptions())
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				t.Logf("message: %v", err)
				if _, serr := os.Stat(filepath.Join(dir, "test-org--Tiny-ONNX", testCommit)); serr == nil {
					t.Error("a failed pull left a model folder in place")
				}
				if errors.Is(err, ErrVerify) {
					if left := findFiles(t, dir, ".incomplete"); len(left) > 0 {
						t.Errorf("damaged partial files kept: %v", left)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := models.Open(res.Path, ""); err != nil {
				t.Fatal(err)
			}
			if got := float64(s.BytesSent.Load()) / float64(total); got > tc.maxFetched {
				t.Errorf("server sent %.2f× the model, want at most %.2f×", got, tc.maxFetched)
			}
			if s.Ranged.Load() < tc.minRanged {
				t.Errorf("%d ranged requests, want at least %d", s.Ranged.Load(), tc.minRanged)
			}
		})
	}
}

func findFiles(t *testing.T, dir, suffix string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, suffix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestGiveUpThenResume(t *testing.T) {
	s := serve(t)
	file := "onnx/model_q4.onnx"
	s.AddFault(fakehub.Fault{Kind: fakehub.Cut, File: file, At: size(t, file) / 2})
	dir := t.TempDir()
	if _, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: dir}, fastOptions()); !errors.Is(err, ErrNetwork) {
		t.Fatalf("err = %v, want a network error", err)
	}
	s.ClearFaults()
	res, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: dir}, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Fetched >= size(t, q4Files...) || s.Ranged.Load() == 0 {
		t.Errorf("resumed pull fetched %d of %d bytes with %d ranged requests: want it to continue the file", res.Fetched, size(t, q4Files...), s.Ranged.Load())
	}
}

func TestSlowServerProgress(t *testing.T) {
	s := serve(t)
	file := "onnx/model_q4.onnx"
	const rate = 2 << 20
	s.AddFault(fakehub.Fault{Kind: fakehub.Slow, File: file, Rate: rate})
	var mu sync.Mutex
	var seen []Progress
	opt := fastOptions()
	opt.Stall = 2 * time.Second
	opt.ProgressEvery = 50 * time.Millisecond
	opt.Progress = func(p Progress) { mu.Lock(); seen = append(seen, p); mu.Unlock() }
	if _, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: t.TempDir()}, opt); err != nil {
		t.Fatal(err)
	}
	var mid *Progress
	for i := range seen {
		if seen[i].File == file && seen[i].Speed > 0 && seen[i].FileDone > size(t, file)/3 {
			mid = &seen[i]
			break
		}
	}
	if mid == nil {
		t.Fatalf("no progress with a speed while %s downloaded: %+v", file, seen)
	}
	if mid.Speed < rate/3 || mid.Speed > rate*3 {
		t.Errorf("speed %.0f B/s, the server sends %d B/s", mid.Speed, rate)
	}
	if mid.ETA <= 0 || mid.FileETA <= 0 || mid.FileETA > mid.ETA {
		t.Errorf("ETA %v, file ETA %v: want both > 0, the file's at most the total's", mid.ETA, mid.FileETA)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Done < seen[i-1].Done {
			t.Errorf("progress went back from %d to %d", seen[i-1].Done, seen[i].Done)
		}
	}
}

// pauseAfter returns options whose progress cancels ctx with cause once n bytes of file arrived.
func pauseAfter(cancel context.CancelCauseFunc, cause error, file string, n int64) Options {
	opt := fastOptions()
	opt.ProgressEvery = time.Millisecond
	opt.Stall = 5 * time.Second
	opt.Progress = func(p Progress) {
		if p.File == file && p.FileDone >= n {
			cancel(cause)
		}
	}
	return opt
}

func TestPauseResume(t *testing.T) {
	s := serve(t)
	file := "onnx/model_q4.onnx"
	s.AddFault(fakehub.Fault{Kind: fakehub.Slow, File: file, Rate: 8 << 20, Times: 1})
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	_, err := NewClient("").Pull(ctx, Request{Ref: testRepo, ModelsDir: dir}, pauseAfter(cancel, ErrPaused, file, size(t, file)/3))
	if !errors.Is(err, ErrPaused) {
		t.Fatalf("err = %v, want ErrPaused", err)
	}
	if len(findFiles(t, dir, ".incomplete")) != 1 {
		t.Fatalf("paused download keeps %v, want one partial file", findFiles(t, dir, ".incomplete"))
	}
	if diff := cmp.Diff([]Request{{Ref: testRepo, ModelsDir: dir}}, Pending(dir)); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	// What it left is counted: the partial file and the files before it, not the state.
	var kept int64
	for _, f := range findFiles(t, dir, "") {
		if info, err := os.Stat(f); err == nil && info.Mode().IsRegular() && !strings.Contains(f, stateFile) && strings.Contains(f, stagingPrefix) {
			kept += info.Size()
		}
	}
	if in := Interruptions(dir); len(in) != 1 || in[0].OnDisk != kept || kept < size(t, file)/3 {
		t.Errorf("interruptions %+v, want one with %d bytes on disk", in, kept)
	}
	res, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: dir}, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	if p := Pending(dir); len(p) != 0 {
		t.Errorf("still pending after the download: %v", p)
	}
	if total := size(t, q4Files...); float64(s.BytesSent.Load()) > 1.2*float64(total) {
		t.Errorf("pause and resume sent %d bytes for a %d-byte model", s.BytesSent.Load(), total)
	}
	if _, err := models.Open(res.Path, ""); err != nil {
		t.Fatal(err)
	}
}

func TestCancelKeepsNothing(t *testing.T) {
	s := serve(t)
	file := "onnx/model_q4.onnx"
	s.AddFault(fakehub.Fault{Kind: fakehub.Slow, File: file, Rate: 8 << 20})
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	_, err := NewClient("").Pull(ctx, Request{Ref: testRepo, ModelsDir: dir}, pauseAfter(cancel, ErrCancelled, file, size(t, file)/3))
	if !errors.Is(err, ErrCancelled) {
		t.Fatalf("err = %v, want ErrCancelled", err)
	}
	var left []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != ".lock" {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("cancel kept %v", left)
	}
}

func TestDiskFullBeforeDownload(t *testing.T) {
	s := serve(t)
	opt := fastOptions()
	opt.FreeSpace = func(string) (int64, error) { return 10 << 20, nil }
	_, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: t.TempDir()}, opt)
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("err = %v, want ErrDiskFull", err)
	}
	t.Logf("message: %v", err)
	if s.Requests.Load() != 0 {
		t.Errorf("%d file requests made before the space check failed", s.Requests.Load())
	}
}

func TestTwoPullersSameModel(t *testing.T) {
	s := serve(t)
	s.AddFault(fakehub.Fault{Kind: fakehub.Slow, File: "onnx/model_q4.onnx", Rate: 16 << 20})
	dir := t.TempDir()
	var wg sync.WaitGroup
	results := make([]Result, 2)
	errs := make([]error, 2)
	var waited sync.Map
	for i := range 2 {
		wg.Go(func() {
			opt := fastOptions()
			opt.Stall = 5 * time.Second
			opt.Progress = func(p Progress) {
				if p.State == "waiting" {
					waited.Store(i, true)
				}
			}
			results[i], errs[i] = NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: dir}, opt)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("puller %d: %v", i, err)
		}
	}
	if results[0].Path != results[1].Path {
		t.Errorf("paths differ: %s, %s", results[0].Path, results[1].Path)
	}
	if total := size(t, q4Files...); s.BytesSent.Load() != total || results[0].Fetched+results[1].Fetched != total {
		t.Errorf("server sent %d bytes, pullers fetched %d + %d; want the model once (%d)", s.BytesSent.Load(), results[0].Fetched, results[1].Fetched, total)
	}
	n := 0
	waited.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Errorf("%d pullers waited for the lock, want 1", n)
	}
	if _, err := models.Open(results[0].Path, ""); err != nil {
		t.Fatal(err)
	}
}

func TestTokenNotSentToCDN(t *testing.T) {
	s := serve(t)
	s.Token = "hf_secret"
	// The CDN handler refuses requests that carry Authorization: the pull works only if the
	// token goes to the hub and not on to the redirect's host.
	res, err := NewClient("hf_secret").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: t.TempDir()}, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := models.Open(res.Path, ""); err != nil {
		t.Fatal(err)
	}
	_, err = NewClient("hf_wrong").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: t.TempDir()}, fastOptions())
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "token is not accepted") {
		t.Errorf("wrong token: %v", err)
	}
}

func TestNewClientEnvironment(t *testing.T) {
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:9/mirror/")
	t.Setenv("HF_TOKEN", "hf_env")
	c := NewClient("")
	if c.Endpoint != "http://127.0.0.1:9/mirror" || c.Token != "hf_env" {
		t.Errorf("client = %s %s, want the mirror without its slash and the env token", c.Endpoint, c.Token)
	}
	if NewClient("hf_setting").Token != "hf_setting" {
		t.Error("the token setting should win over HF_TOKEN")
	}
	_, err := c.Pull(context.Background(), Request{Ref: testRepo, ModelsDir: t.TempDir()}, fastOptions())
	if !errors.Is(err, ErrNetwork) || !strings.Contains(err.Error(), "HF_ENDPOINT") {
		t.Errorf("unreachable mirror: %v", err)
	}
}

func TestDiscardPaused(t *testing.T) {
	s := serve(t)
	file := "onnx/model_q4.onnx"
	s.AddFault(fakehub.Fault{Kind: fakehub.Slow, File: file, Rate: 8 << 20, Times: 1})
	dir := t.TempDir()
	req := Request{Ref: testRepo, ModelsDir: dir}
	ctx, cancel := context.WithCancelCause(context.Background())
	if _, err := NewClient("").Pull(ctx, req, pauseAfter(cancel, ErrPaused, file, size(t, file)/3)); !errors.Is(err, ErrPaused) {
		t.Fatalf("err = %v, want ErrPaused", err)
	}
	if err := Discard(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if left := findFiles(t, dir, ""); len(left) != 3 { // dir, the repository folder, .lock
		t.Errorf("after Discard: %v", left)
	}
}

// TestNetworkErrorsSayWhatToDo: an untrusted certificate and an unreachable proxy give
// messages that name the fix.
func TestNetworkErrorsSayWhatToDo(t *testing.T) {
	tlsHub := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsHub.Close()
	c := NewClient("")
	c.Endpoint = tlsHub.URL
	_, err := c.Commit(context.Background(), testRepo, "main")
	if !errors.Is(err, ErrNetwork) || !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), "root certificate") {
		t.Errorf("untrusted certificate: %v", err)
	}
	c = NewClient("")
	c.Endpoint = "https://hub.invalid"
	proxy, _ := url.Parse("http://127.0.0.1:1")
	c.HTTP.Transport = &http.Transport{Proxy: http.ProxyURL(proxy)}
	_, err = c.Commit(context.Background(), testRepo, "main")
	if !errors.Is(err, ErrNetwork) || !strings.Contains(err.Error(), "HTTPS_PROXY") {
		t.Errorf("unreachable proxy: %v", err)
	}
}

// A stalled connection shows as time without data, then as a failed try with the time left
// before the next one and what ended it; the download then goes on.
func TestStallAndRetryProgress(t *testing.T) {
	s := serve(t)
	file := "onnx/model_q4.onnx"
	s.AddFault(fakehub.Fault{Kind: fakehub.Stall, File: file, At: size(t, file) / 2, Times: 1})
	var mu sync.Mutex
	var seen []Progress
	opt := fastOptions()
	opt.Stall = 2500 * time.Millisecond // longer than a tick: the quiet time shows first
	opt.Backoff = 1500 * time.Millisecond
	opt.ProgressEvery = 50 * time.Millisecond
	opt.Progress = func(p Progress) { mu.Lock(); seen = append(seen, p); mu.Unlock() }
	if _, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: t.TempDir()}, opt); err != nil {
		t.Fatal(err)
	}
	var stalled, retrying, after bool
	for _, p := range seen {
		switch {
		case p.State == "downloading" && p.Stalled >= time.Second && p.Speed == 0:
			stalled = true
		case p.State == "retrying" && p.RetryIn > 0 && p.Problem != "":
			retrying = p.Retries == 1 // the try it counts
		case retrying && p.State == "downloading" && p.Problem == "":
			after = p.Retries == 1 || p.File != file // the next file starts again at 0
		}
	}
	if !stalled || !retrying || !after {
		t.Errorf("progress shows the quiet connection %v, the retry %v, going on after it %v", stalled, retrying, after)
	}
}
