// Package residency gives back the memory pages a process holds for views of weight files,
// such as the ONNX external-data files ONNX Runtime maps into memory.
//
// A tied-embedding decoder (Qwen3 among them) uses its embedding table twice: as the Gather
// that looks up input tokens and as the lm_head GEMM. ONNX Runtime pre-packs the GEMM's copy
// into a buffer of its own at load, reading every page of the mapped table on the way;
// afterwards only the Gather reads the mapping, one row per token. Releasing the mapping's
// resident pages once the session exists, and again every few dozen tokens (the kernel maps a
// looked-up row's whole folio, up to 2 MB, back in), keeps the table's hundreds of megabytes
// out of the working set. Released pages stay in the page cache and come back on demand, so
// nothing is lost and nothing is read from disk again.
//
// Releasing a range that was unmapped and mapped again as other memory would corrupt it, so
// code that creates or destroys sessions over mapped files runs them inside Hold, and Release
// never runs during a Hold: it is put off until the last Hold ends.
package residency

import (
	"path/filepath"
	"sync"
)

// Stats says what a release found and gave back.
type Stats struct {
	Mappings int   // file mappings under the folder
	Bytes    int64 // size of the mappings released
	Skipped  int   // mappings left alone because the process wrote to them (copy-on-write)
	Deferred bool  // a session was being created or destroyed: the release waits for it
}

var (
	lifecycle sync.RWMutex // Holds read-lock it; a release write-locks it, never waiting
	pendingMu sync.Mutex
	pending   = map[string]bool{}
)

// Hold runs f, which creates or destroys ONNX Runtime sessions and so maps or unmaps weight
// files, with no release running meanwhile. Any number of Holds run at once. Releases put off
// during them run when the last one ends.
func Hold(f func()) {
	lifecycle.RLock()
	defer func() {
		lifecycle.RUnlock()
		runPending()
	}()
	f()
}

// Loading runs f, which creates a session over model files in dir, inside Hold, while paging
// out the large mappings of files under dir every few milliseconds (Linux). Pre-packing reads
// a tied embedding table once from start to end while it writes the packed copy; without this
// the whole table would stay resident beside that copy until the release after loading.
// Paging out (MADV_PAGEOUT) never discards data, so unlike Release it needs no lock against
// mappings changing under it.
func Loading(dir string, f func()) {
	Hold(func() { pageOutWhile(dir, f) })
}

// Release gives back the resident pages of every clean file mapping of a file under dir. It
// never waits for a Hold: it reports Deferred and runs when the Holds end. Where the platform
// offers no way to do it, Release does nothing.
func Release(dir string) (Stats, error) {
	abs, err := canonical(dir)
	if err != nil {
		return Stats{}, err
	}
	if !lifecycle.TryLock() {
		pendingMu.Lock()
		pending[abs] = true
		pendingMu.Unlock()
		return Stats{Deferred: true}, nil
	}
	defer lifecycle.Unlock()
	pendingMu.Lock()
	delete(pending, abs)
	pendingMu.Unlock()
	return release(abs)
}

// Resident is the memory the process holds now in mappings of files under dir (Linux only;
// zero elsewhere). It reads the page tables of every mapping: a diagnostic, not for hot paths.
func Resident(dir string) (int64, error) {
	abs, err := canonical(dir)
	if err != nil {
		return 0, err
	}
	return resident(abs)
}

// runPending releases the folders put off while sessions were changing, if none is changing
// now.
func runPending() {
	pendingMu.Lock()
	if len(pending) == 0 {
		pendingMu.Unlock()
		return
	}
	dirs := pending
	pending = map[string]bool{}
	pendingMu.Unlock()
	if !lifecycle.TryLock() {
		pendingMu.Lock()
		for d := range dirs {
			pending[d] = true // another Hold is still running: the last one out does it
		}
		pendingMu.Unlock()
		return
	}
	defer lifecycle.Unlock()
	for d := range dirs {
		_, _ = release(d) // best effort: a failure here only leaves pages resident
	}
}

func canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}
