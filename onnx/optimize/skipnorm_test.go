package optimize_test

import (
	"path/filepath"
	"testing"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// TestFuseSkipNorm: every residual Add of the Qwen3-like exports (float32 and q4) and of the
// real stories260K export whose sum a norm reads — two per layer: the norm after attention,
// and the next layer's or the final norm — becomes one SkipSimplifiedLayerNormalization with
// the norm, alone and with the decoder's other rewrites, and the logits stay those of the copy
// without it; the first layer's norm (of the embedding, no Add) stays as it was.
func TestFuseSkipNorm(t *testing.T) {
	q4 := synth.Tiny()
	q4.Quant = synth.QuantQ4
	tiny := synth.Tiny()
	skipOp := proto.OpKey("com.microsoft", "SkipSimplifiedLayerNormalization")
	for _, tc := range []struct {
		name   string
		path   string
		prompt []int
		layers int
	}{
		{"fp32", write(t, tiny), prompt, tiny.Layers},
		{"q4", write(t, q4), prompt, tiny.Layers},
		{"stories260K", filepath.Join(testenv.SharedModel(t, "stories260K"), "onnx", "model.onnx"), []int{1, 403, 407, 261, 378, 9, 33, 12}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, o := range []optimize.Options{
				{FuseRMSNorm: true},
				// The decoder's rewrites (float compute: the check is of this rewrite alone).
				{FuseRMSNorm: true, LastRows: true, KeepInput: true, LastLayerRows: true, SharedKVAttention: true, RotaryRows: 64},
			} {
				ref, refRep, err := optimize.Cached(tc.path, t.TempDir(), o)
				if err != nil {
					t.Fatal(err)
				}
				o.FuseSkipNorm = true
				out, rep, err := optimize.Cached(tc.path, t.TempDir(), o)
				if err != nil {
					t.Fatal(err)
				}
				if want := 2 * tc.layers; rep.SkipNorms != want {
					t.Fatalf("%+v: fused %d residual Adds, want %d", o, rep.SkipNorms, want)
				}
				if rep.RMSNorms != refRep.RMSNorms || rep.AttentionLayers != refRep.AttentionLayers || rep.LastLayerNodes != refRep.LastLayerNodes {
					t.Errorf("%+v: the other rewrites changed: %+v, without this one %+v", o, rep, refRep)
				}
				before, _ := proto.ReadInfo(ref)
				after, err := proto.ReadInfo(out)
				if err != nil {
					t.Fatal(err)
				}
				if after.Ops[skipOp] != rep.SkipNorms || after.Ops["Add"] != before.Ops["Add"]-rep.SkipNorms ||
					after.Ops["SimplifiedLayerNormalization"] != before.Ops["SimplifiedLayerNormalization"]-rep.SkipNorms {
					t.Errorf("%+v: Add %d → %d, SimplifiedLayerNormalization %d → %d, %d fused nodes", o, before.Ops["Add"], after.Ops["Add"],
						before.Ops["SimplifiedLayerNormalization"], after.Ops["SimplifiedLayerNormalization"], after.Ops[skipOp])
				}
				testenv.CheckONNX(t, out)
				if o.SharedKVAttention {
					rel, flips := compare(t, ref, out, append([]int(nil), tc.prompt...), 8)
					if !(rel < 1e-5) || flips != 0 {
						t.Errorf("%+v: logits differ by %.3g of the largest, %d greedy picks differ", o, rel, flips)
					}
					continue
				}
				want, err := open(t, tc.path).Step(tc.prompt)
				if err != nil {
					t.Fatal(err)
				}
				got, err := open(t, out).Step(tc.prompt)
				if err != nil {
					t.Fatal(err)
				}
				scale := 0.0
				for _, x := range want {
					scale = max(scale, float64(max(x, -x)))
				}
				if d := maxDiff(want, got) / scale; !(d < 1e-5) {
					t.Errorf("%+v: logits differ from the published graph's by %.3g of the largest", o, d)
				}
			}
		})
	}
}
