package documents

import (
	"context"
	"math"
	"slices"
)

// Embedder turns texts into vectors whose cosine similarity measures closeness of meaning
// (e.g. a Qwen3-Embedding ONNX export run by the engine). When the Engine has one, the
// passages are ranked by both BM25 and meaning, fused by reciprocal rank. No embedding model
// ships yet; this is where it plugs in.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// semanticOrder ranks the pool by cosine similarity to the question.
func semanticOrder(ctx context.Context, emb Embedder, question string, pool []passage) ([]int, error) {
	texts := make([]string, 0, len(pool)+1)
	texts = append(texts, question)
	for _, p := range pool {
		texts = append(texts, p.src.Text)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		return nil, err
	}
	sim := make([]float64, len(pool))
	for i := range pool {
		sim[i] = cosine(vecs[0], vecs[i+1])
	}
	order := make([]int, len(pool))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case sim[x] > sim[y]:
			return -1
		case sim[x] < sim[y]:
			return 1
		}
		return 0
	})
	return order, nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
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
