package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"edgechat/models"
)

// Request is one model to download.
type Request struct {
	Ref       string   // ORG/NAME[@REVISION]
	Variant   string   // "" = best for this machine
	Include   []string // extra globs
	ModelsDir string
	// NPU prefers an NPU build when the repository has one (a Snapdragon PC).
	NPU bool
}

// Options tune a download; the zero value takes the defaults.
type Options struct {
	// Progress receives snapshots (coalesced to ProgressEvery), from one goroutine at a time.
	Progress      func(Progress)
	ProgressEvery time.Duration // default 200 ms
	// Stall is how long no byte may arrive before the request is retried (default 30 s).
	Stall time.Duration
	// Retries is how many failed tries in a row end a file's download (default 6); Backoff
	// the first wait between them, doubling (default 1 s).
	Retries int
	Backoff time.Duration
	// FreeSpace reports the writable bytes on dir's disk (default: the filesystem's).
	FreeSpace func(dir string) (int64, error)
	// LockPoll is how often a download waiting for another one's lock looks again (default 500 ms).
	LockPoll time.Duration
}

func (o *Options) defaults() {
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 200 * time.Millisecond
	}
	if o.Stall <= 0 {
		o.Stall = 30 * time.Second
	}
	if o.Retries <= 0 {
		o.Retries = 6
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.FreeSpace == nil {
		o.FreeSpace = freeSpace
	}
	if o.LockPoll <= 0 {
		o.LockPoll = 500 * time.Millisecond
	}
}

// Result is a finished download.
type Result struct {
	Path    string   `json:"path"` // the folder to pass to --model
	Repo    string   `json:"repo"`
	Commit  string   `json:"commit"`
	Variant string   `json:"variant"`
	Files   []string `json:"files"`
	Bytes   int64    `json:"size_bytes"`
	// Fetched is the bytes that came over the network this time.
	Fetched int64 `json:"fetched_bytes"`
	// Problem, if set, says why EdgeChat cannot open the folder as it is (e.g. no tokenizer).
	Problem string `json:"problem,omitempty"`
}

// state is kept in the staging folder so that a later pull of the same request resumes the
// same commit even if the branch moved.
type state struct {
	Ref     string   `json:"ref"`
	Variant string   `json:"variant"`
	Include []string `json:"include,omitempty"`
	NPU     bool     `json:"npu,omitempty"`
	Commit  string   `json:"commit"`
}

// RepoDir is where a repository's downloads live: <models dir>/ORG--NAME.
func RepoDir(modelsDir, repo string) string {
	return filepath.Join(modelsDir, strings.ReplaceAll(repo, "/", "--"))
}

