package hub

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDiskFullWhileWriting fills a 6 MB tmpfs: the space check refuses first; with the check
// fooled, the kernel's ENOSPC mid-file gives ErrDiskFull and no model folder.
func TestDiskFullWhileWriting(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=6m"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v): TestDiskFullBeforeDownload covers the check", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
	s := serve(t)
	_, err := NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: dir}, fastOptions())
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("space check: err = %v, want ErrDiskFull", err)
	}
	opt := fastOptions()
	opt.FreeSpace = func(string) (int64, error) { return 1 << 40, nil }
	_, err = NewClient("").Pull(context.Background(), Request{Ref: testRepo, ModelsDir: dir}, opt)
	if !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("writing: err = %v, want ErrDiskFull", err)
	}
	t.Logf("message: %v; the server sent %d bytes", err, s.BytesSent.Load())
	if _, err := os.Stat(filepath.Join(dir, "test-org--Tiny-ONNX", testCommit)); err == nil {
		t.Error("a model folder appeared on a full disk")
	}
}
