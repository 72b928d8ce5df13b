package atomicfile

import (
	"encoding/gob"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
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
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 { // Windows: the profile's ACLs
		t.Fatalf("mode %v: the file may hold API keys and must be private", st.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

// TestWriteWhileOpen replaces a file that another handle holds open (as a reader, a virus
// scanner or a sync client would). POSIX renames replace it at once; Windows refuses while
// the handle lives, so Write must wait for it to close rather than fail or lose the data.
func TestWriteWhileOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Jürgen's Ünïcode folder")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "conversation one.json")
	if err := Write(p, []byte("one"), nil); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		held.Close()
		close(closed)
	}()
	if err := Write(p, []byte("two"), nil); err != nil {
		t.Fatalf("replace while another handle was open for 300 ms: %v", err)
	}
	<-closed
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Fatalf("file holds %q, want two", b)
	}
}

// TestWriteLongPath writes below a folder whose path is longer than Windows' old 260
// character limit.
func TestWriteLongPath(t *testing.T) {
	dir := t.TempDir()
	for len(dir) < 300 {
		dir = filepath.Join(dir, "a folder with a long name ü")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "settings.yaml")
	for _, s := range []string{"one", "two"} {
		if err := Write(p, []byte(s), nil); err != nil {
			t.Fatalf("write %d-character path: %v", len(p), err)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Fatalf("file holds %q, want two", b)
	}
}

func TestWriteGob(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "v.gob")
	type rec struct{ N int }
	if err := WriteGob(path, rec{7}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got rec
	if err := gob.NewDecoder(f).Decode(&got); err != nil || got.N != 7 {
		t.Errorf("read back %+v, %v", got, err)
	}
	if err := WriteGob(path, func() {}); err == nil {
		t.Error("a value gob cannot encode was written")
	}
}