var shaRe = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Pull downloads a model folder. Cancel ctx with cause ErrPaused to pause (the next Pull of the
// same request continues), ErrCancelled to abandon it (its partial files are deleted).
func (c *Client) Pull(ctx context.Context, req Request, opt Options) (res Result, err error) {
	opt.defaults()
	repo, rev, err := ParseRef(req.Ref)
	if err != nil {
		return res, err
	}
	if req.ModelsDir == "" {
		return res, errors.New("no models folder: set one in Settings or pass --models-dir")
	}
	tr := newTracker(repo, opt.Progress, opt.ProgressEvery)
	base := RepoDir(req.ModelsDir, repo)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return res, fmt.Errorf("cannot create %s: %w — choose a models folder you can write to", base, err)
	}
	unlockRepo, err := lockRepo(ctx, base, opt.LockPoll, func() { tr.update(true, func(p *Progress) { p.State = "waiting" }) })
	if err != nil {
		return res, err
	}
	defer unlockRepo()

	commit := resumeCommit(base, req, rev)
	if commit == "" {
		if commit, err = c.Commit(ctx, repo, rev); err != nil {
			return res, err
		}
	}
	staging := filepath.Join(base, ".partial-"+commit)
	defer func() {
		if errors.Is(context.Cause(ctx), ErrCancelled) {
			_ = os.RemoveAll(staging)
		}
	}()
	tree, err := c.Tree(ctx, repo, commit)
	if err != nil {
		return res, err
	}
	sel, err := Choose(tree, req.Variant, req.Include, req.NPU)
	if err != nil {
		return res, fmt.Errorf("%s: %w", repo, err)
	}
	final := filepath.Join(base, commit)
	res = Result{Repo: repo, Commit: commit, Variant: sel.Variant, Path: filepath.Join(final, filepath.FromSlash(sel.Dir))}

	var todo []Entry
	var done int64
	for _, e := range sel.Files {
		res.Files = append(res.Files, e.Path)
		res.Bytes += e.Size
		if have(filepath.Join(final, filepath.FromSlash(e.Path)), e.Size) {
			done += e.Size
			continue
		}
		todo = append(todo, e)
		p := filepath.Join(staging, filepath.FromSlash(e.Path))
		if have(p, e.Size) {
			done += e.Size // verified by an earlier run
		} else if st, err := os.Stat(p + ".incomplete"); err == nil && st.Size() <= e.Size {
			done += st.Size() // resumed
		}
	}
	if err := checkSpace(req.ModelsDir, res.Bytes-done, opt.FreeSpace); err != nil {
		return res, err
	}
	if err := writeState(staging, state{Ref: req.Ref, Variant: req.Variant, Include: req.Include, NPU: req.NPU, Commit: commit}); err != nil {
		return res, err
	}
	tr.update(true, func(p *Progress) { p.Commit, p.State, p.Total, p.Done = commit, "downloading", res.Bytes, done })
	f := &fetcher{c: c, repo: repo, commit: commit, opt: &opt, count: func(n int64) {
		res.Fetched += max(n, 0)
		tr.add(n)
	}}
	for _, e := range todo {
		p := filepath.Join(staging, filepath.FromSlash(e.Path))
		if have(p, e.Size) {
			continue // verified by an earlier run, waiting for the others
		}
		part := p + ".incomplete"
		var partSize int64
		if st, err := os.Stat(part); err == nil {
			partSize = st.Size()
		}
		tr.update(true, func(pr *Progress) { pr.File, pr.FileSize, pr.FileDone = e.Path, e.Size, partSize })
		if err := f.fetch(ctx, e, part, p); err != nil {
			return res, err
		}
	}
	if err := finish(staging, final); err != nil {
		return res, err
	}
	if _, err := models.Open(res.Path, ""); err != nil {
		res.Problem = err.Error()
	}
	tr.update(true, func(p *Progress) { p.State, p.File, p.Done = "done", "", res.Bytes })
	return res, nil
}

// have reports whether p is a file of size bytes (a file in place was verified before its
// rename).
func have(p string, size int64) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Size() == size
}

// resumeCommit returns the commit of an interrupted pull of the same request, so that it
// continues from the same commit; "" when there is none (or rev names a commit).
func resumeCommit(base string, req Request, rev string) string {
	if shaRe.MatchString(rev) {
		return rev
	}
	entries, _ := os.ReadDir(base)
	for _, d := range entries {
		if !d.IsDir() || !strings.HasPrefix(d.Name(), ".partial-") {
			continue
		}
		var st state
		b, err := os.ReadFile(filepath.Join(base, d.Name(), ".pull.json"))
		if err == nil && json.Unmarshal(b, &st) == nil && st.Ref == req.Ref && st.Variant == req.Variant && shaRe.MatchString(st.Commit) {
			return st.Commit
		}
	}
	return ""
}

func writeState(staging string, st state) error {
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w — choose a models folder you can write to", staging, err)
	}
	b, _ := json.Marshal(st)
	return os.WriteFile(filepath.Join(staging, ".pull.json"), b, 0o644)
}

// checkSpace fails when dir's disk has less than need bytes (+1% and 50 MB to spare).
func checkSpace(dir string, need int64, free func(string) (int64, error)) error {
	if need <= 0 {
		return nil
	}
	avail, err := free(dir)
	if err != nil {
		return nil // cannot tell: writing will say if the disk fills up
	}
	if avail < need+need/100+50<<20 {
		return diskFullError(dir, need, avail)
	}
	return nil
}

