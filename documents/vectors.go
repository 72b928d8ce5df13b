package documents

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"edgechat/documents/index"
	"edgechat/internal/atomicfile"
)

// vectorsVersion changes whenever the file layout does.
const vectorsVersion = 1

// vectorsFile is what VectorsPath holds: the chunk vectors of one index, made by one model.
type vectorsFile struct {
	Version  int
	Identity string // the Embedder's
	Stamp    index.Stamp
	Chunks   int
	Dim      int
	Data     []byte // Chunks × Dim little-endian float32
}

// VectorsPath is where the vectors of the index at indexPath are saved.
func VectorsPath(indexPath string) string { return indexPath + ".vec" }

// errOtherVectors: the saved vectors belong to another model, file or chunking.
var errOtherVectors = errors.New("the saved vectors were made for something else")

// saveVectors writes vecs atomically.
func saveVectors(path, identity string, st index.Stamp, vecs [][]float32) error {
	f := vectorsFile{Version: vectorsVersion, Identity: identity, Stamp: st, Chunks: len(vecs)}
	if len(vecs) > 0 {
		f.Dim = len(vecs[0])
	}
	f.Data = make([]byte, 0, 4*f.Chunks*f.Dim)
	for _, v := range vecs {
		if len(v) != f.Dim {
			return fmt.Errorf("vectors of %d and %d dimensions", f.Dim, len(v))
		}
		for _, x := range v {
			f.Data = binary.LittleEndian.AppendUint32(f.Data, math.Float32bits(x))
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&f); err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes(), nil)
}

// loadVectors reads what saveVectors wrote, refusing (errOtherVectors) vectors of another
// model, source or chunk count.
func loadVectors(path, identity string, st index.Stamp, chunks int) ([][]float32, error) {
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
func readVectors(r io.Reader, identity string, st index.Stamp, chunks int) ([][]float32, error) {
	var f vectorsFile
	if err := gob.NewDecoder(r).Decode(&f); err != nil {
		return nil, err
	}
	if f.Version != vectorsVersion || f.Identity != identity || f.Stamp != st || f.Chunks != chunks {
		return nil, errOtherVectors
	}
	if f.Chunks < 0 || f.Dim < 0 || f.Dim == 0 && f.Chunks > 0 || int64(len(f.Data)) != 4*int64(f.Chunks)*int64(f.Dim) {
		return nil, fmt.Errorf("%d bytes for %d vectors of %d dimensions", len(f.Data), f.Chunks, f.Dim)
	}
	out := make([][]float32, f.Chunks)
	flat := make([]float32, f.Chunks*f.Dim)
	for i := range flat {
		flat[i] = math.Float32frombits(binary.LittleEndian.Uint32(f.Data[4*i:]))
	}
	for i := range out {
		out[i] = flat[i*f.Dim : (i+1)*f.Dim : (i+1)*f.Dim]
	}
	return out, nil
}
