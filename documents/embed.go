package documents

import (
	"cmp"
	"context"
	"slices"
)

// Embedder turns texts into vectors whose cosine similarity measures closeness of meaning
// (a Qwen3-Embedding model run by inference/ort/decoder.Embedder). With one, the library embeds
// every chunk once, when it indexes a document, and saves the vectors beside the index; each
// question then embeds only itself, and passages are ranked by BM25 and by meaning, fused by
// reciprocal rank. An Embedder that also has ModelName() string is named by it in the status
// line.
type Embedder interface {
	// Identity names the model (and its pooling): vectors saved under another identity are
	// made again.
	Identity() string
	// EmbedQuery embeds a question (with the model's query instruction, if it has one).
	EmbedQuery(ctx context.Context, q string) ([]float32, error)
	// EmbedPassages embeds document text as it is, reporting progress (texts done, total).
	EmbedPassages(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error)
}

// semanticOrder returns the n chunks of docs closest in meaning to the query vector q, best
// first, as (document, chunk) pairs. Documents without vectors take no part.
func semanticOrder(docs []*Doc, q []float32, n int) [][2]int {
	type hit struct {
		doc, chunk int
		sim        float64
	}
	var hits []hit
	for d, doc := range docs {
		for c := range doc.Vectors.Len() {
			hits = append(hits, hit{d, c, doc.Vectors.Cosine(c, q)})
		}
	}
	slices.SortStableFunc(hits, func(x, y hit) int { return cmp.Compare(y.sim, x.sim) })
	out := make([][2]int, 0, min(n, len(hits)))
	for _, h := range hits[:min(n, len(hits))] {
		out = append(out, [2]int{h.doc, h.chunk})
	}
	return out
}

// rrfK is reciprocal rank fusion's constant (Cormack et al. use 60).
const rrfK = 60

// fuse merges rankings of the same items by reciprocal rank fusion: each item scores
// Σ 1/(k + rank) over the rankings.
func fuse(rankings ...[]int) []int {
	score := map[int]float64{}
	for _, r := range rankings {
		for rank, item := range r {
			score[item] += 1 / float64(rrfK+rank+1)
		}
	}
	order := make([]int, 0, len(score))
	for item := range score {
		order = append(order, item)
	}
	slices.SortFunc(order, func(x, y int) int {
		switch {
		case score[x] > score[y]:
			return -1
		case score[x] < score[y]:
			return 1
		}
		return x - y
	})
	return order
}
