package index

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"

	"edgechat/documents/extract"
	"edgechat/internal/atomicfile"
)

// formatVersion changes whenever the file layout or the analysis (and so the terms) do.
const formatVersion = 1

// Stamp identifies the source an index was built from; Load refuses an index whose stamp
// differs (the file changed, or another chunking).
type Stamp struct {
	Size    int64
	ModTime int64 // Unix nanoseconds
	Chunk   int   // chunk size in bytes
}

// StampOf is the stamp of the file at path with the default chunk size.
func StampOf(path string) (Stamp, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{Size: st.Size(), ModTime: st.ModTime().UnixNano(), Chunk: ChunkBytes}, nil
}

// ErrStale is returned by Load when the saved index was built from something else.
var ErrStale = errors.New("the saved index is out of date")

type fileForm struct {
	Version  int
	Stamp    Stamp
	Chunks   []Chunk
	Sections []extract.Section
	Terms    []string
	Post     [][]uint32
	Lens     []uint32
}

// Save writes the index to path atomically.
func (ix *Index) Save(path string, st Stamp) error {
	terms := make([]string, len(ix.post))
	for t, row := range ix.terms {
		terms[row] = t
	}
	f := fileForm{Version: formatVersion, Stamp: st, Chunks: ix.Chunks, Sections: ix.Sections, Terms: terms, Post: ix.post, Lens: ix.lens}
	return atomicfile.WriteGob(path, &f)
}

// Load reads an index saved by Save; ErrStale when it was built from another source.
func Load(path string, st Stamp) (*Index, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	ix, err := Read(bufio.NewReader(fh), st)
	if err != nil && !errors.Is(err, ErrStale) {
		return nil, fmt.Errorf("read index %s: %w", path, err)
	}
	return ix, err
}

// Read decodes what Save writes.
func Read(r io.Reader, st Stamp) (*Index, error) {
	var f fileForm
	if err := gob.NewDecoder(r).Decode(&f); err != nil {
		return nil, err
	}
	if f.Version != formatVersion || f.Stamp != st {
		return nil, ErrStale
	}
	if len(f.Terms) != len(f.Post) || len(f.Lens) != len(f.Chunks) {
		return nil, errors.New("inconsistent sizes")
	}
	ix := &Index{Chunks: f.Chunks, Sections: f.Sections, terms: make(map[string]int32, len(f.Terms)), post: f.Post, lens: f.Lens}
	var total uint64
	for i, t := range f.Terms {
		ix.terms[t] = int32(i)
	}
	for _, n := range f.Lens {
		total += uint64(n)
	}
	for _, p := range f.Post {
		for _, e := range p {
			if int(e>>8) >= len(f.Chunks) {
				return nil, errors.New("a posting points past the chunks")
			}
		}
	}
	ix.finish(total)
	return ix, nil
}
