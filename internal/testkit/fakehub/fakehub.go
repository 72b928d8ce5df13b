// Package fakehub is a stand-in for the Hugging Face Hub on loopback, for tests and tools: the
// revision and tree APIs (with LFS sha256 and pagination), resolve answering with a redirect to
// a second "CDN" handler, Range requests, and faults on demand (a cut connection, a stall, 200
// instead of 206, a wrong byte, 401, 404, a slow link).
package fakehub

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// File is one file of a repository: its bytes come from Data, or from the file at Path on
// disk (for large files).
type File struct {
	Path string // path inside the repository, slash-separated
	Data []byte
	Disk string
	Size int64
	LFS  bool
	// SHA256 is the LFS oid; BlobSHA1 the git blob hash (tree API's oid for small files).
	SHA256, BlobSHA1 string
}

// Repo is a repository at one commit.
type Repo struct {
	Name   string // ORG/NAME
	Commit string
	Files  []*File
}

// FaultKind is something the server does wrong.
type FaultKind int

const (
	// Cut closes the connection at offset At of the file (at once when the request starts
	// past it).
	Cut FaultKind = iota + 1
	// Stall stops sending after At bytes and holds the connection open until the client gives up.
	Stall
	// NoRange answers 200 with the whole file to a Range request.
	NoRange
	// WrongByte flips the byte at offset At.
	WrongByte
	// Unauthorized answers 401 to everything about the repository.
	Unauthorized
	// Forbidden answers 403 (a gated repository) to file downloads.
	Forbidden
	// NotFound answers 404 to everything about the repository.
	NotFound
	// Slow sends at most Rate bytes per second.
	Slow
	// ServerError answers 503 to API calls (revision and tree).
	ServerError
)

// Fault is a fault on one file ("" = every file), for Times requests (0 = every request).
type Fault struct {
	Kind  FaultKind
	File  string
	At    int64
	Rate  int64
	Times int
}

// Hub serves repositories. Set Faults and Token before or while serving; counters are safe to
// read at any time.
type Hub struct {
	// PageSize is the number of tree entries per page (default 3, to exercise pagination).
	PageSize int
	// Token, if set, is required as "Authorization: Bearer Token" on the API and resolve.
	Token string
	// CDN is the base URL resolve redirects LFS files to (the CDN handler's server).
	CDN string

	mu     sync.Mutex
	repos  map[string]*Repo
	faults []*Fault
	// BytesSent counts file bytes written to clients by the CDN and resolve handlers.
	BytesSent atomic.Int64
	// Requests counts file requests (resolve and CDN).
	Requests atomic.Int64
	// Ranged counts requests that asked for a Range.
	Ranged atomic.Int64
	stallC chan struct{}
}

// New returns a hub serving repos.
func New(repos ...*Repo) *Hub {
	h := &Hub{PageSize: 3, repos: map[string]*Repo{}, stallC: make(chan struct{})}
	for _, r := range repos {
		h.repos[r.Name] = r
	}
	return h
}

// Close releases stalled connections.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.stallC:
	default:
		close(h.stallC)
	}
}

// AddFault adds a fault.
func (h *Hub) AddFault(f Fault) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.faults = append(h.faults, &f)
}

// ClearFaults removes every fault.
func (h *Hub) ClearFaults() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.faults = nil
}

// fault returns the first matching fault of one of kinds for file, using up one of its times.
func (h *Hub) fault(file string, kinds ...FaultKind) *Fault {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, f := range h.faults {
		if f.File != "" && f.File != file {
			continue
		}
		for _, k := range kinds {
			if f.Kind != k {
				continue
			}
			c := *f
			if f.Times > 0 {
				f.Times--
				if f.Times == 0 {
					h.faults = append(h.faults[:i:i], h.faults[i+1:]...)
				}
			}
			return &c
		}
	}
	return nil
}

// RepoFromDir reads every file under dir into a repository; files ending in .onnx, .onnx_data,
// .data or over 1 MB are LFS files (read from disk when served).
func RepoFromDir(name, commit, dir string) (*Repo, error) {
	r := &Repo{Name: name, Commit: commit}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		f, err := FileFromDisk(filepath.ToSlash(rel), p)
		if err != nil {
			return err
		}
		r.Files = append(r.Files, f)
		return nil
	})
	sort.Slice(r.Files, func(i, j int) bool { return r.Files[i].Path < r.Files[j].Path })
	return r, err
}

