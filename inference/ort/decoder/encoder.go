package decoder

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference"
	"edgechat/inference/ort/env"
	"edgechat/models"
	"edgechat/tokenizer"
)

// encoderMaxTokens bounds a text when the folder names no limit (BERT's 512 positions).
const encoderMaxTokens = 512

// encoding is one row of an encoder run: token ids and their token type ids.
type encoding = tokenizer.Encoding

// encoderSession is an ONNX Runtime session of a BERT-family encoder graph (input_ids,
// attention_mask, token_type_ids where the graph has them), run on right-padded batches.
// Runs take turns.
type encoderSession struct {
	floatSession
	ids32 bool
	mask  bool
	types bool
	pad   int
}

// openEncoderSession loads graph on the CPU with the inputs named and the one output.
func openEncoderSession(graph string, o EmbedOptions, s *encoderSession) error {
	if _, err := env.Init(o.Library); err != nil {
		return err
	}
	opts, err := newSessionOptions(inference.EP{Name: "cpu", Threads: o.Threads})
	if err != nil {
		return err
	}
	defer opts.Destroy()
	in := []string{"input_ids"}
	if s.mask {
		in = append(in, "attention_mask")
	}
	if s.types {
		in = append(in, "token_type_ids")
	}
	if s.run, err = newRunner(); err != nil {
		return err
	}
	if s.session, err = newSession(graph, in, []string{s.output}, opts); err != nil {
		s.run.close()
		return fmt.Errorf("load %s: %w", graph, err)
	}
	return nil
}

