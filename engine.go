package main

import (
	"context"
	"edgechat/models"
	"errors"
	"reflect"

	"edgechat/reply"

	"edgechat/config"
	"edgechat/documents"
	"edgechat/inference"
	"edgechat/inference/routes"
	"edgechat/ui"
)

// newEngine builds the engine the window talks to from the settings (routes.Build orders the
// routes). Without any route, every reply says how to configure one.
func newEngine(s config.Settings) ui.Engine {
	if demoEngine != nil {
		return demoEngine
	}
	cfg := routes.Build(routes.FromSettings(s))
	if len(cfg.Routes) == 0 {
		return noModelEngine{}
	}
	e, err := inference.New(cfg)
	if err != nil {
		return noModelEngine{}
	}
	return e
}

// demoEngine, when set (builds with the demo tag and --demo-engine), answers instead of a model.
var demoEngine ui.Engine

// documentBudget is the window attached documents must fit: the first local route's model
// (the NPU's when set: its short window is the one that must hold the passages), counted
// with its tokenizer; without a local model, an estimate over 4,096 tokens.
func documentBudget(s config.Settings) documents.Budget {
	if s.NPU.Model != "" {
		if b, err := documents.ModelBudget(s.NPU.Model, s.NPU.ModelFile, 0); err == nil {
			b.PromptLimit = s.PrefillLimit // longer prompts would go to the CPU
			return b
		}
	}
	if s.CPU.Model != "" {
		if b, err := documents.ModelBudget(s.CPU.Model, s.CPU.ModelFile, 0); err == nil {
			return b
		}
	}
	return documents.Budget{Context: 4096}
}

// isBaseModel reports whether the model that answers first (the NPU route's, else the
// CPU route's) is a base model, which the window lets complete text instead of chat.
func isBaseModel(s config.Settings) bool {
	for _, m := range []string{s.NPU.Model, s.CPU.Model} {
		if m != "" {
			return models.IsBaseModel(m)
		}
	}
	return false
}

// noModelEngine answers every request with an error a person can act on.
type noModelEngine struct{}

func (noModelEngine) Generate(ctx context.Context, req reply.Request) (<-chan reply.Event, error) {
	out := make(chan reply.Event, 1)
	out <- reply.Event{Kind: reply.EventDone, Done: &reply.Summary{
		FinishReason: reply.FinishError,
		//lint:ignore ST1005 the window shows this error as a sentence
		Err: errors.New("No model configured — open Settings and choose a model folder"),
	}}
	close(out)
	return out, nil
}

// needsNewEngine says whether settings saved as s, after saved, need a new engine: only a
// change of routes does (a new engine drops the loaded models and the conversations' KV
// caches); sampling, theme and system prompt travel with each request.
func needsNewEngine(saved, s config.Settings) bool {
	return !reflect.DeepEqual(routes.FromSettings(saved), routes.FromSettings(s))
}
