package synth

import (
	"path/filepath"

	"edgechat/onnx/proto"
)

// LayoutEmbedding is a text-embedding model shaped like the onnx-community export of
// Qwen3-Embedding: layout A's files (onnx/model.onnx, config.json, tokenizer) whose graph
// takes input_ids, attention_mask, position_ids and an (empty) past, and returns
// last_hidden_state [batch, seq, hidden] — the final norm's output, no LM head — beside the
// present keys and values. The sentence-transformers files name last-token pooling,
// normalisation and the query prompt, as the published folder does.
const LayoutEmbedding Layout = "embedding"

// QueryPrompt is the instruction Qwen3-Embedding puts before a query (documents get none).
const QueryPrompt = "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:"

// buildEmbedding is buildDecoder without the LM head: the hidden states after the final norm.
// Its linear layers are quantized as o.Quant says (q4 or int8, as the export's
// model_q4.onnx and model_quantized.onnx are); the outputs stay float32.
func buildEmbedding(o Options, w *weights) *proto.Model {
	s := hfSpec(o)
	g := newGraph()
	g.hiddenStates(o, w, s)
	g.rename("last_hidden_state")
	in, out := s.io(o)
	d := proto.Dims
	out[0] = proto.ValueInfo{Name: "last_hidden_state", Type: proto.Float, Dims: d("batch_size", "sequence_length", o.Hidden)}
	return g.model("main_graph", in, out, o.Quant == QuantQ4)
}

// writeEmbedding writes the graph and the sentence-transformers files of LayoutEmbedding.
func writeEmbedding(dir string, o Options, w *weights) error {
	if err := writeModel(filepath.Join(dir, "onnx", o.Quant.File()), buildEmbedding(o, w), o); err != nil {
		return err
	}
	files := map[string]any{
		"config_sentence_transformers.json": map[string]any{
			"prompts":             map[string]string{"query": QueryPrompt, "document": ""},
			"default_prompt_name": nil,
			"similarity_fn_name":  "cosine",
			"model_type":          "SentenceTransformer",
			"__version__":         map[string]string{"sentence_transformers": "3.4.1"},
		},
		"modules.json": []map[string]any{
			{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
			{"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
			{"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
		},
		filepath.Join("1_Pooling", "config.json"): map[string]any{
			"word_embedding_dimension": o.Hidden, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": false,
			"pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false,
			"pooling_mode_weightedmean_tokens": false, "pooling_mode_lasttoken": true, "include_prompt": true,
		},
	}
	return writeJSONFiles(dir, files)
}
