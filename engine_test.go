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

// Only a change of routes makes a new engine: saving the settings unchanged (the model that
// answers chosen again) or changing what travels with each request keeps the loaded model and
// the conversations' KV caches.
func TestNeedsNewEngine(t *testing.T) {
	base := config.Settings{CPU: config.Route{Model: "/m/a", ModelFile: "model_q4.onnx", EP: "cpu"}, Theme: "dark"}
	for _, tc := range []struct {
		name string
		edit func(*config.Settings)
		want bool
	}{
		{"unchanged", func(*config.Settings) {}, false},
		{"theme", func(s *config.Settings) { s.Theme = "light" }, false},
		{"another model", func(s *config.Settings) { s.CPU.Model = "/m/b" }, true},
		{"another variant", func(s *config.Settings) { s.CPU.ModelFile = "" }, true},
		{"an NPU model", func(s *config.Settings) { s.NPU = config.Route{Model: "/m/n", EP: "qnn"} }, true},
	} {
		s := base
		tc.edit(&s)
		if got := needsNewEngine(base, s); got != tc.want {
			t.Errorf("%s: needsNewEngine = %v, want %v", tc.name, got, tc.want)
		}
	}
}
