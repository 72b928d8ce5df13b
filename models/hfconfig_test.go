package models

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIDList reads eos_token_id as generation_config.json files write it: Llama 2 one id,
// Phi-3.5 [32007, 32001, 32000], Gemma 3 [1, 106].
func TestIDList(t *testing.T) {
	tests := []struct {
		json string
		want IDList
		bad  bool
	}{
		{`{"eos_token_id": 2}`, IDList{2}, false},
		{`{"eos_token_id": [32007, 32001, 32000]}`, IDList{32007, 32001, 32000}, false},
		{`{"eos_token_id": [1, 106]}`, IDList{1, 106}, false},
		{`{"eos_token_id": null}`, nil, false},
		{`{}`, nil, false},
		{`{"eos_token_id": "</s>"}`, nil, true},
	}
	for _, tt := range tests {
		var g GenerationDefaults
		err := json.Unmarshal([]byte(tt.json), &g)
		if (err != nil) != tt.bad {
			t.Errorf("%s: error %v, want error %v", tt.json, err, tt.bad)
			continue
		}
		if diff := cmp.Diff(tt.want, g.EOSTokenID); !tt.bad && diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.json, diff)
		}
	}
}

// GPT-2's and GPT-Neo's config.json keys fill the standard fields where those are missing.
func TestHFConfigGPTKeys(t *testing.T) {
	for _, tc := range []struct {
		json string
		want HFConfig
	}{
		{`{"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024, "n_ctx": 1024, "vocab_size": 50257}`,
			HFConfig{ModelType: "gpt2", HiddenSize: 768, NumAttentionHeads: 12, NumHiddenLayers: 12, MaxPositionEmbeddings: 1024, VocabSize: 50257}},
		{`{"model_type": "gpt_neo", "hidden_size": 64, "num_heads": 4, "num_layers": 8, "max_position_embeddings": 2048}`,
			HFConfig{ModelType: "gpt_neo", HiddenSize: 64, NumAttentionHeads: 4, NumHiddenLayers: 8, MaxPositionEmbeddings: 2048}},
		{`{"model_type": "qwen3", "hidden_size": 1024, "num_attention_heads": 16, "max_position_embeddings": 40960, "n_positions": 7}`,
			HFConfig{ModelType: "qwen3", HiddenSize: 1024, NumAttentionHeads: 16, MaxPositionEmbeddings: 40960}},
	} {
		var c HFConfig
		if err := json.Unmarshal([]byte(tc.json), &c); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, c); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.json, diff)
		}
	}
}
