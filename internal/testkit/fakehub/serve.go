package fakehub

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

func (h *Hub) resolve(w http.ResponseWriter, r *http.Request, name, rest string) {
	repo, ok := h.repo(w, r, name)
	if !ok {
		return
	}
	_, file, ok := repo.rev(rest)
	if !ok {
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
	chunked := h.fault(f.Path, Chunked) != nil
	status := http.StatusOK
	if start > 0 {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, f.Size-1, f.Size))
		status = http.StatusPartialContent
	}
	start = max(start, 0)
	if !chunked {
		w.Header().Set("Content-Length", strconv.FormatInt(f.Size-start, 10))
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if fl, ok := w.(http.Flusher); ok && chunked {
		fl.Flush() // the header goes now, without a length: the body is chunked
	}
	h.copy(w, r, io.NewSectionReader(src, start, f.Size-start), start, f.Path, chunked)
}

// copy sends body (which starts at offset off of the file) applying cut, stall, wrong-byte and
// slow faults; a chunked body is cut cleanly.
func (h *Hub) copy(w http.ResponseWriter, r *http.Request, body io.Reader, off int64, file string, chunked bool) {
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
			if chunked && !stall {
				return // the last chunk: the body ends cleanly
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
