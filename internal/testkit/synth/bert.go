package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"edgechat/onnx/proto"
)

// BertOptions shape a synthetic BERT-family model folder as the onnx-community/Xenova exports
// publish them: a sentence-transformers embedding model (all-MiniLM, bge, e5, gte) returning
// last_hidden_state, or a cross-encoder reranker (ms-marco-MiniLM, bge-reranker) returning
// logits [batch, 1]. The tokenizer is a small WordPiece vocabulary with BERT's real pipeline
// (BertNormalizer, BertPreTokenizer, [CLS]/[SEP] post-processing).
type BertOptions struct {
	Layers, Hidden, Heads, Intermediate, MaxPositions int
	Seed                                              uint64
	// Reranker writes BertForSequenceClassification (pooler and one-logit classifier).
	Reranker bool
	// Pooling is 1_Pooling/config.json's mode: "mean", "cls" or "max" (embedding models).
	Pooling string
	// Normalize lists a Normalize module in modules.json.
	Normalize bool
	// Prompts are config_sentence_transformers.json's ("query" → "query: " for e5).
	Prompts map[string]string
	// MaxSeqLength is sentence_bert_config.json's max_seq_length (0: no such file).
	MaxSeqLength int
	// NoTokenTypeIDs leaves token_type_ids out of the graph's inputs (some exports do).
	NoTokenTypeIDs bool
	// SentenceEmbedding adds the pooled, normalised sentence_embedding output beside
	// last_hidden_state (mean pooling), as some exports carry.
	SentenceEmbedding bool
	// Roberta makes it XLM-RoBERTa-shaped, as bge-reranker and bge-m3 are: positions counted
	// from the padding id + 1 over the non-padding tokens, no token_type_ids input, a table of
	// MaxPositions+2 rows; it needs a RoBERTa Tokenizer (<s>, <pad> = 1, </s>).
	Roberta bool
	// Tokenizer is a real BERT tokenizer.json to use instead of the small synthetic
	// vocabulary (the embedding matrix then has its vocabulary's rows).
	Tokenizer []byte
}

// BertTiny is a 2-layer, hidden-32 BERT with mean pooling and normalisation.
func BertTiny() BertOptions {
	return BertOptions{Layers: 2, Hidden: 32, Heads: 4, Intermediate: 64, MaxPositions: 64, Seed: 7, Pooling: "mean", Normalize: true}
}

// robertaPad is RoBERTa's padding id: its positions start after it.
const robertaPad = 1

// positionRows is the position table's length (config.json's max_position_embeddings).
func (o BertOptions) positionRows() int {
	if o.Roberta {
		return o.MaxPositions + robertaPad + 1
	}
	return o.MaxPositions
}

// bertLNEps is BERT's layer_norm_eps.
const bertLNEps = 1e-12

func (o BertOptions) validate() error {
	switch {
	case o.Layers < 1 || o.Hidden < 1 || o.Heads < 1 || o.Hidden%o.Heads != 0 || o.Intermediate < 1 || o.MaxPositions < 4:
		return fmt.Errorf("BERT shape %d layers, hidden %d, %d heads, intermediate %d, %d positions", o.Layers, o.Hidden, o.Heads, o.Intermediate, o.MaxPositions)
	case !o.Reranker && o.Pooling != "mean" && o.Pooling != "cls" && o.Pooling != "max":
		return fmt.Errorf("pooling %q: choose mean, cls or max", o.Pooling)
	case o.Reranker && o.SentenceEmbedding:
		return errors.New("a reranker has no sentence_embedding output")
	case o.Roberta && o.Tokenizer == nil:
		return errors.New("a RoBERTa-shaped model needs a RoBERTa tokenizer.json")
	}
	return nil
}

// newBertWeights draws a BERT's parameters by their Hugging Face names (matrices [in, out]).
func newBertWeights(o BertOptions, vocab int) *FamilyWeights {
	d := newWeightDraw(weightRand(Options{Seed: o.Seed}), o.Hidden)
	normal, norm, w := d.normal, d.norm, d.w
	h, ff := int64(o.Hidden), int64(o.Intermediate)
	lin := func(name string, in, out int64) {
		w.add(name+".weight", normal(int(in*out), layerGain/math.Sqrt(float64(in))), in, out)
		w.add(name+".bias", normal(int(out), 0.1), out)
	}
	w.add("embeddings.word_embeddings.weight", normal(vocab*o.Hidden, 1), int64(vocab), h)
	w.add("embeddings.position_embeddings.weight", normal(o.positionRows()*o.Hidden, 0.5), int64(o.positionRows()), h)
	types := 2
	if o.Roberta {
		types = 1
	}
	w.add("embeddings.token_type_embeddings.weight", normal(types*o.Hidden, 0.5), int64(types), h)
	norm("embeddings.LayerNorm")
	for l := range o.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		for _, x := range []string{"query", "key", "value"} {
			lin(p+"attention.self."+x, h, h)
		}
		lin(p+"attention.output.dense", h, h)
		norm(p + "attention.output.LayerNorm")
		lin(p+"intermediate.dense", h, ff)
		lin(p+"output.dense", ff, h)
		norm(p + "output.LayerNorm")
	}
	if o.Reranker {
		lin("pooler.dense", h, h)
		lin("classifier", h, 1)
	}
	return w
}

