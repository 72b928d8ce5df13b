package optimize

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"edgechat/internal/filecopy"
	"edgechat/onnx/proto"
)

// Cached returns the path of the optimized copy of the graph at path, writing it into
// cacheDir/optimized/<key>/ the first time. The key covers the source's path, size and
// modification time and the options, so an edited or replaced file gets a new copy. External
// data files are hard-linked beside the copy (ONNX Runtime reads them relative to the graph
// and refuses paths that resolve outside its folder), or copied when the cache is on another
// volume; the user's files are never modified.
func Cached(path, cacheDir string, o Options) (string, Report, error) {
	return CachedProgress(path, cacheDir, o, nil)
}

// Progress hears how far writing a copy has gone: its step ("reading", "rewriting",
// "writing") and the share of the copy's work done, from 0 to 1, never going back.
type Progress func(step string, done float64)

// The steps Progress hears.
const (
	StepReading   = "reading"
	StepRewriting = "rewriting"
	StepWriting   = "writing"
)

// CachedProgress is Cached telling progress (nil: nothing) how far the copy has gone while
// it writes one; a cached copy reports nothing.
func CachedProgress(path, cacheDir string, o Options, progress Progress) (string, Report, error) {
	if progress == nil {
		progress = func(string, float64) {}
	}
	var rep Report
	out, err := CachedPath(path, cacheDir, o)
	if err != nil {
		return "", rep, err
	}
	if _, err := os.Stat(out); err == nil {
		return out, rep, nil
	}
	dir := filepath.Dir(out)
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", rep, err
	}
	progress(StepReading, 0)
	src, err := os.ReadFile(abs)
	if err != nil {
		return "", rep, err
	}
	progress(StepRewriting, 0.3)
	parts, data, rep, err := rewriteParts(src, o, true)
	if err != nil {
		return "", rep, fmt.Errorf("optimize %s: %w", path, err)
	}
	info, err := proto.Parse(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		return "", rep, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", rep, err
	}
	progress(StepWriting, 0.6)
	for _, x := range info.ExternalFiles {
		if err := link(filepath.Join(filepath.Dir(abs), x), filepath.Join(dir, x)); err != nil {
			return "", rep, fmt.Errorf("link the weights %s beside the optimized copy: %w", x, err)
		}
	}
	if len(data) > 0 {
		if err := writeData(filepath.Join(dir, packedData), filepath.Dir(abs), data); err != nil {
			return "", rep, fmt.Errorf("write the packed weights beside the optimized copy: %w", err)
		}
	}
	err = replaceWith(out, func(w io.Writer) error {
		return writeParts(w, parts, func(done float64) { progress(StepWriting, 0.6+0.4*done) })
	})
	if err != nil {
		return "", rep, err
	}
	progress(StepWriting, 1)
	return out, rep, nil
}

// rewriteVersion is part of the cache key: raising it when a rewrite changes makes new copies
// instead of reusing those an older EdgeChat wrote.
const rewriteVersion = 7

// CachedPath is where Cached keeps the copy of path made with o, whether or not it exists:
// files a caller keeps beside it (e.g. the verdict of a check) share its key.
func CachedPath(path, cacheDir string, o Options) (string, error) {
	_, out, err := copyPath(path, cacheDir, "", fmt.Sprintf("%+v", o))
	return out, err
}

// copyPath is the absolute path of the source graph and where a copy of it made as how says
// lives under cacheDir/optimized/<key>/: the key covers kind, the source (path, size, time),
// how and the rewrites' version, so a changed model or rewrite never reuses an old copy. It
// marks that folder as used (markUsed: copies unused for staleAfter are swept).
func copyPath(path, cacheDir, kind, how string) (abs, out string, err error) {
	if abs, err = filepath.Abs(path); err != nil {
		return "", "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s%s\x00%d\x00%d\x00%s\x00%d", kind, abs, st.Size(), st.ModTime().UnixNano(), how, rewriteVersion)
	dir := filepath.Join(cacheDir, "optimized", hex.EncodeToString(h.Sum(nil))[:16])
	markUsed(dir)
	return abs, filepath.Join(dir, filepath.Base(abs)), nil
}

// link makes to name from: a hard link (no space, and ONNX Runtime accepts it: it refuses a
// symbolic link that resolves outside the graph's folder), else a copy.
func link(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return filecopy.LinkOrCopy(from, to)
}

// writeParts writes parts to w one after the other (the weights straight from the source's
// bytes), telling progress the share written.
func writeParts(w io.Writer, parts [][]byte, progress func(done float64)) error {
	total, written := 0, 0
	for _, p := range parts {
		total += len(p)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	for _, p := range parts {
		if _, err := bw.Write(p); err != nil {
			return err
		}
		written += len(p)
		if len(p) >= 1<<20 {
			progress(float64(written) / float64(max(total, 1)))
		}
	}
	return bw.Flush()
}

// replaceWith writes path through a temporary file beside it: what fill writes, renamed
// over path once all of it is written and closed; after an error the temporary file goes.
func replaceWith(path string, fill func(w io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".partial-*")
	if err != nil {
		return err
	}
	err = fill(tmp)
	if err = errors.Join(err, tmp.Close()); err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// writeData writes the sections to path (see replaceWith), reading those of the source's
// external data files from srcDir one at a time.
func writeData(path, srcDir string, data []section) error {
	files := map[string]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	return replaceWith(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		for _, s := range data {
			if s.loc == "" || s.b != nil {
				if _, err := bw.Write(s.b); err != nil {
					return err
				}
				continue
			}
			f, ok := files[s.loc]
			if !ok {
				if !filepath.IsLocal(s.loc) {
					return fmt.Errorf("external data %q outside the graph's folder", s.loc)
				}
				var err error
				if f, err = os.Open(filepath.Join(srcDir, s.loc)); err != nil {
					return err
				}
				files[s.loc] = f
			}
			var n int64
			var err error
			if s.per > 0 { // reordered (layout 1): the tensor's bytes in memory, one at a time
				b := make([]byte, s.n)
				var k int
				if k, err = f.ReadAt(b, s.off); k == len(b) {
					err = nil
				}
				if err == nil {
					var w int
					w, err = bw.Write(cols16(b, len(b)/(4*s.nb*s.per), s.nb, s.per))
					n = int64(w)
				}
			} else {
				n, err = io.Copy(bw, io.NewSectionReader(f, s.off, s.n))
			}
			if err == nil && n != s.n {
				err = fmt.Errorf("%s: %d bytes at %d, not %d", s.loc, n, s.off, s.n)
			}
			if err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}