// FileFromDisk describes the file at disk as repository path p, hashing it once.
func FileFromDisk(p, disk string) (*File, error) {
	fh, err := os.Open(disk)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	f := &File{Path: p, Disk: disk, Size: st.Size()}
	f.LFS = st.Size() > 1<<20 || strings.HasSuffix(p, ".onnx") || strings.Contains(path.Base(p), ".onnx_data") || strings.HasSuffix(p, ".data")
	s256, s1 := sha256.New(), sha1.New()
	fmt.Fprintf(s1, "blob %d\x00", st.Size())
	if _, err := io.Copy(io.MultiWriter(s256, s1), fh); err != nil {
		return nil, err
	}
	f.SHA256, f.BlobSHA1 = hex.EncodeToString(s256.Sum(nil)), hex.EncodeToString(s1.Sum(nil))
	if !f.LFS {
		f.Data, err = os.ReadFile(disk)
	}
	return f, err
}

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
	parts := strings.Split(rest, "/")
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
	rev := parts[3]
	if rev != "main" && rev != repo.Commit {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		http.Error(w, `{"error":"Invalid rev id"}`, http.StatusNotFound)
		return
	}
	switch parts[2] {
	case "revision":
		_ = json.NewEncoder(w).Encode(map[string]any{"id": repo.Name, "sha": repo.Commit})
	case "tree":
		h.tree(w, r, repo, strings.Join(parts[4:], "/"))
	default:
		http.NotFound(w, r)
	}
}

func (h *Hub) tree(w http.ResponseWriter, r *http.Request, repo *Repo, under string) {
	var all []entry
	dirs := map[string]bool{}
	for _, f := range repo.Files {
		if under != "" && !strings.HasPrefix(f.Path, under+"/") {
			continue
		}
		for d := path.Dir(f.Path); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			all = append(all, entry{Type: "directory", OID: "0000000000000000000000000000000000000000", Path: d})
		}
		e := entry{Type: "file", OID: f.BlobSHA1, Size: f.Size, Path: f.Path}
		if f.LFS {
			e.LFS = &struct {
				OID         string `json:"oid"`
				Size        int64  `json:"size"`
				PointerSize int    `json:"pointerSize"`
			}{f.SHA256, f.Size, 134}
		}
		all = append(all, e)
	}
	start, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
	size := h.PageSize
	if size <= 0 {
		size = 1000
	}
	end := min(start+size, len(all))
	if end < len(all) {
		next := *r.URL
		q := next.Query()
		q.Set("cursor", strconv.Itoa(end))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, next.RequestURI()))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(all[min(start, end):end])
}

func (h *Hub) resolve(w http.ResponseWriter, r *http.Request, name, rest string) {
	repo, ok := h.repo(w, r, name)
	if !ok {
		return
	}
	rev, file, _ := strings.Cut(rest, "/")
	if rev != repo.Commit && rev != "main" {
		http.Error(w, "revision not found", http.StatusNotFound)
		return
	}
	f := repo.file(file)
	if f == nil {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.Error(w, "Entry not found", http.StatusNotFound)
		return
	}
	if h.fault(file, Forbidden) != nil {
		http.Error(w, "Access to model "+name+" is restricted. You must have access to it and be authenticated to access it. Please log in.", http.StatusForbidden)
		return
	}
	w.Header().Set("X-Repo-Commit", repo.Commit)
	if f.LFS && h.CDN != "" {
		w.Header().Set("X-Linked-Etag", `"`+f.SHA256+`"`)
		w.Header().Set("X-Linked-Size", strconv.FormatInt(f.Size, 10))
		http.Redirect(w, r, fmt.Sprintf("%s/repos/%s/%s?sig=fake&file=%s", h.CDN, name, f.SHA256, file), http.StatusFound)
		return
	}
	h.serve(w, r, f)
}

// CDNHandler serves LFS files by their sha256: /repos/{org}/{name}/{sha256}.
func (h *Hub) CDNHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			http.Error(w, "the CDN takes no Authorization header", http.StatusBadRequest)
			return
		}
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/repos/"), "/")
		if len(parts) != 3 {
			http.NotFound(w, r)
			return
		}
		h.mu.Lock()
		repo := h.repos[parts[0]+"/"+parts[1]]
		h.mu.Unlock()
		if repo == nil {
			http.NotFound(w, r)
			return
		}
		for _, f := range repo.Files {
			if f.SHA256 == parts[2] {
				h.serve(w, r, f)
				return
			}
		}
		http.NotFound(w, r)
	})
}