// forward runs one batch, right-padded to its longest row, and returns the output's data and
// shape, with the attention mask it fed ([B*S], 1 for real tokens).
func (s *encoderSession) forward(ctx context.Context, batch []encoding) ([]float32, []int64, []int64, error) {
	B, S := len(batch), 0
	for _, r := range batch {
		S = max(S, len(r.IDs))
	}
	ids, mask, types := make([]int64, B*S), make([]int64, B*S), make([]int64, B*S)
	for b, r := range batch {
		for j := range S {
			k := b*S + j
			if j >= len(r.IDs) {
				ids[k] = int64(s.pad)
				continue
			}
			ids[k], mask[k] = int64(r.IDs[j]), 1
			if j < len(r.TypeIDs) {
				types[k] = int64(r.TypeIDs[j])
			}
		}
	}
	shape := ort.NewShape(int64(B), int64(S))
	var ts tensorList
	defer func() { destroyAll(ts.list) }()
	ts.add(idsTensor(shape, ids, s.ids32))
	if s.mask {
		ts.add(ort.NewTensor(shape, mask))
	}
	if s.types {
		ts.add(ort.NewTensor(shape, types))
	}
	if ts.err != nil {
		return nil, nil, nil, ts.err
	}
	var data []float32
	var dims []int64
	err := s.runFloat(ctx, ts.list, func(d []float32, sh []int64) {
		data, dims = append([]float32(nil), d...), sh
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return data, dims, mask, nil
}

// padID is the tokenizer's padding token's id (BERT's [PAD] is 0).
func padID(tok *tokenizer.Pipeline) int {
	for _, name := range []string{tok.SpecialTokens().PAD, "[PAD]", "<pad>"} {
		if v, ok := tok.TokenID(name); ok && name != "" {
			return v
		}
	}
	return 0
}

// EncoderEmbedder runs a BERT-family sentence-embedding model (all-MiniLM, bge, e5, gte,
// nomic …, as the onnx-community/Xenova exports publish them) on the CPU: texts get the
// prompts of config_sentence_transformers.json, BERT's [CLS] … [SEP] from the tokenizer, a cut
// to the model's max length, right padding; the vector is sentence_embedding when the graph
// has it, else last_hidden_state pooled as 1_Pooling/config.json says (mean over the mask,
// [CLS], or max), L2-normalised when modules.json lists Normalize. It is safe for concurrent
// use.
type EncoderEmbedder struct {
	s      encoderSession
	tok    *tokenizer.Pipeline
	cfg    models.SentenceConfig
	pooled bool
	id     string
	// Label names the model to a person (the folder's name unless set).
	Label string
}

// OpenEncoderEmbedder loads the BERT-family embedding model in dir; name (a repository or
// folder name, "" for the folder's) picks the prompts of models whose files name none.
func OpenEncoderEmbedder(dir, name string, o EmbedOptions) (*EncoderEmbedder, error) {
	f, info, err := openGraph(dir)
	if err != nil {
		return nil, err
	}
	eio, err := models.DescribeEmbedding(f.Model, info.Inputs, info.Outputs)
	if err != nil {
		return nil, err
	}
	if eio.PositionIDs != "" || len(eio.Past) > 0 {
		return nil, fmt.Errorf("%s takes position_ids or a past: it is a decoder, not a BERT-family encoder", f.Model)
	}
	cfg, err := models.ReadSentenceConfig(f.Dir)
	if err != nil {
		return nil, err
	}
	if cfg.Pooling == models.PoolLast {
		return nil, fmt.Errorf("%s pools at the last token: open it as a decoder embedding model", f.Dir)
	}
	cfg.FillPrompts(cmp.Or(name, filepath.Base(f.Dir)))
	if cfg.MaxLength <= 0 {
		cfg.MaxLength = encoderMaxTokens
	}
	tok, err := tokenizer.Load(f.Dir)
	if err != nil {
		return nil, fmt.Errorf("the embedding model's tokenizer: %w", err)
	}
	base, err := modelIdentity(f, info, false)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s encoder %s pooling, normalize %v, max %d, prompts %q %q", base, cfg.Pooling, cfg.Normalize, cfg.MaxLength, cfg.QueryPrompt, cfg.PassagePrompt))
	e := &EncoderEmbedder{tok: tok, cfg: cfg, pooled: eio.Pooled, id: hex.EncodeToString(h[:12]), Label: filepath.Base(f.Dir)}
	e.s = encoderSession{floatSession: floatSession{output: eio.Output}, ids32: eio.InputIDsType == "int32", mask: eio.AttentionMask != "", types: eio.TokenTypeIDs != "", pad: padID(tok)}
	if err := openEncoderSession(f.Model, o, &e.s); err != nil {
		return nil, fmt.Errorf("load the embedding model: %w", err)
	}
	return e, nil
}

// Identity names the model, its pooling, prompts and length limit.
func (e *EncoderEmbedder) Identity() string { return e.id }

// ModelName is Label.
func (e *EncoderEmbedder) ModelName() string { return e.Label }

// Config is what the folder's sentence-transformers files say (prompts filled in by name).
func (e *EncoderEmbedder) Config() models.SentenceConfig { return e.cfg }

// EmbedQuery embeds a question with the model's query prompt.
func (e *EncoderEmbedder) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	v, err := e.embed(ctx, []string{e.cfg.QueryPrompt + q}, nil)
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// EmbedPassages embeds document texts with the model's passage prompt (most have none),
// reporting progress (texts done, total) after each run.
func (e *EncoderEmbedder) EmbedPassages(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	in := texts
	if e.cfg.PassagePrompt != "" {
		in = make([]string, len(texts))
		for i, t := range texts {
			in[i] = e.cfg.PassagePrompt + t
		}
	}
	return e.embed(ctx, in, progress)
}

// EmbedTexts embeds texts as they are, without prompts (what an embeddings API serves: its
// clients add the prompts they want).
func (e *EncoderEmbedder) EmbedTexts(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	return e.embed(ctx, texts, progress)
}

// Encode is what a text is fed as: its tokens (added tokens are text) cut to fit the max
// length with the special tokens, then laid out by the post-processor.
func (e *EncoderEmbedder) Encode(text string) encoding {
	ids := e.tok.Encode(text)
	if n := max(e.cfg.MaxLength-e.tok.AddedTokens(false), 1); len(ids) > n {
		ids = ids[:n]
	}
	return e.tok.PostProcess(ids, nil, false)
}

// TokenCount is how many tokens text is embedded as before the cut (special tokens included).
func (e *EncoderEmbedder) TokenCount(text string) int {
	return len(e.tok.Encode(text)) + e.tok.AddedTokens(false)
}

// TokenLimit is the most tokens a text is embedded with.
func (e *EncoderEmbedder) TokenLimit() int { return e.cfg.MaxLength }

func (e *EncoderEmbedder) embed(ctx context.Context, texts []string, progress func(done, total int)) ([][]float32, error) {
	encs := make([]encoding, len(texts))
	for i, t := range texts {
		encs[i] = e.Encode(t)
	}
	return inBatches(ctx, encs, func(r encoding) int { return len(r.IDs) }, embedBatchTexts, embedBatchTokens, e.runBatch, progress)
}

// runBatch embeds one batch and pools each row.
func (e *EncoderEmbedder) runBatch(ctx context.Context, batch []encoding) ([][]float32, error) {
	data, dims, mask, err := e.s.forward(ctx, batch)
	if err != nil {
		return nil, err
	}
	B := len(batch)
	hidden := int(dims[len(dims)-1])
	vecs := make([][]float32, B)
	for b := range B {
		var v []float32
		if e.pooled {
			v = append([]float32(nil), data[b*hidden:(b+1)*hidden]...)
		} else {
			S := int(dims[1])
			v = pool(e.cfg.Pooling, data[b*S*hidden:(b+1)*S*hidden], mask[b*S:(b+1)*S], hidden)
		}
		if e.cfg.Normalize {
			v = normalize(v)
		}
		vecs[b] = v
	}
	return vecs, nil
}

// pool turns one row's token states [S, hidden] into a vector: the mean or max over the
// positions mask marks, or the first ([CLS]) position's.
func pool(mode string, states []float32, mask []int64, hidden int) []float32 {
	out := make([]float64, hidden)
	switch mode {
	case models.PoolCLS:
		for i := range out {
			out[i] = float64(states[i])
		}
	case models.PoolMax:
		for i := range out {
			out[i] = -1e9 // sentence-transformers' fill for masked positions
		}
		for j, m := range mask {
			for i := range hidden {
				if m != 0 {
					out[i] = max(out[i], float64(states[j*hidden+i]))
				}
			}
		}
	default: // mean
		n := 0.0
		for j, m := range mask {
			if m == 0 {
				continue
			}
			n++
			for i := range hidden {
				out[i] += float64(states[j*hidden+i])
			}
		}
		for i := range out {
			out[i] /= max(n, 1e-9)
		}
	}
	v := make([]float32, hidden)
	for i, x := range out {
		v[i] = float32(x)
	}
	return v
}

// Close releases the session; later calls fail.
func (e *EncoderEmbedder) Close() error { return e.s.close() }