// buildBert is BertModel's forward pass (BertForSequenceClassification's with o.Reranker).
func buildBert(o BertOptions, w *FamilyWeights) *proto.Model {
	g := newGraph()
	d := proto.Dims
	in := []proto.ValueInfo{
		{Name: "input_ids", Type: proto.Int64, Dims: d("batch_size", "sequence_length")},
		{Name: "attention_mask", Type: proto.Int64, Dims: d("batch_size", "sequence_length")},
	}
	var pos string
	if o.Roberta { // create_position_ids_from_input_ids: cumsum(ids ≠ pad)·(ids ≠ pad) + pad
		real := g.cast(g.op("Not", []string{g.op("Equal", []string{"input_ids", g.scalarI64(robertaPad)})}), proto.Int64)
		pos = g.add(g.mul(g.op("CumSum", []string{real, g.scalarI64(1)}), real), g.scalarI64(robertaPad))
		o.NoTokenTypeIDs = true
	} else {
		seqLen := g.op("Shape", []string{"input_ids"}, proto.IntAttr("start", 1), proto.IntAttr("end", 2))
		pos = g.unsqueeze(g.op("Range", []string{g.scalarI64(0), g.op("Squeeze", []string{seqLen, g.i64s(0)}), g.scalarI64(1)}), 0)
	}
	x := g.op("Gather", []string{g.fw(w, "embeddings.word_embeddings.weight"), "input_ids"})
	x = g.add(x, g.op("Gather", []string{g.fw(w, "embeddings.position_embeddings.weight"), pos}))
	types := g.mul("input_ids", g.scalarI64(0)) // zeros, as BertModel's buffer when none is given
	if !o.NoTokenTypeIDs {
		in = append(in, proto.ValueInfo{Name: "token_type_ids", Type: proto.Int64, Dims: d("batch_size", "sequence_length")})
		types = "token_type_ids"
	}
	x = g.add(x, g.op("Gather", []string{g.fw(w, "embeddings.token_type_embeddings.weight"), types}))
	x = g.layerNorm(x, w, "embeddings.LayerNorm", bertLNEps)
	mask := g.unsqueeze(g.cast("attention_mask", proto.Bool), 1, 2) // [B,1,1,S]
	nh, hd := int64(o.Heads), int64(o.Hidden/o.Heads)
	toHeads := func(y string) string { return g.transpose(g.reshape(y, 0, 0, nh, hd), 0, 2, 1, 3) }
	for l := range o.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		q := toHeads(g.dense(x, w, p+"attention.self.query"))
		k := toHeads(g.dense(x, w, p+"attention.self.key"))
		v := toHeads(g.dense(x, w, p+"attention.self.value"))
		scores := g.mul(g.matmul(q, g.transpose(k, 0, 1, 3, 2)), g.scalar(float32(1/math.Sqrt(float64(hd)))))
		scores = g.op("Where", []string{mask, scores, g.scalar(-3.4028235e38)})
		att := g.reshape(g.transpose(g.matmul(g.op("Softmax", []string{scores}, proto.IntAttr("axis", -1)), v), 0, 2, 1, 3), 0, 0, nh*hd)
		x = g.layerNorm(g.add(x, g.dense(att, w, p+"attention.output.dense")), w, p+"attention.output.LayerNorm", bertLNEps)
		ff := g.dense(x, w, p+"intermediate.dense")
		e := g.op("Erf", []string{g.mul(ff, g.scalar(float32(1/math.Sqrt2)))})
		ff = g.mul(g.mul(ff, g.scalar(0.5)), g.add(e, g.scalar(1)))
		x = g.layerNorm(g.add(x, g.dense(ff, w, p+"output.dense")), w, p+"output.LayerNorm", bertLNEps)
	}
	if o.Reranker {
		cls := g.op("Gather", []string{x, g.scalarI64(0)}, proto.IntAttr("axis", 1)) // [B,H]
		pooled := g.op("Tanh", []string{g.dense(cls, w, "pooler.dense")})
		g.dense(pooled, w, "classifier")
		g.rename("logits")
		out := []proto.ValueInfo{{Name: "logits", Type: proto.Float, Dims: d("batch_size", 1)}}
		return g.model("main_graph", in, out, false)
	}
	g.op("Identity", []string{x})
	hidden := g.rename("last_hidden_state")
	out := []proto.ValueInfo{{Name: "last_hidden_state", Type: proto.Float, Dims: d("batch_size", "sequence_length", o.Hidden)}}
	if o.SentenceEmbedding { // mean over the mask, then L2
		m := g.unsqueeze(g.cast("attention_mask", proto.Float), 2)
		sum := g.op("ReduceSum", []string{g.mul(hidden, m), g.i64s(1)}, proto.IntAttr("keepdims", 0))
		count := g.op("ReduceSum", []string{m, g.i64s(1)}, proto.IntAttr("keepdims", 0))
		mean := g.op("Div", []string{sum, g.op("Max", []string{count, g.scalar(1e-9)})})
		norm := g.op("ReduceL2", []string{mean}, proto.IntsAttr("axes", -1), proto.IntAttr("keepdims", 1))
		g.op("Div", []string{mean, g.op("Max", []string{norm, g.scalar(1e-12)})})
		g.rename("sentence_embedding")
		out = append(out, proto.ValueInfo{Name: "sentence_embedding", Type: proto.Float, Dims: d("batch_size", o.Hidden)})
	}
	return g.model("main_graph", in, out, false)
}

