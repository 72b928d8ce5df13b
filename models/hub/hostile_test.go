package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/safepath"
	"edgechat/internal/testkit/fakehub"
)

// The attacks of a hostile Hub (a mirror in HF_ENDPOINT, or anyone on the path of plain HTTP):
// each must end within seconds with a clear error, and write or delete nothing outside the
// models folder.

// attackTime bounds each attack; attackDeadline is when a pull counts as hung. Under qemu's
// emulation (packaging/winarm64.sh sets EDGECHAT_EMULATED) a loopback round trip takes ~17 ms,
// so TestEndlessTree's thousand pages alone take 17 s: there the bounds are tripled.
var attackTime, attackDeadline = emulated(10 * time.Second), emulated(30 * time.Second)

func emulated(d time.Duration) time.Duration {
	if os.Getenv("EDGECHAT_EMULATED") != "" {
		return 3 * d
	}
	return d
}

// arena is a folder for one attack: the models folder deep inside it (so that a path which
// climbs out of it still lands in the arena), a sentinel folder beside it, and a listing of
// everything outside the models folder, taken before the attack.
type arena struct {
	top, models, outside string
	before               map[string]string
}

func newArena(t *testing.T) *arena {
	t.Helper()
	top := t.TempDir()
	c := filepath.Join(top, "a", "b", "c")
	a := &arena{top: top, models: filepath.Join(c, "models"), outside: filepath.Join(c, "outside")}
	for _, d := range []string{a.models, filepath.Join(a.outside, "docs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(a.outside, "keep.txt"), filepath.Join(a.outside, "docs", "letter.txt")} {
		if err := os.WriteFile(f, []byte("the user's own file"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a.before = a.list(t)
	return a
}

// list describes every path under the arena but inside the models folder: its kind, size
// and content hash. Links are listed, not followed.
func (a *arena) list(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(a.top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == a.models {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(a.top, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := info.Mode().String()
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			desc += " " + hex.EncodeToString(sum[:8])
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pull runs one attack: a pull into the arena's models folder that must fail within
// attackTime and leave everything outside the models folder as it was. With cancelMidway, a
// pull that gets as far as downloading is cancelled (which deletes what it fetched): the
// clean-up is under attack too.
func (a *arena) pull(t *testing.T, req Request, opt Options, cancelMidway bool) error {
	t.Helper()
	ctx, stop := context.WithTimeout(context.Background(), attackDeadline)
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if cancelMidway {
		opt.ProgressEvery = time.Millisecond
		opt.Progress = func(p Progress) {
			if p.FileDone > 0 {
				cancel(ErrCancelled)
			}
		}
	}
	if req.Ref == "" {
		req.Ref = testRepo
	}
	req.ModelsDir = a.models
	c := NewClient("")
	c.Backoff = time.Millisecond
	start := time.Now()
	_, err := c.Pull(ctx, req, opt)
	took := time.Since(start)
	if diff := cmp.Diff(a.before, a.list(t)); diff != "" {
		t.Errorf("the attack changed files outside the models folder (-before +after):\n%s", diff)
	}
	switch {
	case err == nil:
		t.Fatal("the pull succeeded")
	case errors.Is(err, context.DeadlineExceeded) || took > attackTime:
		t.Fatalf("the pull took %v (%v): it hangs", took.Round(time.Millisecond), err)
	case errors.Is(err, ErrCancelled):
		t.Fatalf("the pull got as far as downloading: %v", err)
	}
	t.Logf("after %v: %v", took.Round(time.Millisecond), err)
	return err
}

// hostile serves the test model changed by lie.
func hostile(t *testing.T, lie func(r *fakehub.Repo)) *fakehub.Server {
	t.Helper()
	repo, err := fakehub.RepoFromDir(testRepo, testCommit, modelDir)
	if err != nil {
		t.Fatal(err)
	}
	lie(repo)
	s := fakehub.Start(repo)
	t.Cleanup(s.Close)
	t.Setenv("HF_ENDPOINT", s.URL)
	t.Setenv("HF_TOKEN", "")
	return s
}

func TestHostileCommit(t *testing.T) {
	for _, tc := range []struct{ name, sha string }{
		{"climbs out", "../../../x"},
		{"absolute", "/" + strings.Repeat("../", 30)}, // + the sentinel's path, below
		{"upper case", strings.ToUpper(testCommit[:20]) + testCommit[20:]},
		{"too short", testCommit[:7]},
		{"too long", testCommit + "0"},
		{"not hex", strings.Repeat("g", 40)},
		{"backslashes", `..\..\..\..\..\x` + strings.Repeat("0", 24)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newArena(t)
			sha := tc.sha
			if tc.name == "absolute" {
				sha += strings.TrimPrefix(filepath.ToSlash(a.outside), "/")
			}
			s := hostile(t, func(r *fakehub.Repo) { r.RevisionSHA = sha })
			err := a.pull(t, Request{}, fastOptions(), true)
			if !errors.Is(err, ErrBadServer) || !strings.Contains(err.Error(), s.URL) || !strings.Contains(err.Error(), "commit") {
				t.Errorf("err = %v, want ErrBadServer naming %s and the commit", err, s.URL)
			}
			if s.Requests.Load() != 0 {
				t.Errorf("%d files requested from a server whose commit id is bad", s.Requests.Load())
			}
		})
	}
}

func TestHostileTreePaths(t *testing.T) {
	for _, p := range []string{
		"../../escape.json", "../../../../outside/keep.txt", "/etc/evil.json", "onnx/../../../x.json",
		`..\..\..\x.json`, `onnx\model_q4.onnx`, "C:/Windows/evil.json", "C:evil.json",
		"config.json:stream", "CON", "onnx/nul.json", "COM1.onnx", "dir./x.json", "space /x.json",
		"a//b.json", "tab\t.json", "ask?.json",
	} {
		t.Run(p, func(t *testing.T) {
			a := newArena(t)
			s := hostile(t, func(r *fakehub.Repo) { r.Files = append(r.Files, fakehub.NewFile(p, []byte("{}"))) })
			err := a.pull(t, Request{Include: []string{"*"}}, fastOptions(), true)
			if !errors.Is(err, ErrBadServer) || !strings.Contains(err.Error(), s.URL) {
				t.Errorf("err = %v, want ErrBadServer naming %s", err, s.URL)
			}
			if s.Requests.Load() != 0 {
				t.Errorf("%d files requested from a server that lists unsafe paths", s.Requests.Load())
			}
		})
	}
}

// TestHostileSizes: sizes that are negative, disagree with the LFS size or cannot add up are
// refused before anything is fetched — a negative size no longer hides the download from
// the free-space check.
func TestHostileSizes(t *testing.T) {
	file := "onnx/model_q4.onnx"
	real := size(t, file)
	for _, tc := range []struct {
		name   string
		listed fakehub.Listed
	}{
		{"negative", fakehub.Listed{Size: -1 << 40, LFSSize: -1 << 40}},
		{"negative LFS size", fakehub.Listed{Size: real, LFSSize: -real}},
		{"LFS size disagrees", fakehub.Listed{Size: real, LFSSize: real + 1}},
		{"overflows the sum", fakehub.Listed{Size: 1<<63 - 1, LFSSize: 1<<63 - 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newArena(t)
			s := hostile(t, func(r *fakehub.Repo) {
				for _, f := range r.Files {
					if f.Path == file || f.Path == "onnx/model.onnx_data" {
						f.Listed = &tc.listed
					}
				}
			})
			opt := fastOptions()
			opt.FreeSpace = func(string) (int64, error) { return 10 << 20, nil } // less than the model
			err := a.pull(t, Request{Include: []string{"*"}}, opt, true)
			if !errors.Is(err, ErrBadServer) || !strings.Contains(err.Error(), s.URL) || !strings.Contains(err.Error(), "size") {
				t.Errorf("err = %v, want ErrBadServer naming %s and the size", err, s.URL)
			}
			if s.Requests.Load() != 0 {
				t.Errorf("%d files requested", s.Requests.Load())
			}
		})
	}
}

// TestShortFile: a file that keeps ending before the size its listing declares fails after a
// bounded number of tries, saying why — whether the server says so with Content-Length, ends
// a chunked body early, or cuts every connection and ignores Range so that each try starts
// over.
func TestShortFile(t *testing.T) {
	file := "onnx/model_q4.onnx"
	const declared = 10 << 30 // 10 GB
	for _, tc := range []struct {
		name    string
		listed  bool
		faults  []fakehub.Fault
		wantErr error
		want    string
	}{
		{name: "Content-Length says less", listed: true, wantErr: ErrBadServer, want: "10.74 GB"},
		{name: "chunked body ends early, 416 names the size", listed: true, faults: []fakehub.Fault{{Kind: fakehub.Chunked, File: file}}, wantErr: ErrBadServer, want: "10.74 GB"},
		{name: "chunked body ends early every time", faults: []fakehub.Fault{{Kind: fakehub.Chunked, File: file}, {Kind: fakehub.Cut, File: file, At: 5000}}, wantErr: ErrBadServer, want: "2 times"},
		{name: "cut every time, Range ignored", faults: []fakehub.Fault{{Kind: fakehub.Cut, File: file, At: 5000}, {Kind: fakehub.NoRange, File: file}}, wantErr: ErrNetwork, want: "kept failing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newArena(t)
			s := hostile(t, func(r *fakehub.Repo) {
				for _, f := range r.Files {
					if f.Path == file && tc.listed {
						f.Listed = &fakehub.Listed{Size: declared, LFSSize: declared}
					}
				}
			})
			for _, f := range tc.faults {
				s.AddFault(f)
			}
			opt := fastOptions()
			opt.FreeSpace = func(string) (int64, error) { return 1 << 50, nil }
			err := a.pull(t, Request{}, opt, false)
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), file) {
				t.Errorf("err = %v, want %v naming %s and %q", err, tc.wantErr, file, tc.want)
			}
			if n := s.Requests.Load(); n > 12 {
				t.Errorf("%d requests for the file: want a small bound", n)
			}
		})
	}
}

// TestEndlessTree: a file list whose pages never end — many small pages, or few huge ones —
// is refused after a bounded number of pages or entries, in seconds and bounded memory.
func TestEndlessTree(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pageSize int
		want     string
	}{
		{"many pages", 1, "pages"},
		{"many entries", 5000, "entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newArena(t)
			s := hostile(t, func(*fakehub.Repo) {})
			s.EndlessTree, s.PageSize = true, tc.pageSize
			err := a.pull(t, Request{}, fastOptions(), true)
			if !errors.Is(err, ErrBadServer) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), s.URL) {
				t.Errorf("err = %v, want ErrBadServer about the %s, naming %s", err, tc.want, s.URL)
			}
		})
	}
}

