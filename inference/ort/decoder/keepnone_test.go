package decoder

import (
	"slices"
	"testing"

	"edgechat/inference/sample"
	"edgechat/internal/testkit/synth"
)

// TestPrefillChunksSkipLogits: on an optimized copy whose logits_to_keep may be 0, the prefill
// runs before the prompt's last compute no logits (a run would fail if the graph returned rows
// for them: its logits output is bound with none), and the prompt's last logits and the greedy
// tokens after them are those of the same prompt in one run. The tolerance is rowsCases': the
// same arithmetic in another order.
func TestPrefillChunksSkipLogits(t *testing.T) {
	for name, model := range map[string]string{
		"genai int4": tinyGenAIInt4(t),
		"hf q4":      synthModel(t, "tiny-q4", func(o *synth.Options) { o.Quant = synth.QuantQ4 }),
		"hf float32": tinyModel(t),
	} {
		t.Run(name, func(t *testing.T) {
			cache := t.TempDir()
			chunked, whole := openDynamic(t, model, dynOpts{cache: cache}), openDynamic(t, model, dynOpts{cache: cache})
			if !chunked.io.KeepNone || chunked.io.LogitsToKeep == "" {
				t.Fatalf("the copy's logits_to_keep: %q, may be 0: %v", chunked.io.LogitsToKeep, chunked.io.KeepNone)
			}
			chunked.runLen, whole.runLen = 16, 512
			prompt := vocabIDs(100, 7, chunked.Vocab())
			a, b := forward(t, chunked, prompt), forward(t, whole, prompt)
			if d := maxDiff(a, b); !(d < 5e-4) {
				t.Errorf("runs of 16 and one run differ by %g", d)
			}
			if len(chunked.Cached()) != len(prompt) {
				t.Errorf("%d tokens cached, want %d", len(chunked.Cached()), len(prompt))
			}
			next := []int{sample.Argmax(b)}
			x, y := greedyDecode(t, chunked, next, 20), greedyDecode(t, whole, next, 20)
			requireVaried(t, y)
			if !slices.Equal(x, y) {
				t.Errorf("greedy tokens after the prefill: %v in runs of 16, %v after one run", x, y)
			}
		})
	}
}
