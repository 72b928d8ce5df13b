package discover

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"edgechat/models"
	"edgechat/tokenizer"
)

// Skipped is a folder that looked like a model but cannot be used as it is.
type Skipped struct {
	Path   string `json:"path"`
	Source Source `json:"source"`
	Reason string `json:"reason"`
}

// Result is what Scan found.
type Result struct {
	Models  []Model
	Skipped []Skipped
}

// maxDepth bounds how deep below a root a model folder may sit (Foundry's
// <publisher>/<id>/v<ver>/ and older <model>/<runtime>/<variant>/ are the deepest).
const maxDepth = 5

// Scan looks through every root and describes the models it finds, each folder once (the
// first source that reaches it wins), sorted by source and name. Missing roots are fine.
func Scan(r Roots) Result {
	s := &scanner{seen: map[string]bool{}}
	for _, rt := range r.list() {
		s.source = rt.source
		if rt.source == SourceHFCache {
			s.hfCache(rt.dir)
			continue
		}
		s.walk(rt.dir, rt.dir, 0)
	}
	order := map[Source]int{}
	for i, rt := range r.list() {
		if _, ok := order[rt.source]; !ok {
			order[rt.source] = i
		}
	}
	sort.SliceStable(s.res.Models, func(i, j int) bool {
		a, b := s.res.Models[i], s.res.Models[j]
		if a.Source != b.Source {
			return order[a.Source] < order[b.Source]
		}
		return a.Name < b.Name
	})
	return s.res
}

type scanner struct {
	source Source
	seen   map[string]bool
	res    Result
	hfName string // ORG/NAME of the hub cache repository being scanned
}

// walk looks for model folders in dir (depth levels below root).
func (s *scanner) walk(root, dir string, depth int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	if looksLikeModel(entries) {
		s.add(root, dir, entries)
		return
	}
	if depth >= maxDepth {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.Name() == "onnx" {
			continue
		}
		if e.IsDir() || (e.Type()&os.ModeSymlink != 0 && isDir(filepath.Join(dir, e.Name()))) {
			s.walk(root, filepath.Join(dir, e.Name()), depth+1)
		}
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// looksLikeModel: every layout needs tokenizer files (tokenizer.json, or what it is built
// from) beside a config or a graph.
func looksLikeModel(entries []os.DirEntry) bool {
	names := map[string]bool{}
	other := false
	for _, e := range entries {
		n := e.Name()
		names[n] = true
		if n == "genai_config.json" || n == "config.json" || n == "onnx" || strings.HasSuffix(n, ".onnx") {
			other = true
		}
	}
	return other && tokenizer.HasFiles(func(n string) bool { return names[n] })
}

// incomplete names the marker of an unfinished download among entries, or "".
func incomplete(dir string, entries []os.DirEntry) string {
	check := func(list []os.DirEntry) string {
		for _, e := range list {
			n := strings.ToLower(e.Name())
			if n == "download.tmp" || n == ".download.lock" {
				return e.Name()
			}
			for _, suf := range []string{".incomplete", ".part", ".dlstate", ".download.state"} {
				if strings.HasSuffix(n, suf) {
					return e.Name()
				}
			}
		}
		return ""
	}
	if m := check(entries); m != "" {
		return m
	}
	sub, _ := os.ReadDir(filepath.Join(dir, "onnx"))
	if m := check(sub); m != "" {
		return filepath.Join("onnx", m)
	}
	return ""
}

// add classifies the model folder dir found under root.
func (s *scanner) add(root, dir string, entries []os.DirEntry) {
	key := dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		key = real
	}
	if s.seen[key] {
		return
	}
	s.seen[key] = true
	if m := incomplete(dir, entries); m != "" {
		s.skip(dir, "unfinished download ("+m+")")
		return
	}
	m, err := classify(dir)
	if err != nil {
		s.skip(dir, err.Error())
		return
	}
	m.Source, m.Name = s.source, s.name(root, dir)
	s.res.Models = append(s.res.Models, m)
}

func (s *scanner) skip(dir, reason string) {
	s.res.Skipped = append(s.res.Skipped, Skipped{Path: dir, Source: s.source, Reason: reason})
}

// name is how people know the model: ORG/NAME for Hub downloads, the tool's own name for
// Foundry Local and AI Toolkit, else the path below the root.
func (s *scanner) name(root, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if s.source == SourceHFCache {
		return joinName(s.hfName, strings.Split(filepath.ToSlash(rel), "/"))
	}
	if err != nil || rel == "." {
		return filepath.Base(dir)
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	switch s.source {
	case SourceEdgeChat, SourceGallery:
		// ORG--NAME/<commit>/[sub-folder]
		repo := strings.Replace(parts[0], "--", "/", 1)
		if len(parts) > 2 {
			return repo + " (" + strings.Join(parts[2:], "/") + ")"
		}
		return repo
	case SourceFoundry, SourceAIToolkit:
		if im, err := models.ReadInferenceModel(dir); err == nil && im != nil && im.Name != "" {
			return im.Name
		}
	}
	return strings.Join(parts, "/")
}

func joinName(repo string, sub []string) string {
	if len(sub) == 0 || (len(sub) == 1 && sub[0] == ".") {
		return repo
	}
	return repo + " (" + strings.Join(sub, "/") + ")"
}

// commitRe is a commit id as the Hub's cache names its snapshots: 40 lowercase hex digits.
var commitRe = regexp.MustCompile(`^[0-9a-f]{40}$`)

// hfCache scans a Hugging Face hub cache: models--ORG--NAME/refs/main names the snapshot to
// use (all snapshots when there is no ref); files in snapshots are symlinks into blobs/ or,
// on Windows without symlink rights, real files.
func (s *scanner) hfCache(cache string) {
	repos, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	for _, r := range repos {
		name, ok := strings.CutPrefix(r.Name(), "models--")
		if !ok || !r.IsDir() {
			continue
		}
		s.hfName = strings.Replace(name, "--", "/", 1)
		repoDir := filepath.Join(cache, r.Name())
		if busy := blobsInProgress(repoDir); busy != "" {
			s.skip(repoDir, "unfinished download ("+busy+")")
			continue
		}
		var snaps []string
		if b, err := os.ReadFile(filepath.Join(repoDir, "refs", "main")); err == nil {
			sha := strings.TrimSpace(string(b))
			if !commitRe.MatchString(sha) {
				s.skip(repoDir, fmt.Sprintf("refs/main holds %.60q, which is not a commit id", sha))
				continue
			}
			snaps = []string{sha}
		} else {
			list, _ := os.ReadDir(filepath.Join(repoDir, "snapshots"))
			for _, d := range list {
				snaps = append(snaps, d.Name())
			}
		}
		for _, sha := range snaps {
			snap := filepath.Join(repoDir, "snapshots", sha)
			s.walk(snap, snap, 0)
		}
	}
}

// blobsInProgress names a partial blob of the repository, or "".
func blobsInProgress(repoDir string) string {
	blobs, _ := os.ReadDir(filepath.Join(repoDir, "blobs"))
	for _, b := range blobs {
		if strings.HasSuffix(b.Name(), ".incomplete") {
			return filepath.Join("blobs", b.Name())
		}
	}
	return ""
}
