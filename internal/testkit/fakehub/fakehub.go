// Package fakehub is a stand-in for the Hugging Face Hub on loopback, for tests and tools: the
// revision and tree APIs (with LFS sha256 and pagination), resolve answering with a redirect to
// a second "CDN" handler, Range requests, and faults on demand (a cut connection, a stall, 200
// instead of 206, a wrong byte, 401, 404, a slow link). It can also be told to lie as a hostile
// mirror would: another commit id than its own (Repo.RevisionSHA), paths that leave the folder
// (File.Path as given), sizes its files do not have (File.Listed), bodies without a length
// (Chunked) and a file list that never ends (Hub.EndlessTree).
package fakehub

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
	// Listed, when set, is what the tree API says of the file instead of the truth; the file is
	// still served as it is.
	Listed *Listed
}

// Listed is what the tree API says of a file's size: Size, and LFSSize in its lfs object.
type Listed struct {
	Size, LFSSize int64
}

// Repo is a repository at one commit.
type Repo struct {
	Name   string // ORG/NAME
	Commit string
	Files  []*File
	// RevisionSHA, when set, is what the revision API answers as the commit instead of Commit
	// (a hostile or broken mirror); files are still served at Commit.
	RevisionSHA string
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
	// Chunked sends the file without a Content-Length (chunked), and ends a Cut cleanly: the
	// server says the file ends there.
	Chunked
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
	// EndlessTree makes the tree API's pages never end: after the repository's own entries,
	// each page holds PageSize made-up small files and a Link to the next.
	EndlessTree bool
	// TreeNext, when set, is the Link every page of the tree API gives as the next page.
	TreeNext string

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
	f.SHA256, f.BlobSHA1, err = hashes(fh, st.Size())
	if err == nil && !f.LFS {
		f.Data, err = os.ReadFile(disk)
	}
	return f, err
}

// NewFile is a small (not LFS) file of the repository holding data.
func NewFile(p string, data []byte) *File {
	f := &File{Path: p, Data: data}
	f.hash()
	return f
}

// hash sets Size and the hashes of a file held in Data.
func (f *File) hash() {
	f.Size = int64(len(f.Data))
	f.SHA256, f.BlobSHA1, _ = hashes(bytes.NewReader(f.Data), f.Size)
}

// hashes are the sha256 and the git blob sha1 of the size bytes of r.
func hashes(r io.Reader, size int64) (sha256hex, blobSHA1 string, err error) {
	s256, s1 := sha256.New(), sha1.New()
	fmt.Fprintf(s1, "blob %d\x00", size)
	if _, err := io.Copy(io.MultiWriter(s256, s1), r); err != nil {
		return "", "", err
	}
	return hex.EncodeToString(s256.Sum(nil)), hex.EncodeToString(s1.Sum(nil)), nil
}
