package optimize

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSweepStale: the first lookup of a process keeps its own copy (however old) and the
// copies used within staleAfter, and removes the others; later lookups do not sweep again.
func TestSweepStale(t *testing.T) {
	root := filepath.Join(t.TempDir(), "optimized")
	now := time.Now()
	ages := map[string]time.Duration{
		"looked-up":  40 * 24 * time.Hour, // the copy being loaded: marked, kept
		"stale":      31 * 24 * time.Hour, // removed
		"recent":     29 * 24 * time.Hour, // kept
		"fresh":      0,                   // kept
		"stale-file": 40 * 24 * time.Hour, // not a copy's folder: kept
	}
	for name, age := range ages {
		p := filepath.Join(root, name)
		var err error
		if name == "stale-file" {
			err = os.MkdirAll(root, 0o755)
			if err == nil {
				err = os.WriteFile(p, []byte("x"), 0o644)
			}
		} else {
			err = os.MkdirAll(filepath.Join(p, "rowint8prompt"), 0o755)
		}
		if err == nil {
			err = os.Chtimes(p, now.Add(-age), now.Add(-age))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	markUsed(filepath.Join(root, "looked-up"))
	for name, kept := range map[string]bool{"looked-up": true, "stale": false, "recent": true, "fresh": true, "stale-file": true} {
		if _, err := os.Stat(filepath.Join(root, name)); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", name, err == nil, kept)
		}
	}
	if st, err := os.Stat(filepath.Join(root, "looked-up")); err != nil || time.Since(st.ModTime()) > time.Hour {
		t.Errorf("the looked-up copy is not marked as used now: %v", err)
	}

	// Once a process: a copy gone stale since is left to the next process's sweep.
	late := filepath.Join(root, "late")
	if err := os.Mkdir(late, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(late, now.Add(-60*24*time.Hour), now.Add(-60*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	markUsed(filepath.Join(root, "recent"))
	if _, err := os.Stat(late); err != nil {
		t.Errorf("a second lookup swept again: %v", err)
	}

	// A copy not yet written: nothing to mark, and no error.
	markUsed(filepath.Join(root, "not-yet"))
}