// TestTreeNextElsewhere: a next page on another server is not followed (it would receive the
// token).
func TestTreeNextElsewhere(t *testing.T) {
	other := fakehub.Start()
	defer other.Close()
	a := newArena(t)
	s := hostile(t, func(*fakehub.Repo) {})
	s.TreeNext = other.URL + "/api/models/" + testRepo + "/tree/" + testCommit
	err := a.pull(t, Request{}, fastOptions(), true)
	if !errors.Is(err, ErrBadServer) || !strings.Contains(err.Error(), other.URL) {
		t.Errorf("err = %v, want ErrBadServer naming %s", err, other.URL)
	}
}

// TestPlantedLinks: a link planted in the models folder that points outside it — in place of
// the model's folder, its commit folder or its staging folder — is not followed.
func TestPlantedLinks(t *testing.T) {
	for _, at := range []string{"test-org--Tiny-ONNX", "test-org--Tiny-ONNX/" + testCommit, "test-org--Tiny-ONNX/.partial-" + testCommit} {
		t.Run(at, func(t *testing.T) {
			a := newArena(t)
			link := filepath.Join(a.models, filepath.FromSlash(at))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			symlinkOrSkip(t, a.outside, link)
			a.before = a.list(t)
			hostile(t, func(*fakehub.Repo) {})
			err := a.pull(t, Request{}, fastOptions(), true)
			if !strings.Contains(err.Error(), "link") || !strings.Contains(err.Error(), filepath.Base(link)) {
				t.Errorf("err = %v, want it to name the link %s", err, link)
			}
		})
	}
}

