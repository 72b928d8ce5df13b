package decoder

import (
	"log/slog"

	"edgechat/internal/optimize"
)

// optimizedGraph returns the graph to run for a dynamic decoder: with a cache folder, the
// cached optimized copy of path (MatMulNBits at accuracy level 4 where unset, the LM head on
// the last logits_to_keep rows only: 1 in prefill and decoding, k+1 when checking k drafted
// tokens; see internal/optimize), else path itself. A copy that cannot be made is logged and
// the file runs as published.
func optimizedGraph(path, cacheDir string) string {
	return optimizedCopy(path, cacheDir, optimize.Options{AccuracyLevel: 4, LastRows: true, KeepInput: true})
}

// optimizedCopy is optimizedGraph with the rewrites o chooses (an embedding model's hidden
// states are all needed: it takes the accuracy level only).
func optimizedCopy(path, cacheDir string, o optimize.Options) string {
	if cacheDir == "" {
		return path
	}
	out, rep, err := optimize.Cached(path, cacheDir, o)
	if err != nil {
		slog.Warn("running the graph as published", "graph", path, "reason", err)
		return path
	}
	if rep.LMHead != "" || rep.AccuracyLevelSet > 0 {
		slog.Info("wrote an optimized copy of the graph", "graph", path, "copy", out, "accuracy_level_set", rep.AccuracyLevelSet, "lm_head", rep.LMHead)
	}
	return out
}
