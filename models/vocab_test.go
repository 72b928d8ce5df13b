package models

import (
	"testing"
)

func TestCheckVocab(t *testing.T) {
	tests := []struct {
		name                  string
		tok, logits, declared int
		ok                    bool
	}{
		{"Qwen3: embedding padded past the tokenizer", 151669, 151936, 151936, true},
		{"Phi-3: padded by 53", 32011, 32064, 32064, true},
		{"DeepSeek-V3: padded by 465", 128815, 129280, 129280, true},
		{"Llama 3: exact", 128256, 128256, 128256, true},
		{"no vocab_size: the logits count", 151669, 151936, 0, true},
		{"Llama 3 tokenizer in a Qwen3 folder", 128256, 151936, 151936, false},
		{"Mistral v1 tokenizer in a v3 folder: 768 ids over 1%", 32000, 32768, 32768, false},
		{"more than 1,024 ids short", 260000, 262208, 262208, false},
		{"tokenizer wider than the logits", 151669, 1000, 1000, false},
		{"vocab_size over the logits: the logits count", 151669, 151936, 200000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckVocab(tt.tok, tt.logits, tt.declared)
			if (err == nil) != tt.ok {
				t.Errorf("CheckVocab(%d, %d, %d) = %v, want ok %v", tt.tok, tt.logits, tt.declared, err, tt.ok)
			}
		})
	}
}
