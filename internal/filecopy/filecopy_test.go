package filecopy

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCopyAndLink(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a")
	if err := os.WriteFile(src, []byte("weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(string, string) error{"copy": Copy, "link": LinkOrCopy} {
		dst := filepath.Join(dir, name)
		if err := f(src, dst); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(dst); err != nil || string(b) != "weights" {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	if err := Copy(filepath.Join(dir, "missing"), filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("copying a missing file: %v", err)
	}
	if err := Copy(src, filepath.Join(dir, "no", "such", "dir")); err == nil {
		t.Error("copying into a missing folder succeeded")
	}
}
