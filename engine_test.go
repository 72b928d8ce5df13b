package main

import (
	"path/filepath"
	"testing"

	"edgechat/config"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
)

func TestDocumentBudget(t *testing.T) {
	o := synth.Tiny() // 4,096 positions
	o.TokenizerDir = testenv.TokenizerDir(t, "qwen3")
	model := filepath.Join(t.TempDir(), "m")
	if err := synth.Write(model, o); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name            string
		s               config.Settings
		context, limit  int
		countsWithModel bool
	}{
		{"cpu", config.Settings{CPU: config.Route{Model: model}}, 4096, 0, true},
		{"npu first, with its prefill limit", config.Settings{NPU: config.Route{Model: model}, CPU: config.Route{Model: "/nowhere"}, PrefillLimit: 1000}, 4096, 1000, true},
		{"unreadable npu falls to the cpu", config.Settings{NPU: config.Route{Model: "/nowhere"}, CPU: config.Route{Model: model}, PrefillLimit: 1000}, 4096, 0, true},
		{"no local model", config.Settings{}, 4096, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := documentBudget(tt.s)
			if b.Context != tt.context || b.PromptLimit != tt.limit || (b.Count != nil) != tt.countsWithModel {
				t.Errorf("budget: context %d, limit %d, tokenizer %v; want %d, %d, %v", b.Context, b.PromptLimit, b.Count != nil, tt.context, tt.limit, tt.countsWithModel)
			}
		})
	}
}
