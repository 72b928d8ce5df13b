package residency

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// clean remembers the mappings already checked for written pages, so that a periodic release
// reads only /proc/self/maps (tens of microseconds) and not smaps (milliseconds: it walks the
// page tables). ONNX Runtime never writes to an initializer after the session is created, so a
// mapping found clean stays clean. Guarded by lifecycle's write lock.
var clean = map[mapping]bool{}

// mapsBuf holds the last read of /proc/self/maps, reused so that a periodic release makes
// next to no garbage. Guarded by lifecycle's write lock, like clean.
var mapsBuf []byte

func release(dir string) (Stats, error) {
	prefix := dirPrefix(dir)
	b, under, err := mappingsUnder(prefix, mapsBuf)
	if err != nil {
		return Stats{}, err
	}
	mapsBuf = b
	var fresh []mapping // first seen now: just loaded
	for _, m := range under {
		if _, seen := clean[m]; !seen {
			fresh = append(fresh, m)
		}
	}
	if len(fresh) > 0 {
		if err := checkClean(under); err != nil {
			return Stats{}, err
		}
	}
	st := Stats{Mappings: len(under)}
	for _, m := range under {
		if !clean[m] {
			st.Skipped++ // MADV_DONTNEED would throw the written pages away
			continue
		}
		if e := madvise(m, syscall.MADV_DONTNEED); e != 0 {
			return st, fmt.Errorf("release %s: %w", m.path, e)
		}
		st.Bytes += int64(m.end - m.start)
		if slices.Contains(fresh, m) {
			smallPages(m)
		}
	}
	forgetUnmapped(prefix, under)
	return st, nil
}

// smallPages makes later lookups in a just-released mapping bring back a page each. Loading
// read the file sequentially, so the page cache holds it in large folios (up to 2 MB), and a
// fault maps a whole folio: an embedding lookup of one 4 KB row would bring back 2 MB. Dropping
// the mapped range from the page cache (no process maps it any more) and advising random
// access (no read-ahead) makes each first lookup of a row read its page alone, and each later
// one find it cached. Both are advice: where the kernel declines, pages just come back larger.
func smallPages(m mapping) {
	_ = madvise(m, syscall.MADV_RANDOM)
	f, err := os.Open(m.path)
	if err != nil {
		return
	}
	defer f.Close()
	_ = unix.Fadvise(int(f.Fd()), int64(m.offset), int64(m.end-m.start), unix.FADV_DONTNEED)
}

// dirPrefix is dir as a prefix of the paths of files under it.
func dirPrefix(dir string) string { return strings.TrimSuffix(dir, "/") + "/" }

// mappingsUnder reads /proc/self/maps into buf (returned, grown as needed) and returns the
// mappings of files under prefix. Only lines naming such a file are parsed: a process has
// hundreds of mappings.
func mappingsUnder(prefix string, buf []byte) ([]byte, []mapping, error) {
	b, err := readMaps(buf[:0])
	if err != nil {
		return buf, nil, fmt.Errorf("read the process memory map: %w", err)
	}
	var under []mapping
	for line := range bytes.Lines(b) {
		if !bytes.Contains(line, []byte(prefix)) {
			continue
		}
		m, err := parseHeader(string(bytes.TrimSuffix(line, []byte("\n"))))
		if err != nil {
			return b, nil, err
		}
		if strings.HasPrefix(m.path, prefix) {
			under = append(under, m)
		}
	}
	return b, under, nil
}

// madvise gives the kernel advice about the whole of m.
func madvise(m mapping, advice int) syscall.Errno {
	_, _, e := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, uintptr(advice))
	return e
}

// readMaps reads /proc/self/maps into buf (grown as needed).
func readMaps(buf []byte) ([]byte, error) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func resident(dir string) (int64, error) {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("read the process memory map: %w", err)
	}
	ms, err := parseSmaps(b)
	if err != nil {
		return 0, err
	}
	prefix := dirPrefix(dir)
	var n int64
	for _, m := range ms {
		if strings.HasPrefix(m.path, prefix) {
			n += m.rss
		}
	}
	return n, nil
}

// checkClean reads smaps and records, for each mapping in ms, whether the process has written
// to any of its pages. Only such copy-on-write ("Anonymous") pages matter: dirty page-cache
// pages (a file written a moment ago) stay in the page cache, and MADV_DONTNEED on a file
// mapping only unmaps them.
func checkClean(ms []mapping) error {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return fmt.Errorf("read the process memory map: %w", err)
	}
	sizes, err := parseSmaps(b)
	if err != nil {
		return err
	}
	want := map[mapping]bool{}
	for _, m := range ms {
		want[m] = true
	}
	for _, s := range sizes {
		if want[s.mapping] {
			clean[s.mapping] = s.anon == 0
		}
	}
	return nil
}

// forgetUnmapped drops the remembered mappings under prefix that no longer exist.
func forgetUnmapped(prefix string, live []mapping) {
	for m := range clean {
		if strings.HasPrefix(m.path, prefix) && !slices.Contains(live, m) {
			delete(clean, m)
		}
	}
}
