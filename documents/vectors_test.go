package documents

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/documents/index"
)

func TestVectorsRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".index", "a.txt.idx.vec")
	st := index.Stamp{Size: 10, ModTime: 5, Chunk: index.ChunkBytes}
	vecs := [][]float32{{1, -2.5, 0}, {0.25, 3, -1e-9}}
	if err := saveVectors(p, "model-a", st, vecs); err != nil {
		t.Fatal(err)
	}
	got, err := loadVectors(p, "model-a", st, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(vecs, got); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	for name, load := range map[string]func() ([][]float32, error){
		"another model": func() ([][]float32, error) { return loadVectors(p, "model-b", st, 2) },
		"another file": func() ([][]float32, error) {
			return loadVectors(p, "model-a", index.Stamp{Size: 11, ModTime: 5, Chunk: index.ChunkBytes}, 2)
		},
		"another chunks": func() ([][]float32, error) { return loadVectors(p, "model-a", st, 3) },
	} {
		if _, err := load(); !errors.Is(err, errOtherVectors) {
			t.Errorf("%s: %v, want errOtherVectors", name, err)
		}
	}
	if err := os.WriteFile(p, []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadVectors(p, "model-a", st, 2); err == nil || errors.Is(err, errOtherVectors) {
		t.Errorf("damaged file: %v, want a read error", err)
	}
}

// FuzzVectors: no input makes reading a vectors file panic or return vectors of the wrong
// shape.
func FuzzVectors(f *testing.F) {
	st := index.Stamp{Size: 1, ModTime: 2, Chunk: 3}
	p := filepath.Join(f.TempDir(), "seed.vec")
	if err := saveVectors(p, "m", st, [][]float32{{1, 2}, {3, 4}}); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		vecs, err := readVectors(bytes.NewReader(data), "m", st, 2)
		if err != nil {
			return
		}
		if len(vecs) != 2 || len(vecs[0]) != len(vecs[1]) {
			t.Fatalf("%d vectors of shapes %d", len(vecs), len(vecs[0]))
		}
	})
}
