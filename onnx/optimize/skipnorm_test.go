package optimize_test

import (
	"path/filepath"
	"testing"

	"edgechat/inference/ort/env"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// TestSkipNorm: every residual Add before a norm (each layer's two but the first layer's
// input norm, which reads the embeddings, and the final norm's) becomes part of a
// SkipSimplifiedLayerNormalization, with and without the other rewrites the decoders use,
// and the logits stay the published graph's (or, with the rewrites that change the outputs,
// its copy with those rewrites only) through a prefill and decoding steps.
func TestSkipNorm(t *testing.T) {
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	q4 := synth.Tiny()
	q4.Quant = synth.QuantQ4
	tiny := synth.Tiny()
	stories := filepath.Join(testenv.SharedModel(t, "stories260K"), "onnx", "model.onnx")
	all := optimize.Options{FuseRMSNorm: true, SkipNorm: true, LastRows: true, LastLayerRows: true, SharedKVAttention: true, RotaryRows: 256}
	for _, tc := range []struct {
		name   string
		path   string
		o      optimize.Options
		prompt []int
		fused  int
	}{
		{"fp32", write(t, tiny), optimize.Options{FuseRMSNorm: true, SkipNorm: true}, prompt, 2 * tiny.Layers},
		{"q4 with the decoders' rewrites", write(t, q4), all, prompt, 2 * q4.Layers},
		{"stories260K", stories, optimize.Options{FuseRMSNorm: true, SkipNorm: true}, []int{1, 403, 407, 261, 378, 9, 33, 12}, 2 * 5},
		{"stories260K with the decoders' rewrites", stories, all, []int{1, 403, 407, 261, 378, 9, 33, 12}, 2 * 5},
		{"no SimplifiedLayerNormalization", write(t, tiny), optimize.Options{SkipNorm: true}, prompt, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, rep, err := optimize.Cached(tc.path, t.TempDir(), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.SkipNorms != tc.fused {
				t.Fatalf("fused %d residual Adds, want %d", rep.SkipNorms, tc.fused)
			}
			info, err := proto.ReadInfo(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Ops[proto.OpKey("com.microsoft", "SkipSimplifiedLayerNormalization")]; got != tc.fused {
				t.Errorf("%d SkipSimplifiedLayerNormalization nodes, want %d", got, tc.fused)
			}
			testenv.CheckONNX(t, out)
			refPath, opener := tc.path, open
			if tc.o.LastRows || tc.o.SharedKVAttention {
				o := tc.o
				o.SkipNorm = false
				if refPath, _, err = optimize.Cached(tc.path, t.TempDir(), o); err != nil {
					t.Fatal(err)
				}
				opener = openShared
			}
			ref, got := opener(t, refPath), opener(t, out)
			ids := tc.prompt
			for step := range 4 {
				want, err := ref.Step(ids)
				if err != nil {
					t.Fatal(err)
				}
				have, err := got.Step(ids)
				if err != nil {
					t.Fatal(err)
				}
				scale := 0.0
				for _, x := range want {
					scale = max(scale, float64(max(x, -x)))
				}
				// The same sums; the norm's mean of squares in another order: a few ulps.
				if len(want) != len(have) {
					t.Fatalf("step %d: %d and %d logits", step, len(want), len(have))
				}
				if d := maxDiff(want, have) / scale; !(d < 1e-5) {
					t.Fatalf("step %d: logits differ by %.3g of the largest", step, d)
				}
				ids = []int{(step*31 + 7) % 256}
			}
		})
	}
}
