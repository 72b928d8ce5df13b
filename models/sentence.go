package models

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"edgechat/onnx/proto"
)

// KindReranker is a cross-encoder: it scores (query, passage) pairs with one logit each,
// re-ranking documents' passages; it cannot chat or embed.
const KindReranker = "reranker"

// Poolings a sentence-transformers Pooling module names, as SentenceConfig.Pooling holds them.
const (
	PoolMean = "mean"
	PoolCLS  = "cls"
	PoolMax  = "max"
	PoolLast = "lasttoken"
)

// SentenceConfig is what a sentence-transformers folder says about turning an encoder's token
// states into one vector per text, and about the texts themselves.
type SentenceConfig struct {
	// Pooling is PoolMean, PoolCLS, PoolMax or PoolLast (1_Pooling/config.json; mean
	// without one, as sentence-transformers builds a plain model).
	Pooling string
	// Normalize: modules.json lists a Normalize module (vectors are L2-normalised).
	Normalize bool
	// QueryPrompt and PassagePrompt go before questions and document text
	// (config_sentence_transformers.json's "prompts": "query", "passage" or "document").
	QueryPrompt, PassagePrompt string
	// MaxLength bounds a text's tokens, special tokens included: sentence_bert_config.json's
	// max_seq_length, else tokenizer_config.json's model_max_length, never past the
	// positions config.json's max_position_embeddings gives (0: none known).
	MaxLength int
	// ModelType and Architectures are config.json's.
	ModelType     string
	Architectures []string
}

// sentenceFiles are the files ParseSentenceConfig reads, by name relative to the folder.
var sentenceFiles = []string{"modules.json", "config_sentence_transformers.json", "sentence_bert_config.json", "tokenizer_config.json", "config.json"}

