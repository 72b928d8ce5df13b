package hub

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"edgechat/internal/safepath"
)

// stagingPrefix and stateFile name a pull's staging folder, .partial-<commit>, and its state
// file inside.
const (
	stagingPrefix = ".partial-"
	stateFile     = ".pull.json"
)

// state is kept in the staging folder so that a later pull of the same request resumes the
// same commit even if the branch moved. Files is the record of what pulls write there: the
// repository paths whose file (and .incomplete part) they create. It is written before any of
// them, and clean-up removes those and nothing else.
type state struct {
	Ref     string   `json:"ref"`
	Variant string   `json:"variant"`
	Include []string `json:"include,omitempty"`
	NPU     bool     `json:"npu,omitempty"`
	Commit  string   `json:"commit"`
	Files   []string `json:"files,omitempty"`
}

// staging is the pull of one commit of a repository: its files arrive in .partial-<commit>
// and move, verified, to <commit>. Every name it builds is relative to the repository's
// folder, from a commit id of 40 hex digits and repository paths that passed safepath.Rel.
type staging struct {
	d          *repoDir
	dir, final string
	st         state
}

func (d *repoDir) staging(commit string) *staging {
	if !shaRe.MatchString(commit) {
		panic("hub: staging for a commit id that was not checked: " + commit) // a bug, not a server's answer
	}
	return &staging{d: d, dir: stagingPrefix + commit, final: commit}
}

// part, done and dest are where repository path p is while it arrives, once verified, and in
// the finished folder.
func (s *staging) part(p string) string { return s.done(p) + ".incomplete" }
func (s *staging) done(p string) string { return filepath.Join(s.dir, filepath.FromSlash(p)) }
func (s *staging) dest(p string) string { return filepath.Join(s.final, filepath.FromSlash(p)) }

// load reads the staging folder's state.
func (s *staging) load() (state, bool) {
	b, err := s.d.root.ReadFile(filepath.Join(s.dir, stateFile))
	return parseState(b, err)
}

func readState(p string) (state, bool) { return parseState(os.ReadFile(p)) }

func parseState(b []byte, err error) (state, bool) {
	var st state
	if err != nil || json.Unmarshal(b, &st) != nil || !shaRe.MatchString(st.Commit) {
		return state{}, false
	}
	return st, true
}

// begin refuses links where the pull writes, then records st and files (with what an earlier
// pull of the commit recorded) in the staging folder, creating it.
func (s *staging) begin(st state, files []Entry) error {
	for _, name := range []string{s.dir, s.final} {
		if err := noLink(s.d.root, s.d.path, name); err != nil {
			return err
		}
	}
	if old, ok := s.load(); ok {
		st.Files = old.Files
	}
	for _, e := range files {
		if !slices.Contains(st.Files, e.Path) {
			st.Files = append(st.Files, e.Path)
		}
	}
	s.st = st
	if err := s.d.root.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w — choose a models folder you can write to", filepath.Join(s.d.path, s.dir), err)
	}
	b, _ := json.Marshal(st)
	tmp := filepath.Join(s.dir, stateFile+".tmp")
	if err := s.d.root.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %w — check that the models folder is writable", filepath.Join(s.d.path, tmp), err)
	}
	return s.d.root.Rename(tmp, filepath.Join(s.dir, stateFile))
}

// recorded is the record: the state's files that are paths inside a model's folder (the state
// file is on disk, so it is checked again).
func (s *staging) recorded() []string {
	st := s.st
	if st.Commit == "" {
		st, _ = s.load()
	}
	var out []string
	for _, p := range st.Files {
		if safepath.Rel(p) == nil {
			out = append(out, p)
		}
	}
	return out
}

// finish moves the verified files of the record into the finished folder, then clears the
// staging folder.
func (s *staging) finish() error {
	for _, p := range s.recorded() {
		if st, err := s.d.root.Lstat(s.done(p)); err != nil || !st.Mode().IsRegular() {
			continue // not fetched (another variant's file still arriving)
		}
		dst := s.dest(p)
		err := s.d.mkdirFor(dst)
		if err == nil {
			err = s.d.root.Rename(s.done(p), dst)
		}
		if err != nil {
			return fmt.Errorf("cannot move the download into %s: %w", filepath.Join(s.d.path, s.final), err)
		}
	}
	return s.clear()
}

// clear removes what the record names — each file and its part, then the folders they were in
// when empty, the state file and the staging folder when empty — one name at a time, never
// through a link and never a whole tree: whatever else is there stays.
func (s *staging) clear() error {
	files := s.recorded()
	var dirs []string
	var errs []error
	for _, p := range files {
		for _, name := range []string{s.done(p), s.part(p)} {
			errs = append(errs, s.remove(name))
		}
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	// Deepest first, so that a folder is empty when its turn comes.
	slices.SortFunc(dirs, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(b, "/"), strings.Count(a, "/")), cmp.Compare(a, b))
	})
	for _, d := range dirs {
		_ = s.remove(s.done(d)) // not empty: something else is in it
	}
	errs = append(errs, s.remove(filepath.Join(s.dir, stateFile)), s.remove(filepath.Join(s.dir, stateFile+".tmp")))
	_ = s.remove(s.dir)
	return errors.Join(errs...)
}

// remove removes one name of the repository's folder unless it or a folder on the way is a
// link; a name that is not there is fine.
func (s *staging) remove(name string) error {
	if noLink(s.d.root, s.d.path, name) != nil {
		return nil
	}
	err := s.d.root.Remove(name)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("cannot remove %s: %w", filepath.Join(s.d.path, name), err)
}
