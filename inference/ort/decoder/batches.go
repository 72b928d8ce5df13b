package decoder

import (
	"context"
	"slices"
)

// inBatches runs items through run in batches of similar length (so little of a run is
// padding): at most batchTexts items and batchTokens padded tokens a run. It returns the
// outputs in the items' order, reporting progress (items done, total) after each run; ctx is
// checked between runs.
func inBatches[T any](ctx context.Context, items []T, length func(T) int, batchTexts, batchTokens int,
	run func(ctx context.Context, batch []T) ([][]float32, error), progress func(done, total int),
) ([][]float32, error) {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return length(items[a]) - length(items[b]) })
	out := make([][]float32, len(items))
	done := 0
	for done < len(order) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := 1
		for done+n < len(order) && n < batchTexts && (n+1)*length(items[order[done+n]]) <= batchTokens {
			n++
		}
		batch := make([]T, n)
		for i := range n {
			batch[i] = items[order[done+i]]
		}
		vecs, err := run(ctx, batch)
		if err != nil {
			return nil, err
		}
		for i, v := range vecs {
			out[order[done+i]] = v
		}
		done += n
		if progress != nil {
			progress(done, len(items))
		}
	}
	return out, nil
}