// ReadSentenceConfig reads dir's sentence-transformers files (each is optional).
func ReadSentenceConfig(dir string) (SentenceConfig, error) {
	files := map[string][]byte{}
	read := func(name string) error {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			files[name] = b
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	for _, name := range sentenceFiles {
		if err := read(name); err != nil {
			return SentenceConfig{}, err
		}
	}
	if err := read(poolingPath(files["modules.json"])); err != nil {
		return SentenceConfig{}, err
	}
	c, err := ParseSentenceConfig(files)
	if err != nil {
		return c, fmt.Errorf("%s: %w", dir, err)
	}
	return c, nil
}

type stModule struct {
	Path string `json:"path"`
	Type string `json:"type"`
}

// poolingPath is where the Pooling module of modules.json keeps its config.json.
func poolingPath(modules []byte) string {
	var mods []stModule
	if json.Unmarshal(modules, &mods) == nil {
		for _, m := range mods {
			if strings.HasSuffix(m.Type, ".Pooling") && filepath.IsLocal(m.Path) {
				return filepath.Join(m.Path, "config.json")
			}
		}
	}
	return filepath.Join("1_Pooling", "config.json")
}

// ParseSentenceConfig reads the sentence-transformers files given by name (as ReadSentenceConfig
// reads them; missing ones are absent). A file that is not the JSON it should be is an error
// naming it; a pooling EdgeChat cannot do is one naming the mode.
func ParseSentenceConfig(files map[string][]byte) (SentenceConfig, error) {
	c := SentenceConfig{Pooling: PoolMean}
	parse := func(name string, v any) error {
		b, ok := files[name]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("%s is not valid: %w", filepath.ToSlash(name), err)
		}
		return nil
	}
	var mods []stModule
	if err := parse("modules.json", &mods); err != nil {
		return c, err
	}
	for _, m := range mods {
		c.Normalize = c.Normalize || strings.HasSuffix(m.Type, ".Normalize")
	}
	pool := map[string]any{}
	poolName := poolingPath(files["modules.json"])
	if err := parse(poolName, &pool); err != nil {
		return c, err
	}
	var modes []string
	for _, m := range []struct{ key, mode string }{
		{"pooling_mode_cls_token", PoolCLS}, {"pooling_mode_mean_tokens", PoolMean}, {"pooling_mode_max_tokens", PoolMax},
		{"pooling_mode_lasttoken", PoolLast}, {"pooling_mode_mean_sqrt_len_tokens", "mean_sqrt_len"}, {"pooling_mode_weightedmean_tokens", "weightedmean"},
	} {
		if on, _ := pool[m.key].(bool); on {
			modes = append(modes, m.mode)
		}
	}
	if s, ok := pool["pooling_mode"].(string); ok && len(modes) == 0 { // the short form
		modes = []string{strings.TrimSuffix(strings.TrimSuffix(s, "_token"), "_tokens")}
	}
	switch {
	case len(modes) > 1:
		return c, fmt.Errorf("%s asks for several poolings at once (%s); EdgeChat pools one way", filepath.ToSlash(poolName), strings.Join(modes, ", "))
	case len(modes) == 1 && !slices.Contains([]string{PoolMean, PoolCLS, PoolMax, PoolLast}, modes[0]):
		return c, fmt.Errorf("%s asks for %s pooling; EdgeChat pools by mean, CLS token, max or last token", filepath.ToSlash(poolName), modes[0])
	case len(modes) == 1:
		c.Pooling = modes[0]
	}
	var st struct {
		Prompts map[string]string `json:"prompts"`
	}
	if err := parse("config_sentence_transformers.json", &st); err != nil {
		return c, err
	}
	c.QueryPrompt = st.Prompts["query"]
	c.PassagePrompt = cmp.Or(st.Prompts["passage"], st.Prompts["document"])
	var sb struct {
		MaxSeqLength int `json:"max_seq_length"`
	}
	var tc struct {
		ModelMaxLength float64 `json:"model_max_length"` // 1e30 when unset
	}
	var cfg struct {
		ModelType     string   `json:"model_type"`
		Architectures []string `json:"architectures"`
		MaxPositions  int      `json:"max_position_embeddings"`
		PadTokenID    *int     `json:"pad_token_id"`
	}
	for name, v := range map[string]any{"sentence_bert_config.json": &sb, "tokenizer_config.json": &tc, "config.json": &cfg} {
		if err := parse(name, v); err != nil {
			return c, err
		}
	}
	c.ModelType, c.Architectures = cfg.ModelType, cfg.Architectures
	switch {
	case sb.MaxSeqLength > 0:
		c.MaxLength = sb.MaxSeqLength
	case tc.ModelMaxLength > 0 && tc.ModelMaxLength < 1<<20:
		c.MaxLength = int(tc.ModelMaxLength)
	}
	if limit := positionLimit(cfg.ModelType, cfg.MaxPositions, cfg.PadTokenID); limit > 0 && (c.MaxLength == 0 || c.MaxLength > limit) {
		c.MaxLength = limit
	}
	return c, nil
}

// positionLimit is how many tokens the position table holds: RoBERTa-style models
// (XLM-R, bge-m3, bge-reranker) start their positions after the padding id, so 514 rows hold 512.
func positionLimit(modelType string, maxPos int, pad *int) int {
	if maxPos <= 0 {
		return 0
	}
	switch modelType {
	case "roberta", "xlm-roberta", "camembert":
		off := 2
		if pad != nil {
			off = *pad + 1
		}
		return max(0, maxPos-off)
	}
	return maxPos
}

// encoderTypes are config.json model types of bidirectional text encoders (BERT family).
var encoderTypes = []string{"bert", "roberta", "xlm-roberta", "distilbert", "mpnet", "nomic_bert", "electra",
	"camembert", "albert", "deberta", "deberta-v2", "modernbert", "new", "jina_bert"}

// IsEncoder reports whether the folder's model is a BERT-family encoder (pooled by mean,
// CLS or max, right-padded, absolute positions), not a decoder read for embeddings.
func (c SentenceConfig) IsEncoder(in []proto.IO) bool {
	if slices.Contains(encoderTypes, c.ModelType) {
		return true
	}
	return c.ModelType == "" && slices.ContainsFunc(in, func(v proto.IO) bool { return v.Name == "token_type_ids" })
}

// RerankerIO is what a cross-encoder graph takes and gives.
type RerankerIO struct {
	InputIDsType string
	// AttentionMask and TokenTypeIDs: the graph has these inputs.
	AttentionMask, TokenTypeIDs bool
	Output                      string
}

