package decoder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference"
	"edgechat/inference/ort/env"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
	"edgechat/tokenizer"
)

// Embedding limits: a passage longer than EmbedMaxTokens is cut (its end-of-text token kept);
// one run takes at most embedBatchTokens padded tokens and embedBatchTexts texts.
const (
	EmbedMaxTokens   = 512
	embedBatchTokens = 2048
	embedBatchTexts  = 16
)

// endOfText is the token Qwen3-Embedding appends to every text and pools at.
const endOfText = "<|endoftext|>"

// Embedder runs a text-embedding model (a Qwen3-Embedding export, or any layout-A folder whose
// graph returns last_hidden_state or sentence_embedding) on the CPU. A text gets the
// end-of-text token appended; texts are left-padded into batches, so the last position of
// every row is its last token, whose hidden state is the text's vector (last-token pooling),
// L2-normalised. Queries carry the model's instruction prefix; passages are embedded as they
// are. It is safe for concurrent use (runs take turns).
type Embedder struct {
	floatSession
	io     *models.EmbeddingIO
	tok    *tokenizer.Pipeline
	eos    int // -1 when the tokenizer has none
	pad    int
	prompt string
	id     string
	// MaxTokens bounds a text's tokens; longer texts are cut.
	MaxTokens int
	// Label names the model to a person (the folder's name unless set).
	Label string
}

// EmbedOptions say how to run an embedding model.
type EmbedOptions struct {
	// Library is the ONNX Runtime library ("" searches; see env.Locate).
	Library string
	// Threads is the CPU intra-op thread count (0: physical cores).
	Threads int
	// GraphCache, when set, is where the optimized copy of a 4-bit graph goes (MatMulNBits at
	// accuracy level 4, as for decoders); "" runs the file as published.
	GraphCache string
}

// openGraph opens the model folder dir (its default variant) and reads its graph's inputs and
// outputs: the first step of opening every embedding and reranking model.
func openGraph(dir string) (*models.Folder, *proto.ModelInfo, error) {
	f, err := models.Open(dir, "")
	if err != nil {
		return nil, nil, err
	}
	info, err := models.ReadGraph(f.Model)
	if err != nil {
		return nil, nil, err
	}
	return f, info, nil
}

// OpenEmbedder loads the embedding model in dir on the CPU, loading ONNX Runtime first.
func OpenEmbedder(dir string, o EmbedOptions) (*Embedder, error) {
	f, info, err := openGraph(dir)
	if err != nil {
		return nil, err
	}
	eio, err := models.DescribeEmbedding(f.Model, info.Inputs, info.Outputs)
	if err != nil {
		return nil, err
	}
	if eio.TokenTypeIDs != "" || eio.PositionIDs == "" && len(eio.Past) == 0 {
		// Left padding and last-token pooling would give such a model wrong vectors silently.
		return nil, fmt.Errorf("%s is a BERT-family encoder: open it with OpenEncoderEmbedder", f.Dir)
	}
	tok, err := tokenizer.Load(f.Dir)
	if err != nil {
		return nil, fmt.Errorf("the embedding model's tokenizer: %w", err)
	}
	id, err := modelIdentity(f, info, o.GraphCache != "" && hasOp(info, "MatMulNBits"))
	if err != nil {
		return nil, err
	}
	if _, err := env.Init(o.Library); err != nil {
		return nil, err
	}
	e := &Embedder{floatSession: floatSession{output: eio.Output}, io: eio, tok: tok, eos: -1, prompt: f.QueryPrompt(), id: id, MaxTokens: EmbedMaxTokens, Label: filepath.Base(f.Dir)}
	if v, ok := tok.TokenID(endOfText); ok {
		e.eos, e.pad = v, v
	} else if v, ok := tok.TokenID(tok.SpecialTokens().EOS); ok {
		e.eos, e.pad = v, v
	}
	if v, ok := tok.TokenID(tok.SpecialTokens().PAD); ok {
		e.pad = v
	}
	opts, err := newSessionOptions(inference.EP{Name: "cpu", Threads: o.Threads})
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	in := []string{eio.InputIDs}
	for _, n := range []string{eio.AttentionMask, eio.PositionIDs} {
		if n != "" {
			in = append(in, n)
		}
	}
	for _, p := range eio.Past {
		in = append(in, p.Key, p.Value)
	}
	if e.run, err = newRunner(); err != nil {
		return nil, err
	}
	graph := f.Model
	if hasOp(info, "MatMulNBits") {
		graph = optimizedCopy(f.Model, o.GraphCache, optimize.Options{AccuracyLevel: 4}, nil)
	}
	if e.session, err = withPublishedFallback(f.Model, graph, o.GraphCache, func(graph string) (*ort.DynamicAdvancedSession, error) {
		return newSession(graph, in, []string{eio.Output}, opts)
	}); err != nil {
		e.run.close()
		return nil, fmt.Errorf("load the embedding model %s: %w", f.Model, err)
	}
	return e, nil
}

// hasOp reports whether the graph uses operator op (in any domain).
func hasOp(info *proto.ModelInfo, op string) bool {
	for k := range info.Ops {
		if k == op || strings.HasSuffix(k, ":"+op) {
			return true
		}
	}
	return false
}

