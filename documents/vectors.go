package documents

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"edgechat/documents/index"
	"edgechat/internal/atomicfile"
)

// Vectors are a document's chunk embeddings, kept as int8 with a scale per vector: a
// quarter of float32's memory (for Qwen3-Embedding's 1,024 dimensions, ~1 KB a chunk — about
// the chunk's own text), while cosine similarities move by ~1e-3, far less than the gaps
// that order passages.
type Vectors struct {
	Dim   int
	Q     []int8    // Len × Dim
	Scale []float32 // per vector: a component is Q × Scale
}

// Quantize stores vecs (all of one length) as Vectors.
func Quantize(vecs [][]float32) (*Vectors, error) {
	v := &Vectors{}
	if len(vecs) > 0 {
		v.Dim = len(vecs[0])
	}
	v.Q, v.Scale = make([]int8, 0, len(vecs)*v.Dim), make([]float32, 0, len(vecs))
	for _, x := range vecs {
		if len(x) != v.Dim {
			return nil, fmt.Errorf("vectors of %d and %d dimensions", v.Dim, len(x))
		}
		m := float32(0)
		for _, c := range x {
			m = max(m, float32(math.Abs(float64(c))))
		}
		scale := m / 127
		for _, c := range x {
			q := float32(0)
			if scale > 0 {
				q = float32(math.Round(float64(c / scale)))
			}
			v.Q = append(v.Q, int8(max(-127, min(127, q))))
		}
		v.Scale = append(v.Scale, scale)
	}
	return v, nil
}

// Len is the number of vectors (0 for nil).
func (v *Vectors) Len() int {
	if v == nil {
		return 0
	}
	return len(v.Scale)
}

// At returns vector i as float32.
func (v *Vectors) At(i int) []float32 {
	out := make([]float32, v.Dim)
	for j, q := range v.Q[i*v.Dim : (i+1)*v.Dim] {
		out[j] = float32(q) * v.Scale[i]
	}
	return out
}

// Cosine is the cosine similarity of vector i and q (the scale cancels out).
func (v *Vectors) Cosine(i int, q []float32) float64 {
	var dot, nq, nv float64
	for j, x := range v.Q[i*v.Dim : i*v.Dim+min(v.Dim, len(q))] {
		dot += float64(q[j]) * float64(x)
		nq += float64(q[j]) * float64(q[j])
		nv += float64(x) * float64(x)
	}
	if nq == 0 || nv == 0 {
		return 0
	}
	return dot / math.Sqrt(nq*nv)
}

// vectorsVersion changes whenever the file layout does.
const vectorsVersion = 2

// vectorsFile is what VectorsPath holds: the chunk vectors of one index, made by one model.
type vectorsFile struct {
	Version  int
	Identity string // the Embedder's
	Stamp    index.Stamp
	Chunks   int
	Dim      int
	Q        []byte // Chunks × Dim int8
	Scale    []float32
}

// VectorsPath is where the vectors of the index at indexPath are saved.
func VectorsPath(indexPath string) string { return indexPath + ".vec" }

// errOtherVectors: the saved vectors belong to another model, file or chunking.
var errOtherVectors = errors.New("the saved vectors were made for something else")

// saveVectors writes v atomically.
func saveVectors(path, identity string, st index.Stamp, v *Vectors) error {
	f := vectorsFile{Version: vectorsVersion, Identity: identity, Stamp: st, Chunks: v.Len(), Dim: v.Dim, Scale: v.Scale}
	f.Q = make([]byte, len(v.Q))
	for i, q := range v.Q {
		f.Q[i] = byte(q)
	}
	return atomicfile.WriteGob(path, &f)
}

// loadVectors reads what saveVectors wrote, refusing (errOtherVectors) vectors of another
// model, source or chunk count.
func loadVectors(path, identity string, st index.Stamp, chunks int) (*Vectors, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	vecs, err := readVectors(bufio.NewReader(fh), identity, st, chunks)
	if err != nil && !errors.Is(err, errOtherVectors) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return vecs, err
}

// readVectors decodes what saveVectors writes.
func readVectors(r io.Reader, identity string, st index.Stamp, chunks int) (*Vectors, error) {
	var f vectorsFile
	if err := gob.NewDecoder(r).Decode(&f); err != nil {
		return nil, err
	}
	if f.Version != vectorsVersion || f.Identity != identity || f.Stamp != st || f.Chunks != chunks {
		return nil, errOtherVectors
	}
	if f.Chunks < 0 || f.Dim < 0 || f.Dim == 0 && f.Chunks > 0 || len(f.Scale) != f.Chunks || int64(len(f.Q)) != int64(f.Chunks)*int64(f.Dim) {
		return nil, fmt.Errorf("%d bytes and %d scales for %d vectors of %d dimensions", len(f.Q), len(f.Scale), f.Chunks, f.Dim)
	}
	v := &Vectors{Dim: f.Dim, Q: make([]int8, len(f.Q)), Scale: f.Scale}
	for i, b := range f.Q {
		v.Q[i] = int8(b)
	}
	return v, nil
}