// WriteBert writes a BERT-family model folder: onnx/model.onnx, config.json, tokenizer.json,
// tokenizer_config.json and, for an embedding model, the sentence-transformers files.
func WriteBert(dir string, o BertOptions) error {
	if err := o.validate(); err != nil {
		return fmt.Errorf("synthetic BERT options: %w", err)
	}
	vocab := BertVocab()
	var tok any = bertTokenizer(vocab, o.Reranker)
	nVocab := len(vocab)
	if o.Tokenizer != nil {
		var t struct {
			Model struct {
				Vocab map[string]int `json:"vocab"`
			} `json:"model"`
		}
		if err := json.Unmarshal(o.Tokenizer, &t); err != nil || len(t.Model.Vocab) == 0 {
			return fmt.Errorf("the tokenizer given is not a WordPiece tokenizer.json: %v", err)
		}
		nVocab = 0
		for _, id := range t.Model.Vocab {
			nVocab = max(nVocab, id+1)
		}
		tok = json.RawMessage(o.Tokenizer)
	}
	if err := writeModel(filepath.Join(dir, "onnx", "model.onnx"), buildBert(o, newBertWeights(o, nVocab)), Options{}); err != nil {
		return fmt.Errorf("write synthetic BERT to %s: %w", dir, err)
	}
	arch, modelType, tokCfg := "BertModel", "bert", map[string]any{"do_lower_case": true, "model_max_length": 512, "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]", "tokenizer_class": "BertTokenizer"}
	types, pad := 2, 0
	if o.Roberta {
		arch, modelType, types, pad = "XLMRobertaModel", "xlm-roberta", 1, robertaPad
		tokCfg = map[string]any{"model_max_length": 8192, "bos_token": "<s>", "cls_token": "<s>", "sep_token": "</s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>", "mask_token": "<mask>", "tokenizer_class": "XLMRobertaTokenizer"}
	}
	if o.Reranker {
		arch = strings.TrimSuffix(arch, "Model") + "ForSequenceClassification"
	}
	files := map[string]any{
		"config.json": map[string]any{
			"architectures": []string{arch}, "model_type": modelType, "hidden_size": o.Hidden,
			"num_hidden_layers": o.Layers, "num_attention_heads": o.Heads, "intermediate_size": o.Intermediate,
			"max_position_embeddings": o.positionRows(), "type_vocab_size": types, "vocab_size": nVocab,
			"hidden_act": "gelu", "layer_norm_eps": bertLNEps, "pad_token_id": pad,
			"position_embedding_type": "absolute", "num_labels": 1,
		},
		"tokenizer.json":        tok,
		"tokenizer_config.json": tokCfg,
	}
	if !o.Reranker {
		modules := []map[string]any{
			{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
			{"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
		}
		if o.Normalize {
			modules = append(modules, map[string]any{"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
		}
		files["modules.json"] = modules
		files[filepath.Join("1_Pooling", "config.json")] = map[string]any{
			"word_embedding_dimension": o.Hidden, "pooling_mode_cls_token": o.Pooling == "cls", "pooling_mode_mean_tokens": o.Pooling == "mean",
			"pooling_mode_max_tokens": o.Pooling == "max", "pooling_mode_mean_sqrt_len_tokens": false,
			"pooling_mode_weightedmean_tokens": false, "pooling_mode_lasttoken": false, "include_prompt": true,
		}
		prompts := o.Prompts
		if prompts == nil {
			prompts = map[string]string{}
		}
		files["config_sentence_transformers.json"] = map[string]any{
			"prompts": prompts, "default_prompt_name": nil, "similarity_fn_name": "cosine",
			"__version__": map[string]string{"sentence_transformers": "3.4.1"},
		}
		if o.MaxSeqLength > 0 {
			files["sentence_bert_config.json"] = map[string]any{"max_seq_length": o.MaxSeqLength, "do_lower_case": false}
		}
	}
	return writeJSONFiles(dir, files)
}
