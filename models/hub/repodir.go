package hub

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// repoDir is a repository's folder in the models folder, <models dir>/ORG--NAME, opened as an
// os.Root: a pull names every file it reads, writes, renames or removes relative to it, and
// the kernel refuses a name or a link that leads outside. Links inside it are not followed
// either where a pull writes (see noLink).
type repoDir struct {
	root *os.Root
	path string // for messages and results
}

// RepoDir is where a repository's downloads live: <models dir>/ORG--NAME.
func RepoDir(modelsDir, repo string) string {
	return filepath.Join(modelsDir, repoFolder(repo))
}

func repoFolder(repo string) string { return strings.ReplaceAll(repo, "/", "--") }

// openRepoDir opens (creating if needed) repo's folder in modelsDir.
func openRepoDir(modelsDir, repo string) (*repoDir, error) {
	if err := os.MkdirAll(modelsDir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w — choose a models folder you can write to", modelsDir, err)
	}
	models, err := os.OpenRoot(modelsDir)
	if err != nil {
		return nil, fmt.Errorf("cannot open the models folder %s: %w", modelsDir, err)
	}
	defer models.Close()
	name := repoFolder(repo)
	if err := models.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("cannot create %s: %w — choose a models folder you can write to", filepath.Join(modelsDir, name), err)
	}
	if err := noLink(models, modelsDir, name); err != nil {
		return nil, err
	}
	r, err := models.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %w", filepath.Join(modelsDir, name), err)
	}
	return &repoDir{root: r, path: filepath.Join(modelsDir, name)}, nil
}

func (d *repoDir) close() { d.root.Close() }

// noLink refuses a link at name or on the way to it, inside root (at dir): a pull writes only
// into real folders of the models folder.
func noLink(root *os.Root, dir, name string) error {
	p := ""
	for part := range strings.SplitSeq(filepath.ToSlash(name), "/") {
		p = filepath.Join(p, part)
		st, err := root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cannot use %s: %w", filepath.Join(dir, p), err)
		}
		if st.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 { // Irregular: a Windows junction
			target, _ := root.Readlink(p)
			return &linkError{filepath.Join(dir, p), target}
		}
	}
	return nil
}

// linkError is a link where a pull writes or a delete removes.
type linkError struct{ path, target string }

func (e *linkError) Error() string {
	return fmt.Sprintf("%s is a link (to %s): EdgeChat downloads only into real folders inside the models folder — remove the link, or move what it points to into the models folder", e.path, e.target)
}

// mkdirFor creates the folder that is to hold name, refusing links on the way.
func (d *repoDir) mkdirFor(name string) error {
	dir := filepath.Dir(name)
	if err := noLink(d.root, d.path, dir); err != nil {
		return err
	}
	return d.root.MkdirAll(dir, 0o755)
}

// have reports whether name is a file of size bytes (a file in place was verified before its
// rename).
func (d *repoDir) have(name string, size int64) bool {
	st, err := d.root.Lstat(name)
	return err == nil && st.Mode().IsRegular() && st.Size() == size
}

// lock takes the repository's lock file, waiting (and calling waiting once) while another
// download of the same model — in this process or another — holds it.
func (d *repoDir) lock(ctx context.Context, poll time.Duration, waiting func()) (func(), error) {
	f, err := d.root.OpenFile(".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot create the lock file in %s: %w — check that the models folder is writable", d.path, err)
	}
	told := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot lock %s: %w", filepath.Join(d.path, ".lock"), err)
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

// resumeCommit returns the commit of an interrupted pull of the same request, so that it
// continues from the same commit; "" when there is none (or rev names a commit).
func (d *repoDir) resumeCommit(req Request, rev string) string {
	if shaRe.MatchString(rev) {
		return rev
	}
	entries, _ := fs.ReadDir(d.root.FS(), ".")
	for _, e := range entries {
		commit, ok := strings.CutPrefix(e.Name(), stagingPrefix)
		if !ok || !e.IsDir() || !shaRe.MatchString(commit) {
			continue
		}
		if st, ok := d.staging(commit).load(); ok && st.Ref == req.Ref && st.Variant == req.Variant {
			return commit
		}
	}
	return ""
}

// Discard deletes what a paused download of req left in its staging folder — the files its
// record names — so that nothing half-fetched stays on disk. It waits for a download of the
// same model that is running.
func Discard(ctx context.Context, req Request) error {
	repo, rev, err := ParseRef(req.Ref)
	if err != nil {
		return err
	}
	if _, err := os.Stat(RepoDir(req.ModelsDir, repo)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	d, err := openRepoDir(req.ModelsDir, repo)
	if err != nil {
		return err
	}
	defer d.close()
	unlockRepo, err := d.lock(ctx, 100*time.Millisecond, func() {})
	if err != nil {
		return err
	}
	defer unlockRepo()
	if commit := d.resumeCommit(req, rev); commit != "" {
		return d.staging(commit).clear()
	}
	return nil
}

// Pending lists the downloads into modelsDir that were interrupted (paused, failed, the app
// closed or killed): pulling one again continues it.
func Pending(modelsDir string) []Request {
	var out []Request
	for _, in := range Interruptions(modelsDir) {
		out = append(out, in.Request)
	}
	return out
}

// Interrupted is a download that was interrupted and what it left on disk.
type Interrupted struct {
	Request
	OnDisk int64 // bytes of its files already downloaded (kept for the resume)
}

// Interruptions lists the interrupted downloads into modelsDir (Pending) with the bytes each
// left on disk.
func Interruptions(modelsDir string) []Interrupted {
	var out []Interrupted
	repos, _ := os.ReadDir(modelsDir)
	for _, r := range repos {
		parts, _ := os.ReadDir(filepath.Join(modelsDir, r.Name()))
		for _, p := range parts {
			if !p.IsDir() || !strings.HasPrefix(p.Name(), stagingPrefix) {
				continue
			}
			dir := filepath.Join(modelsDir, r.Name(), p.Name())
			st, ok := readState(filepath.Join(dir, stateFile))
			if ok && st.Ref != "" {
				out = append(out, Interrupted{
					Request: Request{Ref: st.Ref, Variant: st.Variant, Include: st.Include, NPU: st.NPU, ModelsDir: modelsDir},
					OnDisk:  filesSize(dir),
				})
			}
		}
	}
	return out
}

// filesSize is the size of the regular files under dir but the state file (what a staging
// folder holds of the model).
func filesSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() || strings.HasPrefix(e.Name(), stateFile) {
			return nil
		}
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
		return nil
	})
	return n
}
