package optimize

import (
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Copies nobody loads any more.
//
// A copy's key covers the rewrites' options, so a release that changes them (or a model file
// replaced) leaves the old copies behind: the graph (a few MB beside hard-linked weights), but
// the whole weights when the cache is on another volume than the model, and an 8-bit prompt
// twin (~440 MB for Qwen3-0.6B) inside. Every lookup marks its copy's folder as used, and the
// first lookup of a process removes the copies no lookup has marked for staleAfter.

// staleAfter is how long a copy stays after its last use.
const staleAfter = 30 * 24 * time.Hour

// swept holds the cache folders this process has swept.
var swept sync.Map

// markUsed sets dir's modification time to now when it exists (a copy made before is being
// looked up), then sweeps dir's parent once a process.
func markUsed(dir string) {
	now := time.Now()
	_ = os.Chtimes(dir, now, now) // a missing folder: the copy is about to be written
	root := filepath.Dir(dir)
	if _, done := swept.LoadOrStore(root, true); !done {
		sweepStale(root, now.Add(-staleAfter))
	}
}

// sweepStale removes the folders under root last used before cutoff. It is best effort: a
// folder it cannot read or remove (open elsewhere on Windows) stays for a later sweep.
func sweepStale(root string, cutoff time.Time) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(root, e.Name()))
	}
}
