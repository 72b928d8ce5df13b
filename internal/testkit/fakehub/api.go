package fakehub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// entry is one tree API entry.
type entry struct {
	Type string `json:"type"`
	OID  string `json:"oid"`
	Size int64  `json:"size"`
	Path string `json:"path"`
	LFS  *struct {
		OID         string `json:"oid"`
		Size        int64  `json:"size"`
		PointerSize int    `json:"pointerSize"`
	} `json:"lfs,omitempty"`
}

// Handler serves the hub: /api/models/{repo}/revision/{rev}, /api/models/{repo}/tree/{rev},
// /{repo}/resolve/{rev}/{path}.
func (h *Hub) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/")
		if rest, ok := strings.CutPrefix(p, "api/models/"); ok {
			h.api(w, r, rest)
			return
		}
		if i := strings.Index(p, "/resolve/"); i > 0 {
			h.resolve(w, r, p[:i], p[i+len("/resolve/"):])
			return
		}
		http.NotFound(w, r)
	})
}

// repo finds the repository and applies repo-wide faults and the token check; false means an
// answer was written.
func (h *Hub) repo(w http.ResponseWriter, r *http.Request, name string) (*Repo, bool) {
	h.mu.Lock()
	repo := h.repos[name]
	h.mu.Unlock()
	if f := h.fault("", Unauthorized); f != nil || (h.Token != "" && r.Header.Get("Authorization") != "Bearer "+h.Token) {
		http.Error(w, `{"error":"Invalid credentials in Authorization header"}`, http.StatusUnauthorized)
		return nil, false
	}
	if repo == nil || h.fault("", NotFound) != nil {
		// Like the Hub: 401 to an anonymous caller (a private repository looks the same), 404
		// to one with a token.
		w.Header().Set("X-Error-Code", "RepoNotFound")
		status := http.StatusNotFound
		if r.Header.Get("Authorization") == "" {
			status = http.StatusUnauthorized
		}
		http.Error(w, `{"error":"Repository not found"}`, status)
		return nil, false
	}
	return repo, true
}

func (h *Hub) api(w http.ResponseWriter, r *http.Request, rest string) {
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) < 4 {
		http.NotFound(w, r)
		return
	}
	repo, ok := h.repo(w, r, parts[0]+"/"+parts[1])
	if !ok {
		return
	}
	if h.fault("", ServerError) != nil {
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	}
	rev, under, ok := repo.rev(parts[3])
	if !ok {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		http.Error(w, `{"error":"Invalid rev id"}`, http.StatusNotFound)
		return
	}
	switch parts[2] {
	case "revision":
		sha := repo.Commit
		if repo.RevisionSHA != "" && rev == "main" {
			sha = repo.RevisionSHA
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"id": repo.Name, "sha": sha})
	case "tree":
		h.tree(w, r, repo, under)
	default:
		http.NotFound(w, r)
	}
}

// rev splits "REV/REST" into a revision the repository has and the rest; a hostile commit id
// (RevisionSHA, which may hold slashes) is answered like the real one.
func (repo *Repo) rev(s string) (rev, rest string, ok bool) {
	if repo.RevisionSHA != "" && strings.HasPrefix(s, repo.RevisionSHA) {
		return repo.RevisionSHA, strings.TrimPrefix(s[len(repo.RevisionSHA):], "/"), true
	}
	rev, rest, _ = strings.Cut(s, "/")
	return rev, rest, rev == "main" || rev == repo.Commit
}

func (h *Hub) tree(w http.ResponseWriter, r *http.Request, repo *Repo, under string) {
	var all []entry
	dirs := map[string]bool{}
	for _, f := range repo.Files {
		if under != "" && !strings.HasPrefix(f.Path, under+"/") {
			continue
		}
		for d := path.Dir(f.Path); d != "." && d != "/" && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			all = append(all, entry{Type: "directory", OID: "0000000000000000000000000000000000000000", Path: d})
		}
		all = append(all, f.entry())
	}
	start, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
	size := h.PageSize
	if size <= 0 {
		size = 1000
	}
	end := min(start+size, len(all))
	page := all[min(start, end):end]
	if h.EndlessTree {
		end = start + size
		filler := NewFile("", []byte("x")).entry() // one hash for them all
		for i := len(page); i < size; i++ {
			filler.Path = fmt.Sprintf("filler/%d.txt", start+i)
			page = append(page, filler)
		}
	}
	switch {
	case h.TreeNext != "":
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, h.TreeNext))
	case end < len(all) || h.EndlessTree:
		next := *r.URL
		q := next.Query()
		q.Set("cursor", strconv.Itoa(end))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, next.RequestURI()))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(page)
}

// entry is f as the tree API lists it (what Listed says, when set).
func (f *File) entry() entry {
	size, lfsSize := f.Size, f.Size
	if f.Listed != nil {
		size, lfsSize = f.Listed.Size, f.Listed.LFSSize
	}
	e := entry{Type: "file", OID: f.BlobSHA1, Size: size, Path: f.Path}
	if f.LFS {
		e.LFS = &struct {
			OID         string `json:"oid"`
			Size        int64  `json:"size"`
			PointerSize int    `json:"pointerSize"`
		}{f.SHA256, lfsSize, 134}
	}
	return e
}
