package index_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/documents/extract"
	"edgechat/documents/index"
)

// FuzzSplitSearch: any text splits into chunks no longer than the size allows that keep
// every word, and any question searches the index without failing.
func FuzzSplitSearch(f *testing.F) {
	f.Add("one two\n\nthree four. five six", "four", 10, 3)
	f.Add(strings.Repeat("é", 40), "é", 7, 2)
	f.Add("a\n\n\n\nb", "", 1, 0)
	f.Fuzz(func(t *testing.T, text, query string, size, overlap int) {
		size, overlap = 1+abs(size)%4096, abs(overlap)%4096
		chunks := index.Split([]extract.Section{{Page: 1, Text: text}}, size, overlap)
		have := map[string]bool{}
		for _, c := range chunks {
			if len(c.Text) > size+1+3 { // a cut word may end on a 3-byte UTF-8 boundary
				t.Fatalf("chunk of %d bytes with size %d", len(c.Text), size)
			}
			for _, w := range strings.Fields(c.Text) {
				have[w] = true
			}
		}
		for _, w := range strings.Fields(text) {
			if len(w) <= size && !have[w] {
				t.Fatalf("word %q is in no chunk", w)
			}
		}
		ix, err := index.Build(context.Background(), chunks, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range ix.Search(query, 5) {
			if h.Chunk < 0 || h.Chunk >= len(chunks) || h.Score <= 0 {
				t.Fatalf("hit %+v of %d chunks", h, len(chunks))
			}
		}
	})
}

// FuzzRead: a damaged index file is an error, never a panic or an index that points past
// its chunks.
func FuzzRead(f *testing.F) {
	ix, err := index.Build(context.Background(), index.Split([]extract.Section{{Text: "alpha beta gamma\n\ndelta"}}, 8, 2), nil)
	if err != nil {
		f.Fatal(err)
	}
	seed := filepath.Join(f.TempDir(), "seed.idx")
	if err := ix.Save(seed, index.Stamp{}); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := index.Read(bytes.NewReader(data), index.Stamp{})
		if err != nil {
			return
		}
		for _, q := range []string{"alpha", "delta gamma"} {
			for _, h := range ix.Search(q, 5) {
				if h.Chunk >= len(ix.Chunks) {
					t.Fatalf("hit past the chunks: %+v", h)
				}
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