// modelIdentity names the model's weights and tokenizer: vectors made by another model (or
// another pooling) must not be reused. It hashes the graph file's start and the sizes and
// modification times of the graph, its weights and the tokenizer: a moved or copied folder
// whose files keep their times keeps its identity; a replaced file does not.
func modelIdentity(f *models.Folder, info *proto.ModelInfo, optimized bool) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "last-token pooling, L2, max %d tokens, optimized copy %v\n", EmbedMaxTokens, optimized)
	g, err := os.Open(f.Model)
	if err != nil {
		return "", err
	}
	defer g.Close()
	if _, err := io.CopyN(h, g, 1<<20); err != nil && err != io.EOF {
		return "", fmt.Errorf("read %s: %w", f.Model, err)
	}
	for _, p := range append([]string{f.Model, f.Tokenizer}, models.ExternalPaths(f.Model, info)...) {
		st, err := os.Stat(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%d %d\n", st.Size(), st.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// Identity names the model and the way it pools: vectors saved under another identity are
// made again.
func (e *Embedder) Identity() string { return e.id }

// ModelName is Label.
func (e *Embedder) ModelName() string { return e.Label }

// QueryPrompt is the instruction put before queries.
func (e *Embedder) QueryPrompt() string { return e.prompt }

// EmbedQuery embeds a search query, with the model's instruction before it.
func (e *Embedder) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	v, err := e.embed(ctx, []string{e.prompt + q}, nil)
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// EmbedPassages embeds texts as they are, reporting progress (texts done, total) after each
// run; ctx is honoured between runs and stops the run in flight.
func (e *Embedder) EmbedPassages(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	return e.embed(ctx, texts, progress)
}

// Tokens returns the ids a text is embedded as: its tokens (added tokens are text), the
// tokenizer's post-processing, the end-of-text token at the end, cut to MaxTokens.
func (e *Embedder) Tokens(text string) []int {
	ids := e.tok.AddSpecialTokens(e.tok.Encode(text))
	if e.eos >= 0 && (len(ids) == 0 || ids[len(ids)-1] != e.eos) {
		ids = append(ids, e.eos)
	}
	if n := max(e.MaxTokens, 1); len(ids) > n {
		last := ids[len(ids)-1]
		ids = append(ids[:n-1:n-1], last)
	}
	return ids
}

// TokenCount is how many tokens text is embedded as before the cut to MaxTokens (the
// end-of-text token included).
func (e *Embedder) TokenCount(text string) int {
	ids := e.tok.AddSpecialTokens(e.tok.Encode(text))
	if e.eos >= 0 && (len(ids) == 0 || ids[len(ids)-1] != e.eos) {
		return len(ids) + 1
	}
	return len(ids)
}

// TokenLimit is MaxTokens: the most tokens a text is embedded with.
func (e *Embedder) TokenLimit() int { return max(e.MaxTokens, 1) }

func (e *Embedder) embed(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	toks := make([][]int, len(texts))
	for i, t := range texts {
		toks[i] = e.Tokens(t)
	}
	return inBatches(ctx, toks, func(ids []int) int { return len(ids) }, embedBatchTexts, embedBatchTokens, e.runBatch, progress)
}

// runBatch embeds one batch of token lists, left-padded to the longest.
func (e *Embedder) runBatch(ctx context.Context, batch [][]int) ([][]float32, error) {
	B, S := len(batch), 0
	for _, ids := range batch {
		S = max(S, len(ids))
	}
	ids := make([]int64, B*S)
	mask := make([]int64, B*S)
	pos := make([]int64, B*S)
	for b, row := range batch {
		padN := S - len(row)
		for j := range S {
			k := b*S + j
			if j < padN {
				ids[k] = int64(e.pad)
				continue
			}
			ids[k], mask[k], pos[k] = int64(row[j-padN]), 1, int64(j-padN)
		}
	}
	shape := ort.NewShape(int64(B), int64(S))
	var ts tensorList
	defer func() { destroyAll(ts.list) }()
	ts.add(idsTensor(shape, ids, e.io.InputIDsType == "int32"))
	if e.io.AttentionMask != "" {
		ts.add(ort.NewTensor(shape, mask))
	}
	if e.io.PositionIDs != "" {
		ts.add(ort.NewTensor(shape, pos))
	}
	if len(e.io.Past) > 0 {
		var dtype ort.TensorElementDataType = ort.TensorElementDataTypeFloat
		if e.io.KVType == "float16" {
			dtype = ort.TensorElementDataTypeFloat16
		}
		empty := ort.NewShape(int64(B), int64(e.io.KVHeads), 0, int64(e.io.HeadDim))
		for range 2 * len(e.io.Past) {
			ts.add(ort.NewCustomDataTensor(empty, make([]byte, 1), dtype)) // zero-sized: ONNX Runtime wants a backing byte
		}
	}
	if ts.err != nil {
		return nil, ts.err
	}
	vecs := make([][]float32, B)
	err := e.runFloat(ctx, ts.list, func(data []float32, dims []int64) {
		hidden := int(dims[len(dims)-1])
		for b := range B {
			var row []float32
			if e.io.Pooled {
				row = data[b*hidden : (b+1)*hidden]
			} else {
				seq := int(dims[1])
				at := (b*seq + seq - 1) * hidden // the last position: the row's last token
				row = data[at : at+hidden]
			}
			vecs[b] = normalize(row) // a copy
		}
	})
	if err != nil {
		return nil, err
	}
	return vecs, nil
}

// normalize returns a copy of v scaled to unit length (a zero vector stays zero).
func normalize(v []float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// Close releases the session; later calls fail.
func (e *Embedder) Close() error { return e.close() }
