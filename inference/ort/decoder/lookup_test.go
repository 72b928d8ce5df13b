package decoder

import (
	"context"
	"slices"
	"testing"

	"edgechat/inference"
	"edgechat/internal/testkit/testenv"
	"edgechat/reply"
)

// Prompt-lookup decoding through the engine, on real ONNX Runtime sessions (ForwardRows,
// rollback by Truncate, the shared buffer of a GroupQueryAttention graph), gives plain greedy
// decoding's ids. The stories model's greedy stories repeat phrases, so drafts are accepted
// there.
func TestLookupKeepsGreedyOutput(t *testing.T) {
	stories := testenv.SharedModel(t, "stories260K")
	for _, tc := range []struct {
		name, model string
		cache       bool
		prompt      string
		accepts     bool
	}{
		{"stories260K as published", stories, false, testenv.StoriesPrompt, true},
		{"stories260K optimized copy", stories, true, testenv.StoriesPrompt, true},
		{"genai-int4 shared buffer", tinyGenAIInt4(t), true, "The quick brown fox jumps over the lazy dog. The quick brown fox", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edit := func(rc *inference.RouteConfig) {
				rc.LoadOptions.MaxContext = 512
				if tc.cache {
					rc.LoadOptions.GraphCache = t.TempDir()
				}
			}
			e := newTestEngine(t, tc.model, edit)
			req := reply.Request{Prompt: &reply.Prompt{Text: tc.prompt}, MaxTokens: 300, Sampling: reply.Sampling{Temperature: ptr(0.0)}}
			plainReq := req
			plainReq.NoLookup = true
			_, plain := collect(t, e, context.Background(), plainReq)
			_, got := collect(t, e, context.Background(), req)
			if plain.Err != nil || got.Err != nil {
				t.Fatalf("errors: %v / %v", plain.Err, got.Err)
			}
			if !slices.Equal(got.IDs, plain.IDs) {
				t.Fatalf("with lookup %v,\nplain %v", got.IDs, plain.IDs)
			}
			if got.Lookup == nil {
				t.Fatal("lookup did not run")
			}
			t.Logf("%d tokens, %d runs, %d of %d drafted tokens accepted", len(got.IDs), got.Lookup.Runs, got.Lookup.Accepted, got.Lookup.Drafted)
			if tc.accepts && (got.Lookup.Accepted == 0 || got.Lookup.Runs >= len(got.IDs)-1) {
				t.Errorf("no draft accepted: %+v over %d tokens", *got.Lookup, len(got.IDs))
			}
		})
	}
}
