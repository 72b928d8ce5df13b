package residency

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

const fileSize = 8 << 20

// mapFile writes a patterned file under dir and maps it the way ONNX Runtime maps external
// data (private, readable and writable), touching every page.
func mapFile(t *testing.T, dir, name string) (data []byte, want []byte) {
	t.Helper()
	want = bytes.Repeat([]byte("edgechat"), fileSize/8)
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Written and synced: clean pages in the page cache, as a model file's are.
	if _, err := f.Write(want); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, fileSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(data) })
	if !bytes.Equal(data, want) { // reads every page
		t.Fatal("mapped data differs from the file")
	}
	return data, want
}

// residentFile is the Rss of the mappings of path, in bytes.
func residentFile(t *testing.T, path string) int64 {
	t.Helper()
	n, err := resident(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func tempDir(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestReleaseDropsCleanPagesAndKeepsData(t *testing.T) {
	dir := tempDir(t)
	data, want := mapFile(t, dir, "model.onnx_data")
	path := filepath.Join(dir, "model.onnx_data")
	if r := residentFile(t, path); r < fileSize/2 {
		t.Fatalf("only %d KB resident after reading the mapping", r>>10)
	}
	st, err := Release(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mappings != 1 || st.Skipped != 0 || st.Bytes != fileSize || st.Deferred {
		t.Fatalf("stats %+v", st)
	}
	if r := residentFile(t, path); r != 0 {
		t.Errorf("%d KB still resident after Release", r>>10)
	}
	if !bytes.Equal(data, want) { // pages come back from the page cache
		t.Fatal("data changed after Release")
	}
	// A second release finds the mapping remembered as clean and releases it again.
	if st, err := Release(dir); err != nil || st.Bytes != fileSize {
		t.Fatalf("second release: %+v, %v", st, err)
	}
	if r := residentFile(t, path); r != 0 {
		t.Errorf("%d KB resident after the second Release", r>>10)
	}
	// Mappings elsewhere are left alone.
	other := tempDir(t)
	odata, _ := mapFile(t, other, "x")
	if _, err := Release(dir); err != nil {
		t.Fatal(err)
	}
	if r := residentFile(t, filepath.Join(other, "x")); r < fileSize/2 {
		t.Errorf("a mapping outside the folder lost its pages (%d KB resident)", r>>10)
	}
	_ = odata
}

func TestReleaseSkipsWrittenMappings(t *testing.T) {
	dir := tempDir(t)
	data, _ := mapFile(t, dir, "weights")
	copy(data[4096:], "written by the process") // a copy-on-write page
	st, err := Release(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mappings != 1 || st.Skipped != 1 || st.Bytes != 0 {
		t.Fatalf("stats %+v", st)
	}
	if string(data[4096:4096+22]) != "written by the process" {
		t.Fatal("Release threw away a page the process wrote")
	}
}

func TestReleaseWaitsForHold(t *testing.T) {
	dir := tempDir(t)
	mapFile(t, dir, "model.onnx.data")
	path := filepath.Join(dir, "model.onnx.data")
	Hold(func() {
		st, err := Release(dir)
		if err != nil || !st.Deferred {
			t.Errorf("Release during Hold = %+v, %v; want deferred", st, err)
		}
		if r := residentFile(t, path); r < fileSize/2 {
			t.Errorf("pages released during a Hold (%d KB resident)", r>>10)
		}
	})
	if r := residentFile(t, path); r != 0 {
		t.Errorf("%d KB resident after the Hold ended: the deferred release did not run", r>>10)
	}
}

// After a release, a lookup brings back the page it reads, not the large folio around it: 8
// one-byte reads 1 MB apart must not bring the 8 MB file back.
func TestLookupsAfterReleaseStaySmall(t *testing.T) {
	dir := tempDir(t)
	data, want := mapFile(t, dir, "model.onnx_data")
	if _, err := Release(dir); err != nil {
		t.Fatal(err)
	}
	for off := 12345; off < fileSize; off += 1 << 20 {
		if data[off] != want[off] {
			t.Fatalf("byte %d changed", off)
		}
	}
	if r := residentFile(t, filepath.Join(dir, "model.onnx_data")); r > 4<<20 {
		t.Errorf("8 lookups brought back %d KB", r>>10)
	}
}

// While Loading runs, a large mapping read from start to end (as pre-packing reads a tied
// table) does not stay resident behind the reader, and reads what the file holds.
func TestLoadingPagesOutAsItReads(t *testing.T) {
	dir := tempDir(t)
	const size = 48 << 20
	want := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	path := filepath.Join(dir, "model.onnx_data")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	var maxResident int64
	Loading(dir, func() {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Munmap(data)
		for off := 0; off < size; off += 4 << 20 {
			if !bytes.Equal(data[off:off+4<<20], want[off:off+4<<20]) {
				t.Fatalf("data at %d MB differs", off>>20)
			}
			time.Sleep(3 * pageOutEvery) // the reader is slower than the pager
			maxResident = max(maxResident, residentFile(t, path))
		}
	})
	if maxResident > size/2 {
		t.Errorf("up to %d MB of the %d MB mapping resident while loading", maxResident>>20, size>>20)
	}
}
