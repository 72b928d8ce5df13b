package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesOrKeepsOld(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.json")
	if err := Write(p, []byte("one"), nil); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	if err := Write(p, []byte("two"), func(string) error { return crash }); !errors.Is(err, crash) {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("after an interrupted write the file holds %q, want the old version", b)
	}
	if err := Write(p, []byte("two"), nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Fatalf("file holds %q", b)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm()&0o077 != 0 {
		t.Fatalf("mode %v: the file may hold API keys and must be private", st.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}
