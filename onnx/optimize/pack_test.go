package optimize_test

import (
	"testing"

	"edgechat/inference/ort/env"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// TestPackMatMuls: each layer's query, key and value projections and its gate and up
// projections (five int4 MatMulNBits) become two over stacked weights, read from the graph
// or from its external data file, and the logits stay the published graph's (or, with the
// rewrites that change the outputs, its copy with those rewrites only) through a prefill and
// decoding steps.
func TestPackMatMuls(t *testing.T) {
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	q4 := synth.Tiny()
	q4.Quant = synth.QuantQ4
	ext := q4
	ext.ExternalData = true
	all := optimize.Options{AccuracyLevel: 4, FuseRMSNorm: true, SkipNorm: true, PackMatMuls: true, LastRows: true, LastLayerRows: true, SharedKVAttention: true, RotaryRows: 256}
	for _, tc := range []struct {
		name   string
		o      synth.Options
		opts   optimize.Options
		packed int
	}{
		{"q4", q4, optimize.Options{PackMatMuls: true}, 5 * q4.Layers},
		{"q4 external data", ext, optimize.Options{PackMatMuls: true}, 5 * q4.Layers},
		{"q4 with the decoders' rewrites", ext, all, 5 * q4.Layers},
		{"fp32: no MatMulNBits", synth.Tiny(), optimize.Options{PackMatMuls: true}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, tc.o)
			out, rep, err := optimize.Cached(path, t.TempDir(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Packed != tc.packed {
				t.Fatalf("packed %d MatMulNBits, want %d", rep.Packed, tc.packed)
			}
			before, _ := proto.ReadInfo(path)
			after, err := proto.ReadInfo(out)
			if err != nil {
				t.Fatal(err)
			}
			nb := proto.OpKey("com.microsoft", "MatMulNBits")
			if got, want := after.Ops[nb], before.Ops[nb]-tc.packed+tc.packed/5*2; got != want {
				t.Errorf("%d MatMulNBits nodes, want %d", got, want)
			}
			testenv.CheckONNX(t, out)
			refPath, opener := path, open
			if tc.opts.LastRows || tc.opts.SharedKVAttention {
				o := tc.opts
				o.PackMatMuls = false
				if refPath, _, err = optimize.Cached(path, t.TempDir(), o); err != nil {
					t.Fatal(err)
				}
				opener = openShared
			}
			ref, got := opener(t, refPath), opener(t, out)
			ids := prompt
			for step := range 4 {
				want, err := ref.Step(ids)
				if err != nil {
					t.Fatal(err)
				}
				have, err := got.Step(ids)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) != len(have) {
					t.Fatalf("step %d: %d and %d logits", step, len(want), len(have))
				}
				scale := 0.0
				for _, x := range want {
					scale = max(scale, float64(max(x, -x)))
				}
				// Every output column is the same dot product over the same blocks.
				if d := maxDiff(want, have) / scale; !(d < 1e-6) {
					t.Fatalf("step %d: logits differ by %.3g of the largest", step, d)
				}
				ids = []int{(step*31 + 7) % 256}
			}
		})
	}
}
