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
// 3: the header names a PDF's scanned pages left unread (indexes of PDFs with scanned pages
// made before did not know them).
const formatVersion = 3

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

// header opens an index file; the chunks, sections, terms, postings and lengths follow in
// batches of at most batch, so that neither writing nor reading holds the file in memory.
type header struct {
	Version                 int
	Stamp                   Stamp
	Chunks, Sections, Terms int
	Unread                  []int
}

const batch = 512

// Save writes the index to path atomically.
func (ix *Index) Save(path string, st Stamp) error {
	terms := make([]string, len(ix.post))
	for t, row := range ix.terms {
		terms[row] = t
	}
	return atomicfile.WriteStream(path, func(w io.Writer) error {
		enc := gob.NewEncoder(w)
		h := header{Version: formatVersion, Stamp: st, Chunks: len(ix.Chunks), Sections: len(ix.Sections), Terms: len(terms), Unread: ix.Unread}
		if err := enc.Encode(&h); err != nil {
			return err
		}
		if err := encodeBatches(enc, ix.Chunks); err != nil {
			return err
		}
		if err := encodeBatches(enc, ix.Sections); err != nil {
			return err
		}
		if err := encodeBatches(enc, terms); err != nil {
			return err
		}
		if err := encodeBatches(enc, ix.post); err != nil {
			return err
		}
		return encodeBatches(enc, ix.lens)
	})
}

func encodeBatches[T any](enc *gob.Encoder, items []T) error {
	for i := 0; i < len(items); i += batch {
		if err := enc.Encode(items[i:min(i+batch, len(items))]); err != nil {
			return err
		}
	}
	return nil
}

func decodeBatches[T any](dec *gob.Decoder, n int) ([]T, error) {
	if n == 0 {
		return nil, nil // nil as saved: no Sections means the text is not kept whole
	}
	out := make([]T, 0, min(n, 1<<16))
	for len(out) < n {
		var b []T
		if err := dec.Decode(&b); err != nil {
			return nil, err
		}
		if len(b) == 0 || len(b) > batch || len(out)+len(b) > n {
			return nil, errors.New("a batch of the wrong size")
		}
		out = append(out, b...)
	}
	return out, nil
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
	dec := gob.NewDecoder(r)
	var h header
	if err := dec.Decode(&h); err != nil {
		return nil, err
	}
	if h.Version != formatVersion || h.Stamp != st {
		return nil, ErrStale
	}
	if h.Chunks < 0 || h.Chunks > maxChunks || h.Sections < 0 || h.Terms < 0 {
		return nil, errors.New("impossible sizes")
	}
	ix := &Index{Unread: h.Unread}
	var err error
	if ix.Chunks, err = decodeBatches[Chunk](dec, h.Chunks); err != nil {
		return nil, err
	}
	if ix.Sections, err = decodeBatches[extract.Section](dec, h.Sections); err != nil {
		return nil, err
	}
	terms, err := decodeBatches[string](dec, h.Terms)
	if err != nil {
		return nil, err
	}
	if ix.post, err = decodeBatches[[]uint32](dec, h.Terms); err != nil {
		return nil, err
	}
	if ix.lens, err = decodeBatches[uint32](dec, h.Chunks); err != nil {
		return nil, err
	}
	ix.terms = make(map[string]int32, len(terms))
	for i, t := range terms {
		ix.terms[t] = int32(i)
	}
	var total uint64
	for _, n := range ix.lens {
		total += uint64(n)
	}
	for _, p := range ix.post {
		for _, e := range p {
			if int(e>>8) >= len(ix.Chunks) {
				return nil, errors.New("a posting points past the chunks")
			}
		}
	}
	ix.finish(total)
	return ix, nil
}
