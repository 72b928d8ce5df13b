package documents

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/documents/index"
)

// TestQuantize: int8 vectors keep cosine similarities to ~1e-3 and take a quarter of the
// memory.
func TestQuantize(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, dim = 50, 1024
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = float32(r.NormFloat64())
		}
	}
	v := quantized(t, vecs)
	if v.Len() != n || len(v.Q) != n*dim {
		t.Fatalf("%d vectors, %d values", v.Len(), len(v.Q))
	}
	exact := func(a, b []float32) float64 {
		var d, na, nb float64
		for i := range a {
			d += float64(a[i]) * float64(b[i])
			na += float64(a[i]) * float64(a[i])
			nb += float64(b[i]) * float64(b[i])
		}
		return d / math.Sqrt(na*nb)
	}
	worst := 0.0
	for i := range n {
		q := vecs[(i+1)%n]
		worst = max(worst, math.Abs(v.Cosine(i, q)-exact(vecs[i], q)))
		worst = max(worst, math.Abs(v.Cosine(i, vecs[i])-1))
		back := v.At(i)
		for j := range back {
			if math.Abs(float64(back[j]-vecs[i][j])) > float64(v.Scale[i])/2+1e-6 {
				t.Fatalf("vector %d component %d: %g back from %g (scale %g)", i, j, back[j], vecs[i][j], v.Scale[i])
			}
		}
	}
	if worst > 2e-3 {
		t.Errorf("cosine moved by up to %g, want ≤ 2e-3", worst)
	}
	if _, err := Quantize([][]float32{{1, 2}, {3}}); err == nil {
		t.Error("vectors of different lengths accepted")
	}
}

func TestVectorsRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".index", "a.txt.idx.vec")
	st := index.Stamp{Size: 10, ModTime: 5, Chunk: index.ChunkBytes}
	vecs := quantized(t, [][]float32{{1, -2.5, 0}, {0.25, 3, -1e-9}})
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
	for name, load := range map[string]func() (*Vectors, error){
		"another model": func() (*Vectors, error) { return loadVectors(p, "model-b", st, 2) },
		"another file": func() (*Vectors, error) {
			return loadVectors(p, "model-a", index.Stamp{Size: 11, ModTime: 5, Chunk: index.ChunkBytes}, 2)
		},
		"another chunks": func() (*Vectors, error) { return loadVectors(p, "model-a", st, 3) },
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
	v, err := Quantize([][]float32{{1, 2}, {3, 4}})
	if err != nil {
		f.Fatal(err)
	}
	if err := saveVectors(p, "m", st, v); err != nil {
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
		if vecs.Len() != 2 || len(vecs.Q) != 2*vecs.Dim {
			t.Fatalf("%d vectors, %d values of %d dimensions", vecs.Len(), len(vecs.Q), vecs.Dim)
		}
		for i := range 2 {
			vecs.At(i)
			vecs.Cosine(i, []float32{1, 2, 3})
		}
	})
}