func (repo *Repo) file(p string) *File {
	for _, f := range repo.Files {
		if f.Path == p {
			return f
		}
	}
	return nil
}

// serve writes f (or the asked range) with the faults that apply.
func (h *Hub) serve(w http.ResponseWriter, r *http.Request, f *File) {
	h.Requests.Add(1)
	var start int64
	if rg := r.Header.Get("Range"); rg != "" {
		h.Ranged.Add(1)
		n, err := parseRange(rg)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if n >= f.Size {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", f.Size))
			http.Error(w, "range not satisfiable", http.StatusRequestedRangeNotSatisfiable)
			return
		}
		start = n
	}
	if start > 0 && h.fault(f.Path, NoRange) != nil {
		start = -1 // whole file, status 200
	}
	src, err := f.open()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer src.Close()
	w.Header().Set("ETag", `"`+f.SHA256+`"`)
	w.Header().Set("Accept-Ranges", "bytes")
	w.Header().Set("Content-Type", "application/octet-stream")
	if start > 0 {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, f.Size-1, f.Size))
		w.Header().Set("Content-Length", strconv.FormatInt(f.Size-start, 10))
		w.WriteHeader(http.StatusPartialContent)
	} else {
		start = 0
		w.Header().Set("Content-Length", strconv.FormatInt(f.Size, 10))
		w.WriteHeader(http.StatusOK)
	}
	if r.Method == http.MethodHead {
		return
	}
	h.copy(w, r, io.NewSectionReader(src, start, f.Size-start), start, f.Path)
}

// copy sends body (which starts at offset off of the file) applying cut, stall, wrong-byte and
// slow faults.
func (h *Hub) copy(w http.ResponseWriter, r *http.Request, body io.Reader, off int64, file string) {
	limit := int64(-1)
	var stall bool
	if f := h.fault(file, Cut, Stall); f != nil {
		// At is an offset in the file; a request that starts past it is cut at once.
		limit, stall = max(0, f.At-off), f.Kind == Stall
	}
	wrong := int64(-1)
	if f := h.fault(file, WrongByte); f != nil && f.At >= off {
		wrong = f.At - off
	}
	var rate int64
	if f := h.fault(file, Slow); f != nil {
		rate = f.Rate
	}
	buf := make([]byte, 256<<10)
	if rate > 0 {
		buf = buf[:max(1, min(int64(len(buf)), rate/20))]
	}
	var sent int64
	for {
		chunk := buf
		if limit >= 0 && sent+int64(len(chunk)) > limit {
			chunk = chunk[:limit-sent]
		}
		n, err := body.Read(chunk)
		if wrong >= sent && wrong < sent+int64(n) {
			chunk[wrong-sent] ^= 0xff
		}
		if n > 0 {
			if _, werr := w.Write(chunk[:n]); werr != nil {
				return
			}
			sent += int64(n)
			h.BytesSent.Add(int64(n))
		}
		if rate > 0 {
			time.Sleep(time.Duration(float64(n) / float64(rate) * float64(time.Second)))
		}
		if limit >= 0 && sent >= limit {
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
			if stall {
				select {
				case <-h.stallC:
				case <-r.Context().Done():
				}
			}
			panic(http.ErrAbortHandler) // cut the connection
		}
		if err != nil {
			return
		}
	}
}

type readAtCloser interface {
	io.ReaderAt
	io.Closer
}

type nopCloser struct{ io.ReaderAt }

func (nopCloser) Close() error { return nil }

func (f *File) open() (readAtCloser, error) {
	if f.Data != nil || f.Disk == "" {
		return nopCloser{strings.NewReader(string(f.Data))}, nil
	}
	return os.Open(f.Disk)
}

func parseRange(s string) (int64, error) {
	v, ok := strings.CutPrefix(s, "bytes=")
	if !ok || !strings.HasSuffix(v, "-") {
		return 0, fmt.Errorf("unsupported range %q", s)
	}
	return strconv.ParseInt(strings.TrimSuffix(v, "-"), 10, 64)
}
