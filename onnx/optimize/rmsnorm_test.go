package optimize_test

import (
	"path/filepath"
	"testing"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// TestFuseRMSNorm: every float32 RMSNorm of the Qwen3-like exports (two per layer, the query
// and key norms, the final one) and of the real stories260K export becomes one
// SimplifiedLayerNormalization, and the logits stay the original's; float16 norms are left.
func TestFuseRMSNorm(t *testing.T) {
	q4 := synth.Tiny()
	q4.Quant = synth.QuantQ4
	q4f16 := synth.Tiny()
	q4f16.Quant, q4f16.KVFloat16 = synth.QuantQ4F16, true
	tiny := synth.Tiny()
	for _, tc := range []struct {
		name   string
		path   string
		prompt []int
		norms  int
	}{
		{"fp32", write(t, tiny), prompt, 4*tiny.Layers + 1},
		{"q4", write(t, q4), prompt, 4*tiny.Layers + 1},
		{"q4f16: float16 norms stay", write(t, q4f16), prompt, 0},
		{"stories260K", filepath.Join(testenv.SharedModel(t, "stories260K"), "onnx", "model.onnx"), []int{1, 403, 407, 261, 378, 9, 33, 12}, 2*5 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, rep, err := optimize.Cached(tc.path, t.TempDir(), optimize.Options{FuseRMSNorm: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.RMSNorms != tc.norms {
				t.Fatalf("fused %d RMSNorms, want %d", rep.RMSNorms, tc.norms)
			}
			before, _ := proto.ReadInfo(tc.path)
			after, err := proto.ReadInfo(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := after.Ops["SimplifiedLayerNormalization"] - before.Ops["SimplifiedLayerNormalization"]; got != tc.norms {
				t.Errorf("%d SimplifiedLayerNormalization nodes added, want %d", got, tc.norms)
			}
			if tc.norms > 0 && after.Ops["ReduceMean"] != before.Ops["ReduceMean"]-tc.norms {
				t.Errorf("ReduceMean nodes %d → %d", before.Ops["ReduceMean"], after.Ops["ReduceMean"])
			}
			testenv.CheckONNX(t, out)
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
			// Division against multiplication by the reciprocal: a few float32 ulps per norm.
			if d := maxDiff(want, got) / scale; !(d < 1e-5) {
				t.Errorf("logits differ by %.3g of the largest", d)
			}
		})
	}
}
