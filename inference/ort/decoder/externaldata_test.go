package decoder

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/reply"

	"edgechat/internal/testkit/synth"
)

func tinyExternal(t testing.TB, layout synth.Layout) string {
	return synthModel(t, "tiny-external-"+string(layout), func(o *synth.Options) {
		o.Layout, o.ExternalData = layout, true
	})
}

// Weights in a data file beside the graph (as full-size exports keep them) give the same
// replies as the same weights inline.
func TestExternalDataMatchesInline(t *testing.T) {
	inline := newTestEngine(t, tinyModel(t), nil)
	for _, layout := range []synth.Layout{synth.LayoutHF, synth.LayoutGenAI} {
		t.Run(string(layout), func(t *testing.T) {
			dir := tinyExternal(t, layout)
			e := newTestEngine(t, dir, nil)
			for _, p := range []string{"Tell me about the sea.", "写一首关于春天的诗"} {
				_, want := collect(t, inline, context.Background(), greedy(p, 40))
				_, got := collect(t, e, context.Background(), greedy(p, 40))
				if got.FinishReason == reply.FinishError || !slices.Equal(got.IDs, want.IDs) {
					t.Fatalf("%q: external data %v (%s), inline %v", p, got.IDs, got.FinishReason, want.IDs)
				}
			}
		})
	}
}

func TestMissingExternalDataIsAClearError(t *testing.T) {
	dir := copyModel(t, tinyExternal(t, synth.LayoutHF), filepath.Join("onnx", "model.onnx_data"))
	_, err := loadModel(dir, inference.LoadOptions{EP: inference.EP{Name: "cpu"}})
	if err == nil || !strings.Contains(err.Error(), "keeps its weights in model.onnx_data, which is missing") {
		t.Fatalf("error %v", err)
	}
}