// finish moves the verified files of staging into final: the whole folder when final is new,
// else file by file; then removes staging.
func finish(staging, final string) error {
	_ = os.Remove(filepath.Join(staging, ".pull.json"))
	if _, err := os.Stat(final); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(staging, final); err != nil {
			return fmt.Errorf("cannot move the download into %s: %w", final, err)
		}
		return nil
	}
	err := filepath.WalkDir(staging, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".incomplete") {
			return err
		}
		rel, _ := filepath.Rel(staging, p)
		dst := filepath.Join(final, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.Rename(p, dst)
	})
	if err != nil {
		return fmt.Errorf("cannot move the download into %s: %w", final, err)
	}
	return os.RemoveAll(staging)
}

// lockRepo takes base's lock file, waiting (and calling waiting once) while another download
// of the same model — in this process or another — holds it.
func lockRepo(ctx context.Context, base string, poll time.Duration, waiting func()) (func(), error) {
	f, err := os.OpenFile(filepath.Join(base, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot create the lock file in %s: %w — check that the models folder is writable", base, err)
	}
	told := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot lock %s: %w", f.Name(), err)
		}
		if ok {
			return func() { unlock(f); f.Close() }, nil
		}
		if !told {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, context.Cause(ctx)
		case <-time.After(poll):
		}
	}
}

// Suggestion is a model the app offers to download.
type Suggestion struct {
	Ref, Variant, Note string
}

// Suggested is the short list shipped with the app: Qwen3-0.6B in its onnx-community variants
// first.
var Suggested = []Suggestion{
	{"onnx-community/Qwen3-0.6B-ONNX", "q4", "Qwen3 0.6B, int4 — fastest on the CPU (recommended)"},
	{"onnx-community/Qwen3-0.6B-ONNX", "q4f16", "Qwen3 0.6B, int4 with fp16 — smallest download"},
	{"onnx-community/Qwen3-0.6B-ONNX", "int8", "Qwen3 0.6B, int8"},
	{"onnx-community/Qwen3-0.6B-ONNX", "fp16", "Qwen3 0.6B, fp16"},
	{"onnx-community/Qwen3-1.7B-ONNX", "q4", "Qwen3 1.7B, int4 — better answers, slower"},
}

// Discard deletes what a paused download of req left (its staging folder), so that nothing
// half-fetched stays on disk. It waits for a download of the same model that is running.
func Discard(ctx context.Context, req Request) error {
	repo, rev, err := ParseRef(req.Ref)
	if err != nil {
		return err
	}
	base := RepoDir(req.ModelsDir, repo)
	if _, err := os.Stat(base); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	unlockRepo, err := lockRepo(ctx, base, 100*time.Millisecond, func() {})
	if err != nil {
		return err
	}
	defer unlockRepo()
	if commit := resumeCommit(base, req, rev); commit != "" {
		return os.RemoveAll(filepath.Join(base, ".partial-"+commit))
	}
	return nil
}

// Pending lists the downloads into modelsDir that were interrupted (paused, failed, the app
// closed or killed): pulling one again continues it.
func Pending(modelsDir string) []Request {
	var out []Request
	repos, _ := os.ReadDir(modelsDir)
	for _, r := range repos {
		parts, _ := os.ReadDir(filepath.Join(modelsDir, r.Name()))
		for _, p := range parts {
			if !p.IsDir() || !strings.HasPrefix(p.Name(), ".partial-") {
				continue
			}
			var st state
			b, err := os.ReadFile(filepath.Join(modelsDir, r.Name(), p.Name(), ".pull.json"))
			if err == nil && json.Unmarshal(b, &st) == nil && st.Ref != "" {
				out = append(out, Request{Ref: st.Ref, Variant: st.Variant, Include: st.Include, NPU: st.NPU, ModelsDir: modelsDir})
			}
		}
	}
	return out
}
