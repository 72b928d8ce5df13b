package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// errStalled cancels a request that received no bytes for the stall timeout.
var errStalled = errors.New("the download stalled")

// fetcher downloads files of one repository at one commit into its folder.
type fetcher struct {
	c            *Client
	d            *repoDir
	repo, commit string
	opt          *Options
	count        func(delta int64) // bytes added (or, negative, discarded) to the total
	// retrying is told a try failed and when the next starts; retried that it starts (both
	// may be nil).
	retrying func(wait time.Duration, err error)
	retried  func()
}

// Bounds on a file that keeps failing. A try counts as progress (and the count of failed
// tries in a row, Options.Retries, starts again) only when it took the file a step further
// than ever: a MiB, or a sixteenth of a small file. A body that ends cleanly before the size
// the file list declares (the server says the file is shorter) is tried maxShortEnds times.
const (
	progressStep = 1 << 20
	maxShortEnds = 2
)

// errShort is a body that ended cleanly before the file's size.
var errShort = errors.New("the file ended early")

// fetch downloads e to done through part (names in the repository's folder), resuming part if
// it holds a prefix, and renames it into place only when its hash matches. It retries network
// trouble with back-off and a file whose hash is wrong once from scratch.
func (f *fetcher) fetch(ctx context.Context, e Entry, part, done string) error {
	if err := f.d.mkdirFor(part); err != nil {
		return f.diskError(part, err)
	}
	step := min(progressStep, max(1, e.Size/16))
	var mark int64 // the bytes of the file when the failed tries were last counted from zero
	fails, badHashes, shorts := 0, 0, 0
	for {
		have, err := f.attempt(ctx, e, part)
		switch {
		case errors.Is(err, ErrVerify):
			f.discard(part)
			if badHashes++; badHashes < 2 {
				continue
			}
			return fmt.Errorf("%w — it came damaged twice and was deleted both times: try again later or from another network", err)
		case err == nil:
			if err := f.d.mkdirFor(done); err != nil {
				return f.diskError(done, err)
			}
			if err := f.d.root.Rename(part, done); err != nil {
				return f.diskError(done, err)
			}
			return nil
		case ctx.Err() != nil:
			return context.Cause(ctx)
		case errors.Is(err, errShort):
			if shorts++; shorts >= maxShortEnds {
				return f.c.badServer("ended %s at %s %d times, but its file list says it has %s", e.Path, Bytes(have), shorts, Bytes(e.Size))
			}
		case !retryable(err):
			return err
		}
		if have >= mark+step {
			mark, fails = have, 0 // a step further: not a dead end
		}
		if fails++; fails > f.opt.Retries {
			if !errors.Is(err, ErrNetwork) {
				err = fmt.Errorf("%w: %w", ErrNetwork, err)
			}
			return fmt.Errorf("%s: the connection to %s kept failing (%d tries): check your network and proxy, then download again — it continues where it stopped: %w", e.Path, f.c.Endpoint, fails, err)
		}
		wait := min(f.opt.Backoff<<(fails-1), 30*time.Second)
		if f.retrying != nil {
			f.retrying(wait, err)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		if f.retried != nil {
			f.retried()
		}
	}
}

// attempt makes one request for the rest of part and returns the bytes part holds after it;
// a nil error means the file has all its bytes.
func (f *fetcher) attempt(ctx context.Context, e Entry, part string) (have int64, err error) {
	fh, err := f.d.root.OpenFile(part, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return 0, f.diskError(part, err)
	}
	defer fh.Close()
	h := newHash(e)
	// What an earlier attempt (or process) left is hashed again: the hash state is not saved.
	have, err = io.CopyBuffer(h, io.LimitReader(fh, e.Size+1), make([]byte, 1<<20))
	if err != nil {
		return have, f.diskError(part, err)
	}
	if have > e.Size {
		f.restart(fh, e, &h, &have)
	}
	if have == e.Size {
		return have, check(e, h, have)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(f.opt.Stall, func() { cancel(errStalled) })
	defer watchdog.Stop()

	u := fmt.Sprintf("%s/%s/resolve/%s/%s", f.c.Endpoint, f.repo, f.commit, escapePath(e.Path))
	req, err := f.c.newRequest(rctx, http.MethodGet, u)
	if err != nil {
		return have, err
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := f.c.HTTP.Do(req)
	if err != nil {
		if c := context.Cause(rctx); c == errStalled {
			return have, fmt.Errorf("%s: no answer for %s: %w", e.Path, f.opt.Stall, errStalled)
		}
		return have, netError(f.c.Endpoint, err)
	}
	defer resp.Body.Close()
	start, total, hasRange := contentRange(resp.Header.Get("Content-Range"))
	if hasRange && total >= 0 && total != e.Size {
		return have, f.sizeError(e, total)
	}
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		if !hasRange || start != have {
			f.restart(fh, e, &h, &have) // not the part we asked for: fetch the whole file again
			return have, fmt.Errorf("%s: the server sent another range (%s): %w", e.Path, resp.Header.Get("Content-Range"), ErrNetwork)
		}
	case resp.StatusCode == http.StatusOK:
		if have > 0 {
			f.restart(fh, e, &h, &have) // the server ignored Range: start the file again
		}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		f.restart(fh, e, &h, &have)
		return have, fmt.Errorf("%s: the server refused to resume: %w", e.Path, ErrNetwork)
	default:
		if err := f.c.statusError(f.repo, resp); err != nil {
			return have, err
		}
		return have, fmt.Errorf("%s: the server answered HTTP %d to a download: %w", e.Path, resp.StatusCode, ErrNetwork)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != e.Size-have {
		return have, f.sizeError(e, have+resp.ContentLength)
	}
	err = f.copy(fh, h, resp.Body, watchdog, e.Size-have, &have)
	if err == nil && have != e.Size {
		err = fmt.Errorf("%s: the server ended the file at %s of %s: %w", e.Path, Bytes(have), Bytes(e.Size), errShort)
	}
	if err != nil {
		if c := context.Cause(rctx); c == errStalled {
			err = fmt.Errorf("%s: no data for %s at %s: %w", e.Path, f.opt.Stall, Bytes(have), errStalled)
		} else if ctx.Err() == nil && !errors.Is(err, ErrDiskFull) && !errors.Is(err, errShort) && !retryable(err) {
			err = fmt.Errorf("%s: %w", e.Path, netError(f.c.Endpoint, err))
		}
		return have, err
	}
	return have, check(e, h, have)
}

// sizeError: the server sends a file of another size than its file list declares.
func (f *fetcher) sizeError(e Entry, size int64) error {
	return f.c.badServer("sends %s as %s, but its file list says it has %s", Bytes(size), e.Path, Bytes(e.Size))
}

// copy streams up to n bytes of body into fh and h, feeding the stall watchdog and the
// progress. Reading the network and writing+hashing overlap (a second goroutine, a few fixed
// buffers): memory stays flat whatever the file's size.
func (f *fetcher) copy(fh *os.File, h hash.Hash, body io.Reader, watchdog *time.Timer, n int64, have *int64) error {
	const nbuf, size = 4, 1 << 20
	free := make(chan []byte, nbuf)
	for range nbuf {
		free <- make([]byte, size)
	}
	// Three stages over the same buffers: read (this goroutine) → write → hash, so that on a
	// machine with cores to spare hashing costs no time.
	full, written := make(chan []byte, nbuf), make(chan []byte, nbuf)
	werr, hdone := make(chan error, 1), make(chan struct{})
	failed := make(chan struct{}) // closed when writing failed: stop reading
	go func() {
		defer close(written)
		var err error
		for b := range full {
			if err == nil {
				if err = writeChunked(fh, b); err != nil {
					err = f.diskError(fh.Name(), err)
					close(failed)
				}
			}
			if err == nil {
				written <- b
			} else {
				free <- b[:cap(b)]
			}
		}
		werr <- err
	}()
	go func() {
		defer close(hdone)
		for b := range written {
			h.Write(b)
			*have += int64(len(b))
			f.count(int64(len(b)))
			free <- b[:cap(b)]
		}
	}()
	var done int64
	var rerr error
	for done < n && rerr == nil {
		var buf []byte
		select {
		case buf = <-free:
		case <-failed:
			rerr = errWriteFailed
			continue
		}
		var k int
		// Fill the buffer (fewer, larger writes) but pass on what arrived when the body pauses.
		for k < len(buf) && done+int64(k) < n {
			m, err := body.Read(buf[k:min(int64(len(buf)), n-done)])
			k += m
			if m > 0 {
				watchdog.Reset(f.opt.Stall)
			}
			if err != nil {
				if err != io.EOF {
					rerr = err
				} else {
					rerr = io.EOF
				}
				break
			}
			if k >= 64<<10 {
				break
			}
		}
		done += int64(k)
		if k > 0 {
			full <- buf[:k]
		} else {
			free <- buf
		}
	}
	close(full)
	<-hdone
	if err := <-werr; err != nil {
		return err
	}
	if rerr == io.EOF || rerr == errWriteFailed {
		return nil // a write error was returned above
	}
	return rerr
}

// writeChunk is the largest write copy makes: on Linux (ext4) writes above 64 KiB into the
// page cache took several times the CPU and time of 64 KiB ones here (dd: 1.6–4 s against
// 0.4–0.6 s for 512 MiB).
const writeChunk = 64 << 10

func writeChunked(fh *os.File, b []byte) error {
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		if _, err := fh.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// errWriteFailed stops copy's reading when its writer failed.
var errWriteFailed = errors.New("write failed")

func newHash(e Entry) hash.Hash {
	if e.SHA256() != "" {
		return sha256.New()
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", e.Size)
	return h
}

// check compares the hash of a complete file with the one the Hub lists.
func check(e Entry, h hash.Hash, n int64) error {
	want := e.SHA256()
	if want == "" {
		want = e.OID
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != e.Size || !strings.EqualFold(got, want) {
		return fmt.Errorf("%s arrived damaged (%s, hash %s; the Hub lists %s, %s): %w", e.Path, Bytes(n), short(got), short(want), Bytes(e.Size), ErrVerify)
	}
	return nil
}

// restart empties the part file: what it held is discarded from the progress.
func (f *fetcher) restart(fh *os.File, e Entry, h *hash.Hash, have *int64) {
	*h = newHash(e)
	_ = fh.Truncate(0)
	_, _ = fh.Seek(0, io.SeekStart)
	f.count(-*have)
	*have = 0
}

// discard deletes a part file whose bytes were wrong.
func (f *fetcher) discard(part string) {
	if st, err := f.d.root.Lstat(part); err == nil {
		f.count(-st.Size())
	}
	_ = f.d.root.Remove(part)
}

func short(h string) string { return h[:min(12, len(h))] }

// diskError explains a failed file operation on name (in the repository's folder); a full
// disk gets ErrDiskFull.
func (f *fetcher) diskError(name string, err error) error {
	p := filepath.Join(f.d.path, name)
	if errors.Is(err, syscall.ENOSPC) || isDiskFull(err) {
		free, _ := f.opt.FreeSpace(filepath.Dir(p))
		return fmt.Errorf("the disk is full while writing %s (%s free): free some space or choose another models folder, then download again — what arrived is kept: %w", p, Bytes(free), ErrDiskFull)
	}
	return fmt.Errorf("cannot write %s: %w — check that the models folder is writable", p, err)
}

// contentRange parses "bytes START-END/SIZE" (SIZE -1 for "*") and "bytes */SIZE" (START -1).
func contentRange(h string) (start, size int64, ok bool) {
	v, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, 0, false
	}
	r, total, ok := strings.Cut(v, "/")
	if !ok {
		return 0, 0, false
	}
	size = -1
	if total != "*" {
		if size, ok = parseSize(total); !ok {
			return 0, 0, false
		}
	}
	if r == "*" {
		return -1, size, true
	}
	s, _, ok := strings.Cut(r, "-")
	if !ok {
		return 0, 0, false
	}
	start, ok = parseSize(s)
	return start, size, ok
}

func parseSize(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 0
}

// escapePath escapes each segment of a repository path for a URL.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
