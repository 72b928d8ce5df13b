package documents

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// Reranker scores passages against a question by reading both together (a cross-encoder
// such as ms-marco-MiniLM or bge-reranker, run by inference/ort/decoder.CrossEncoder): slower
// than comparing vectors, so it re-scores only the best candidates of the first ranking. A
// Reranker that also has ModelName() string is named by it in the status line.
type Reranker interface {
	// Score returns one relevance score per passage, higher for more relevant.
	Score(ctx context.Context, query string, passages []string) ([]float64, error)
}

// rerankTop is how many of the first ranking's best candidates the reranker re-scores: enough
// to fill a prompt's passages several times over, few enough for a small cross-encoder to
// read in about a second on a laptop's CPU.
const rerankTop = 24

// rerank re-orders the first rerankTop items of order by r's scores of their passages
// against question (ties keep the first ranking's order); the rest follow as they were.
func rerank(ctx context.Context, r Reranker, question string, pool []passage, order []int) ([]int, error) {
	top := order[:min(rerankTop, len(order))]
	texts := make([]string, len(top))
	for i, item := range top {
		texts[i] = pool[item].src.Text
	}
	scores, err := r.Score(ctx, question, texts)
	if err != nil {
		return nil, err
	}
	if len(scores) != len(top) {
		return nil, fmt.Errorf("%d scores for %d passages", len(scores), len(top))
	}
	at := make([]int, len(top))
	for i := range at {
		at[i] = i
	}
	slices.SortStableFunc(at, func(x, y int) int { return cmp.Compare(scores[y], scores[x]) })
	out := make([]int, 0, len(order))
	for _, i := range at {
		out = append(out, top[i])
	}
	return append(out, order[len(top):]...), nil
}

// modelName is m's ModelName() when it has one, else fallback.
func modelName(m any, fallback string) string {
	if n, ok := m.(interface{ ModelName() string }); ok && n.ModelName() != "" {
		return n.ModelName()
	}
	return fallback
}