// TestCancelRemovesOnlyItsOwn: cancelling deletes what the pull fetched and nothing else — not
// a file someone put in its staging folder, not a finished download of another variant —
// and neither does Discard.
func TestCancelRemovesOnlyItsOwn(t *testing.T) {
	s := serve(t)
	dir := t.TempDir()
	if _, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, Variant: "fp32", ModelsDir: dir}, fastOptions()); err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(dir, "test-org--Tiny-ONNX", testCommit)
	finished := listTree(t, final)
	staging := filepath.Join(dir, "test-org--Tiny-ONNX", ".partial-"+testCommit)
	foreign := filepath.Join(staging, "onnx", "notes.txt")
	if err := os.MkdirAll(filepath.Dir(foreign), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(foreign, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := "onnx/model_q4.onnx"
	for _, discard := range []bool{false, true} {
		s.AddFault(fakehub.Fault{Kind: fakehub.Slow, File: file, Rate: 8 << 20, Times: 1})
		ctx, cancel := context.WithCancelCause(context.Background())
		cause := ErrCancelled
		if discard {
			cause = ErrPaused
		}
		req := Request{Ref: testRepo, Variant: "q4", ModelsDir: dir}
		if _, err := NewClient("").Pull(ctx, req, pauseAfter(cancel, cause, file, size(t, file)/3)); !errors.Is(err, cause) {
			t.Fatalf("err = %v, want %v", err, cause)
		}
		if discard {
			if err := Discard(context.Background(), req); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(map[string]string{"onnx": "dir", "onnx/notes.txt": "4"}, listTree(t, staging)); diff != "" {
			t.Errorf("discard %v: the staging folder holds (-want +got):\n%s", discard, diff)
		}
		if diff := cmp.Diff(finished, listTree(t, final)); diff != "" {
			t.Errorf("discard %v: the finished download changed (-before +after):\n%s", discard, diff)
		}
	}
}

// listTree maps the paths under dir to "dir" or their size.
func listTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)] = "dir"
			return nil
		}
		info, err := d.Info()
		if err == nil {
			out[filepath.ToSlash(rel)] = strconv.FormatInt(info.Size(), 10)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzPaths: whatever a server answers — a commit id and a page of the file list, as JSON — the
// names a pull builds from what it accepts stay inside the repository's folder, in its
// staging or finished folder, and are names every system keeps as written.
func FuzzPaths(f *testing.F) {
	f.Add(testCommit, `[{"type":"file","path":"onnx/model.onnx","size":5,"oid":"`+testCommit+`"}]`, "org/name")
	f.Add("../../../x", `[{"type":"file","path":"../../x","size":-1,"oid":""}]`, "org/../x")
	f.Add("/../../../home/me/Documents", `[{"type":"file","path":"C:/x","size":1,"lfs":{"oid":"`+strings.Repeat("a", 64)+`","size":1}}]`, "CON/x")
	f.Add(testCommit, `[{"type":"directory","path":"a"},{"type":"file","path":"a/nul.txt","size":1,"oid":"`+testCommit+`"}]`, "a./b")
	f.Fuzz(func(t *testing.T, sha, page, ref string) {
		if repo, _, err := ParseRef(ref); err == nil {
			name := repoFolder(repo)
			if filepath.Dir(RepoDir("models", repo)) != "models" || safepath.Name(name) != nil {
				t.Fatalf("ParseRef(%q) accepted a repository whose folder is %q", ref, name)
			}
		}
		var entries []Entry
		if !shaRe.MatchString(sha) || json.Unmarshal([]byte(page), &entries) != nil {
			return
		}
		s := (&repoDir{}).staging(sha)
		for _, e := range entries {
			if checkEntry(e) != nil {
				continue
			}
			if e.Size < 0 || e.Size > maxFileSize {
				t.Fatalf("accepted the size %d", e.Size)
			}
			for _, name := range []string{s.part(e.Path), s.done(e.Path), s.dest(e.Path)} {
				top, _, _ := strings.Cut(filepath.ToSlash(name), "/")
				if !filepath.IsLocal(name) || filepath.Clean(name) != name || (top != s.dir && top != s.final) {
					t.Fatalf("the path %q became %q, outside the staging and finished folders", e.Path, name)
				}
				for part := range strings.SplitSeq(filepath.ToSlash(name), "/") {
					if err := safepath.Name(part); err != nil {
						t.Fatalf("the path %q became %q, whose part %v", e.Path, name, err)
					}
				}
			}
		}
	})
}
