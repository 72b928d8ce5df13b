package decoder

import (
	"log/slog"

	"edgechat/internal/residency"
)

// releaseEvery is how many tokens pass through a model between releases of its mapped weight
// pages. Each token's embedding lookup maps its row back in: a page, or the whole page-cache
// folio (up to 2 MB) where the kernel declined the small-pages advice; 4 tokens bound that
// regrowth to about 8 MB, and a release costs tens of microseconds against tens of
// milliseconds per token.
const releaseEvery = 4

// weightPages gives back the resident pages of the weight files ONNX Runtime mapped from a
// model folder (external data): loading reads all of them, but once the sessions exist the
// embedding table is read only a row per token (see package residency).
type weightPages struct {
	dir string
	n   int // tokens since the last release
}

// release gives the pages back now.
func (p *weightPages) release() {
	p.n = 0
	st, err := residency.Release(p.dir)
	if err != nil {
		slog.Warn("could not release mapped weight pages", "model", p.dir, "err", err)
		return
	}
	if st.Skipped > 0 {
		slog.Debug("mapped weight pages written to, kept", "model", p.dir, "mappings", st.Skipped)
	}
}

// fed counts n tokens through the model and, every releaseEvery tokens, releases the pages.
func (p *weightPages) fed(n int) {
	if p.n += n; p.n >= releaseEvery {
		p.release()
	}
}
