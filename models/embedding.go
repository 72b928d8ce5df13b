package models

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"edgechat/onnx/proto"
)

// Kinds of model folder.
const (
	KindChat      = "chat"      // a decoder with logits: it writes replies
	KindEmbedding = "embedding" // a text encoder: it turns texts into vectors
)

// embeddingOutputs are the outputs of text-embedding exports, in order of preference: the
// pooled sentence_embedding [batch, hidden] of sentence-transformers exports, then the hidden
// states [batch, seq, hidden] that Qwen3-Embedding's exports return (pooled by the caller).
var embeddingOutputs = []string{"sentence_embedding", "last_hidden_state"}

// EmbeddingIO is what an embedding graph takes and gives.
type EmbeddingIO struct {
	InputIDs      string
	InputIDsType  string
	AttentionMask string // "" when the graph has none
	PositionIDs   string // "" when the graph has none
	TokenTypeIDs  string // "" when the graph has none (BERT-family encoders have it)
	// Past are the KV-cache inputs of exports that keep a decoder's cache (onnx-community's);
	// they are fed empty.
	Past    []KVPair
	KVType  string
	KVHeads int
	HeadDim int
	Output  string
	// Pooled: Output is one vector per text ([batch, hidden]), not one per token.
	Pooled bool
	Hidden int // 0 when the graph leaves it symbolic
}

// IsEmbeddingGraph reports whether a graph with these outputs is a text-embedding model: it
// returns hidden states or sentence embeddings, and no logits.
func IsEmbeddingGraph(out []proto.IO) bool {
	has := func(name string) bool {
		return slices.ContainsFunc(out, func(v proto.IO) bool { return v.Name == name })
	}
	if has("logits") {
		return false
	}
	return slices.ContainsFunc(embeddingOutputs, has)
}

// DescribeEmbedding reads an embedding graph's interface, or says why the graph is not one.
func DescribeEmbedding(path string, in, out []proto.IO) (*EmbeddingIO, error) {
	if !IsEmbeddingGraph(out) {
		return nil, fmt.Errorf("%s is not a text-embedding model: it has no last_hidden_state or sentence_embedding output, or it has logits (outputs: %s)", path, ListNames(out))
	}
	e := &EmbeddingIO{}
	for _, v := range in {
		switch v.Name {
		case "input_ids":
			e.InputIDs, e.InputIDsType = v.Name, v.ElemType
		case "attention_mask":
			e.AttentionMask = v.Name
		case "position_ids":
			e.PositionIDs = v.Name
		case "token_type_ids":
			e.TokenTypeIDs = v.Name
		}
	}
	if e.InputIDs == "" {
		return nil, fmt.Errorf("%s is not a text-embedding model: it has no input_ids input (inputs: %s)", path, ListNames(in))
	}
	for _, name := range embeddingOutputs {
		i := slices.IndexFunc(out, func(v proto.IO) bool { return v.Name == name })
		if i < 0 {
			continue
		}
		o := out[i]
		if o.ElemType != "float32" {
			return nil, fmt.Errorf("%s returns %s %s; EdgeChat needs float32 (use the export's model.onnx or a quantized one with float32 outputs)", path, o.ElemType, name)
		}
		e.Output, e.Pooled = name, name == "sentence_embedding"
		if n := len(o.Dims); n > 0 && o.Dims[n-1].Value > 0 {
			e.Hidden = int(o.Dims[n-1].Value)
		}
		break
	}
	var err error
	if e.Past, err = KVNames(in, PastPattern, "", ""); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(e.Past) > 0 {
		for _, v := range in {
			if v.Name != e.Past[0].Key {
				continue
			}
			if len(v.Dims) != 4 || v.Dims[1].Value <= 0 || v.Dims[3].Value <= 0 {
				return nil, fmt.Errorf("%s: past key %s has shape %v; expected [batch, kv_heads, seq, head_dim]", path, v.Name, v.Dims)
			}
			e.KVType, e.KVHeads, e.HeadDim = v.ElemType, int(v.Dims[1].Value), int(v.Dims[3].Value)
		}
		if e.KVType != "float32" && e.KVType != "float16" {
			return nil, fmt.Errorf("%s: past key type %s is not supported (float32 or float16)", path, e.KVType)
		}
	}
	return e, nil
}

// Kind tells a chat model from an embedding model or a reranker by the folder's graph (layout A only:
// embedding exports ship as Hugging Face folders). Folders it cannot read are chat models
// as far as Kind goes; opening them reports the problem.
func (f *Folder) Kind() string {
	if f.Layout != LayoutHF || f.Model == "" {
		return KindChat
	}
	info, err := proto.ReadInfo(f.Model)
	switch {
	case err != nil:
		return KindChat
	case IsRerankerGraph(info.Outputs):
		return KindReranker
	case IsEmbeddingGraph(info.Outputs):
		return KindEmbedding
	}
	return KindChat
}

// IsEmbeddingModel reports whether dir holds a text-embedding model.
func IsEmbeddingModel(dir string) bool { return KindOf(dir) == KindEmbedding }

// KindOf is the Kind of the model in dir (KindChat when it cannot be read).
func KindOf(dir string) string {
	f, err := Open(dir, "")
	if err != nil {
		return KindChat
	}
	return f.Kind()
}

// QueryPrompt is the instruction an embedding model wants before a search query: the
// "query" prompt of its config_sentence_transformers.json, else Qwen3-Embedding's for web
// search (documents are embedded as they are).
func (f *Folder) QueryPrompt() string {
	const qwen3 = "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:"
	b, err := os.ReadFile(filepath.Join(f.Dir, "config_sentence_transformers.json"))
	if err != nil {
		return qwen3
	}
	var c struct {
		Prompts map[string]string `json:"prompts"`
	}
	if json.Unmarshal(b, &c) != nil {
		return qwen3
	}
	if p, ok := c.Prompts["query"]; ok {
		return p
	}
	return qwen3
}
