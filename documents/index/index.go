package index

import (
	"cmp"
	"context"
	"math"
	"slices"

	"edgechat/documents/extract"
)

// Index ranks the chunks of one document.
type Index struct {
	Chunks []Chunk
	// Sections is the document's whole text when the caller keeps it (small documents are
	// given whole when they fit); Save and Load carry it.
	Sections []extract.Section
	// Unread are the scanned pages of a PDF with text whose text was not recognized (text
	// recognition was off, or failed): what reading it again with text recognition adds.
	// Save and Load carry them.
	Unread []int

	terms map[string]int32 // term → row of post
	// post holds, per term, the chunks that have it: chunk<<8 | min(frequency, 255).
	post [][]uint32
	lens []uint32 // terms per chunk
	avg  float64
}

// BM25 parameters (the usual ones).
const (
	k1 = 1.2
	b  = 0.75
)

// maxChunks bounds a document: post packs a chunk number into 24 bits.
const maxChunks = 1 << 24

// Progress is told how many chunks were indexed of all; it may be nil.
type Progress func(done, total int)

// Build indexes chunks. It checks ctx between chunks and returns ctx's error when cancelled.
func Build(ctx context.Context, chunks []Chunk, progress Progress) (*Index, error) {
	if len(chunks) > maxChunks {
		chunks = chunks[:maxChunks]
	}
	ix := &Index{Chunks: chunks, terms: map[string]int32{}, lens: make([]uint32, len(chunks))}
	a := newAnalyzer()
	tf := map[int32]uint32{}
	var total uint64
	for i, c := range chunks {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if progress != nil && i > 0 {
				progress(i, len(chunks))
			}
		}
		clear(tf)
		n := uint32(0)
		a.terms(c.Text, func(t string) {
			row, ok := ix.terms[t]
			if !ok {
				row = int32(len(ix.post))
				ix.terms[t] = row
				ix.post = append(ix.post, nil)
			}
			tf[row]++
			n++
		})
		for row, f := range tf {
			ix.post[row] = append(ix.post[row], uint32(i)<<8|min(f, 255))
		}
		ix.lens[i] = n
		total += uint64(n)
	}
	ix.finish(total)
	if progress != nil {
		progress(len(chunks), len(chunks))
	}
	return ix, nil
}

// finish trims the posting lists to their length and computes the average chunk length.
func (ix *Index) finish(total uint64) {
	for i, p := range ix.post {
		ix.post[i] = slices.Clip(p)
	}
	if len(ix.lens) > 0 {
		ix.avg = float64(total) / float64(len(ix.lens))
	}
}

// Hit is a chunk and how well it matches.
type Hit struct {
	Chunk int
	Score float64
}

// Search returns the k best chunks for query, best first; chunks sharing no term with the
// query are left out.
func (ix *Index) Search(query string, k int) []Hit {
	if len(ix.Chunks) == 0 || k <= 0 {
		return nil
	}
	scores := map[int]float64{}
	seen := map[int32]bool{}
	newAnalyzer().terms(query, func(t string) {
		row, ok := ix.terms[t]
		if !ok || seen[row] {
			return
		}
		seen[row] = true
		post := ix.post[row]
		n, df := float64(len(ix.Chunks)), float64(len(post))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range post {
			c, f := int(p>>8), float64(p&0xFF)
			norm := k1 * (1 - b + b*float64(ix.lens[c])/ix.avg)
			scores[c] += idf * f * (k1 + 1) / (f + norm)
		}
	})
	hits := make([]Hit, 0, len(scores))
	for c, s := range scores {
		hits = append(hits, Hit{Chunk: c, Score: s})
	}
	slices.SortFunc(hits, func(x, y Hit) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return cmp.Compare(x.Chunk, y.Chunk)
	})
	return hits[:min(k, len(hits))]
}

// Bytes is the text held by the chunks.
func (ix *Index) Bytes() int {
	n := 0
	for _, c := range ix.Chunks {
		n += len(c.Text)
	}
	return n
}
