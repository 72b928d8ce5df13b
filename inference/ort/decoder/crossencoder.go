package decoder

import (
	"context"
	"fmt"
	"path/filepath"

	"edgechat/models"
	"edgechat/tokenizer"
)

// Cross-encoder batches: pairs are short (a question and a passage), so more fit a run.
const (
	rerankBatchTexts  = 16
	rerankBatchTokens = 4096
)

// CrossEncoder runs a cross-encoder reranker (ms-marco-MiniLM, bge-reranker, as the
// onnx-community/Xenova exports publish them) on the CPU: each (query, passage) pair is fed as
// the tokenizer lays out a pair — [CLS] query [SEP] passage [SEP] with token type ids 0 and 1
// for BERT — cut longest first to the model's max length, and scored by its one logit. It is
// safe for concurrent use.
type CrossEncoder struct {
	s      encoderSession
	tok    *tokenizer.Pipeline
	maxLen int
	// Label names the model to a person (the folder's name unless set).
	Label string
}

// OpenCrossEncoder loads the reranker in dir.
func OpenCrossEncoder(dir string, o EmbedOptions) (*CrossEncoder, error) {
	f, info, err := openGraph(dir)
	if err != nil {
		return nil, err
	}
	rio, err := models.DescribeReranker(f.Model, info.Inputs, info.Outputs)
	if err != nil {
		return nil, err
	}
	cfg, err := models.ReadSentenceConfig(f.Dir)
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(f.Dir)
	if err != nil {
		return nil, fmt.Errorf("the reranker's tokenizer: %w", err)
	}
	c := &CrossEncoder{tok: tok, maxLen: cfg.MaxLength, Label: filepath.Base(f.Dir)}
	if c.maxLen <= 0 {
		c.maxLen = encoderMaxTokens
	}
	c.s = encoderSession{floatSession: floatSession{output: rio.Output}, ids32: rio.InputIDsType == "int32", mask: rio.AttentionMask, types: rio.TokenTypeIDs, pad: padID(tok)}
	if err := openEncoderSession(f.Model, o, &c.s); err != nil {
		return nil, fmt.Errorf("load the reranker: %w", err)
	}
	return c, nil
}

// ModelName is Label.
func (c *CrossEncoder) ModelName() string { return c.Label }

// EncodePair is what a (query, passage) pair is fed as: both texts' tokens (added tokens are
// text), the longer cut one token at a time until the pair fits the max length with its
// special tokens (transformers' longest_first), laid out by the post-processor.
func (c *CrossEncoder) EncodePair(query, passage string) tokenizer.Encoding {
	a, b := c.tok.Encode(query), c.tok.Encode(passage)
	n := max(c.maxLen-c.tok.AddedTokens(true), 2)
	if over := len(a) + len(b) - n; over > 0 {
		// Cut the longer to the shorter's length first, then both alternately (the
		// longer one, or b on a tie), as one token at a time would.
		la, lb := len(a), len(b)
		for range over {
			if la > lb {
				la--
			} else {
				lb--
			}
		}
		a, b = a[:la], b[:lb]
	}
	return c.tok.PostProcess(a, b, true)
}

// Score returns the model's relevance logit for each passage against query (higher is more
// relevant), reporting nothing; ctx is checked between runs and stops the run in flight.
func (c *CrossEncoder) Score(ctx context.Context, query string, passages []string) ([]float64, error) {
	pairs := make([]tokenizer.Encoding, len(passages))
	for i, p := range passages {
		pairs[i] = c.EncodePair(query, p)
	}
	rows, err := inBatches(ctx, pairs, func(r tokenizer.Encoding) int { return len(r.IDs) }, rerankBatchTexts, rerankBatchTokens, c.runBatch, nil)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = float64(r[0])
	}
	return out, nil
}

func (c *CrossEncoder) runBatch(ctx context.Context, batch []tokenizer.Encoding) ([][]float32, error) {
	data, dims, _, err := c.s.forward(ctx, batch)
	if err != nil {
		return nil, err
	}
	if len(dims) != 2 || int(dims[0]) != len(batch) || dims[1] < 1 {
		return nil, fmt.Errorf("the reranker returned logits of shape %v for %d pairs", dims, len(batch))
	}
	w := int(dims[1])
	out := make([][]float32, len(batch))
	for b := range batch {
		out[b] = data[b*w : b*w+1]
	}
	return out, nil
}

// Close releases the session; later calls fail.
func (c *CrossEncoder) Close() error { return c.s.close() }