// IsRerankerGraph reports whether a graph with these outputs is a cross-encoder: logits of
// one score per row ([batch, 1]), not a decoder's [batch, seq, vocab].
func IsRerankerGraph(out []proto.IO) bool {
	i := slices.IndexFunc(out, func(v proto.IO) bool { return v.Name == "logits" })
	return i >= 0 && len(out[i].Dims) == 2 && out[i].Dims[1].Value == 1
}

// DescribeReranker reads a cross-encoder graph's interface, or says why the graph is not one.
func DescribeReranker(path string, in, out []proto.IO) (*RerankerIO, error) {
	if !IsRerankerGraph(out) {
		return nil, fmt.Errorf("%s is not a reranker: it has no logits output of one score per pair ([batch, 1]) (outputs: %s)", path, ListNames(out))
	}
	if i := slices.IndexFunc(out, func(v proto.IO) bool { return v.Name == "logits" }); out[i].ElemType != "float32" {
		return nil, fmt.Errorf("%s returns %s logits; EdgeChat needs float32 (use the export's model.onnx or a quantized one with float32 outputs)", path, out[i].ElemType)
	}
	r := &RerankerIO{Output: "logits"}
	for _, v := range in {
		switch v.Name {
		case "input_ids":
			r.InputIDsType = v.ElemType
		case "attention_mask":
			r.AttentionMask = true
		case "token_type_ids":
			r.TokenTypeIDs = true
		default:
			return nil, fmt.Errorf("%s is not a reranker EdgeChat can run: it takes %s (inputs: %s)", path, v.Name, ListNames(in))
		}
	}
	if r.InputIDsType == "" {
		return nil, fmt.Errorf("%s is not a reranker: it has no input_ids input (inputs: %s)", path, ListNames(in))
	}
	return r, nil
}

// describeEncoding says how the embedding model or reranker in f reads texts, as its
// sentence-transformers files say (or why they cannot be used).
func describeEncoding(f *Folder, reranker bool) string {
	c, err := ReadSentenceConfig(f.Dir)
	if err != nil {
		return err.Error()
	}
	var parts []string
	if reranker {
		parts = append(parts, "one score per (question, passage) pair")
	} else {
		c.FillPrompts(filepath.Base(f.Dir))
		pool := map[string]string{PoolMean: "mean", PoolCLS: "[CLS] token", PoolMax: "max", PoolLast: "last-token"}[c.Pooling]
		parts = append(parts, pool+" pooling")
		if c.Normalize || c.Pooling == PoolLast {
			parts = append(parts, "L2-normalised")
		}
	}
	if c.MaxLength > 0 && c.Pooling != PoolLast { // a decoder embedder sets its own cut
		parts = append(parts, fmt.Sprintf("at most %d tokens", c.MaxLength))
	}
	if c.QueryPrompt != "" {
		parts = append(parts, fmt.Sprintf("query prompt %q", c.QueryPrompt))
	}
	if c.PassagePrompt != "" {
		parts = append(parts, fmt.Sprintf("passage prompt %q", c.PassagePrompt))
	}
	return strings.Join(parts, ", ")
}

// Instructions of models whose folders do not carry their prompts (their model cards do).
const (
	bgeEnQuery = "Represent this sentence for searching relevant passages: "
	bgeZhQuery = "为这个句子生成表示以用于检索相关文章："
)

// FillPrompts gives a model known by its name (a folder or repository name) the prompts its
// model card asks for when its files name none: e5's "query: "/"passage: ", bge's query
// instruction (English or Chinese), nomic-embed's "search_query: "/"search_document: ".
func (c *SentenceConfig) FillPrompts(name string) {
	if c.QueryPrompt != "" || c.PassagePrompt != "" {
		return
	}
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "e5-") && !strings.Contains(n, "mistral"):
		c.QueryPrompt, c.PassagePrompt = "query: ", "passage: "
	case strings.Contains(n, "bge-") && !strings.Contains(n, "bge-m3") && !strings.Contains(n, "reranker"):
		c.QueryPrompt = bgeEnQuery
		if strings.Contains(n, "-zh") {
			c.QueryPrompt = bgeZhQuery
		}
	case strings.Contains(n, "nomic-embed"):
		c.QueryPrompt, c.PassagePrompt = "search_query: ", "search_document: "
	}
}
