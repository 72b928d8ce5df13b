package hub

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
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

// Pull downloads a model folder. Cancel ctx with cause ErrPaused to pause (the next Pull of the
// same request continues), ErrCancelled to abandon it (its partial files are deleted).
//
// The server's answers are data, never paths: the commit id must be 40 lowercase hex digits
// and each file's path a relative path that is safe on every system (else ErrBadServer, before
// anything is written); files are written only inside the repository's folder, through an
// os.Root, and never through a link; clean-up removes only the files the pull recorded
// creating.
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
	d, err := openRepoDir(req.ModelsDir, repo)
	if err != nil {
		return res, err
	}
	defer d.close()
	unlockRepo, err := d.lock(ctx, opt.LockPoll, func() { tr.update(true, func(p *Progress) { p.State = "waiting" }) })
	if err != nil {
		return res, err
	}
	defer unlockRepo()

	commit := d.resumeCommit(req, rev)
	if commit == "" {
		if commit, err = c.Commit(ctx, repo, rev); err != nil {
			return res, err
		}
	}
	s := d.staging(commit)
	defer func() {
		if errors.Is(context.Cause(ctx), ErrCancelled) {
			_ = s.clear()
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
	if err := c.checkNames(sel.Files); err != nil {
		return res, err
	}
	res = Result{Repo: repo, Commit: commit, Variant: sel.Variant, Path: filepath.Join(d.path, s.final, filepath.FromSlash(sel.Dir))}

	var todo []Entry
	var done int64
	for _, e := range sel.Files {
		res.Files = append(res.Files, e.Path)
		res.Bytes += e.Size
		if d.have(s.dest(e.Path), e.Size) {
			done += e.Size
			continue
		}
		todo = append(todo, e)
		if d.have(s.done(e.Path), e.Size) {
			done += e.Size // verified by an earlier run
		} else if st, err := d.root.Lstat(s.part(e.Path)); err == nil && st.Size() <= e.Size {
			done += st.Size() // resumed
		}
	}
	if err := checkSpace(req.ModelsDir, res.Bytes-done, opt.FreeSpace); err != nil {
		return res, err
	}
	if err := s.begin(state{Ref: req.Ref, Variant: req.Variant, Include: req.Include, NPU: req.NPU, Commit: commit}, todo); err != nil {
		return res, err
	}
	tr.update(true, func(p *Progress) { p.Commit, p.State, p.Total, p.Done = commit, "downloading", res.Bytes, done })
	f := &fetcher{c: c, d: d, repo: repo, commit: commit, opt: &opt, count: func(n int64) {
		res.Fetched += max(n, 0)
		tr.add(n)
	}, retrying: tr.retrying, retried: tr.retried}
	stopTick := tr.tick(time.Second)
	defer stopTick()
	for _, e := range todo {
		if d.have(s.done(e.Path), e.Size) {
			continue // verified by an earlier run, waiting for the others
		}
		var partSize int64
		if st, err := d.root.Lstat(s.part(e.Path)); err == nil {
			partSize = st.Size()
		}
		tr.update(true, func(pr *Progress) { pr.File, pr.FileSize, pr.FileDone, pr.Retries = e.Path, e.Size, partSize, 0 })
		if err := f.fetch(ctx, e, s.part(e.Path), s.done(e.Path)); err != nil {
			return res, err
		}
	}
	if err := s.finish(); err != nil {
		return res, err
	}
	if _, err := models.Open(res.Path, ""); err != nil {
		res.Problem = err.Error()
	}
	stopTick()
	tr.update(true, func(p *Progress) { p.State, p.File, p.Done = "done", "", res.Bytes })
	return res, nil
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
