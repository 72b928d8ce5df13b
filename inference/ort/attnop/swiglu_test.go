//go:build cgo && amd64 && (linux || windows)

package attnop

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"edgechat/onnx/proto"
)

// swigluModel is the unfused MLP tail over w as ONNX Runtime runs it: A [rows, 2K] split in
// halves gate | up, Sigmoid and Mul (SiLU, which ONNX Runtime fuses to QuickGelu), Mul by up,
// com.microsoft MatMulNBits at level; or, fused, the operator with swiglu 1 on A.
func swigluModel(w q4Weights, level int, fused bool) *proto.Model {
	m := mmModel("com.microsoft", w, level, false)
	if fused {
		m = mmModel(Domain, w, level, false, proto.IntAttr("K", int64(w.K)), proto.IntAttr("N", int64(w.N)), proto.IntAttr("swiglu", 1))
		m.Graph.Inputs[0].Dims = proto.Dims("m", "k2")
		return m
	}
	g := &m.Graph
	g.Inputs[0].Dims = proto.Dims("m", "k2")
	g.Initializers = append(g.Initializers, proto.Int64Tensor("halves", []int64{2}, []int64{int64(w.K), int64(w.K)}))
	mm := g.Nodes[0]
	mm.Inputs[0] = "h"
	g.Nodes = []proto.Node{
		{Name: "split", OpType: "Split", Inputs: []string{"A", "halves"}, Outputs: []string{"gate", "up"}, Attrs: []proto.Attr{proto.IntAttr("axis", -1)}},
		{Name: "sigmoid", OpType: "Sigmoid", Inputs: []string{"gate"}, Outputs: []string{"sig"}},
		{Name: "silu", OpType: "Mul", Inputs: []string{"gate", "sig"}, Outputs: []string{"silu"}},
		{Name: "gated", OpType: "Mul", Inputs: []string{"silu", "up"}, Outputs: []string{"h"}},
		mm,
	}
	return m
}

// Tolerances of the fused product against ONNX Runtime's unfused graph, over the rms of its
// output. The activations differ by a few 1e-7 relative (swiglu.c's sigmoid against MLAS's
// logistic approximation). Level 0 carries that through float sums: measured up to 6.7e-6 (K 4864, 32 rows).
// Level 4 quantizes h to int8: an element near a rounding boundary can land one step off, each
// moving an output by about scale_a·scale_b·|w − 8|, ~1e-3 of the rms; a handful of them in 428
// rows of 3072 values are within 5e-3 (measured: 1.4e-3 at 428 rows, under 7e-6 at the others).
const (
	tolSwiGLU0 = 1e-5
	tolSwiGLU4 = 5e-3
)

// TestSwiGLUAgainstUnfused runs the operator with swiglu 1 and ONNX Runtime's Split, Sigmoid,
// Mul, Mul and MatMulNBits on the same weights and inputs: the down projection's shape and
// smaller ones, one to 428 rows, levels 4 and 0, every loop set the CPU runs.
func TestSwiGLUAgainstUnfused(t *testing.T) {
	initORT(t)
	shapes := []struct {
		K, N int
		bias bool
		rows []int
	}{
		{3072, 1024, false, []int{1, 2, 9, 428}}, // Qwen3-0.6B down
		{96, 40, true, []int{1, 5, 13}},
		{4864, 896, false, []int{1, 32}}, // Qwen2.5-0.5B down
	}
	isas := matMulISAs(t)
	defer selectISA(isaCap())
	for _, sh := range shapes {
		w := newQ4Weights(sh.K, sh.N, sh.bias, 11)
		for _, level := range []int{4, 0} {
			ref, err := mmSession(t, swigluModel(w, level, false))
			if err != nil {
				t.Fatal(err)
			}
			ours, err := mmSession(t, swigluModel(w, level, true))
			if err != nil {
				t.Fatal(err)
			}
			for _, rows := range sh.rows {
				want, err := mmRun(t, ref, rows, 2*sh.K, false, uint64(rows))
				if err != nil {
					t.Fatal(err)
				}
				for _, which := range isas {
					if level == 0 && which != isas[0] {
						continue
					}
					t.Run(fmt.Sprintf("%dx%d/level=%d/M=%d/%s", sh.K, sh.N, level, rows, isaNames[which]), func(t *testing.T) {
						useMatMul(which)
						got, err := mmRun(t, ours, rows, 2*sh.K, false, uint64(rows))
						if err != nil {
							t.Fatal(err)
						}
						tol := map[int]float64{4: tolSwiGLU4, 0: tolSwiGLU0}[level]
						d := relDiff(got, want)
						t.Logf("largest difference from the unfused graph %.2e of its rms", d)
						if d > tol || math.IsNaN(d) {
							t.Errorf("largest difference from the unfused graph %.2e of its rms, want at most %.0e", d, tol)
						}
					})
				}
			}
		}
	}
}

// TestSwiGLUBadShapesFail: with swiglu, A must be 2K wide, and swiglu must be 0 or 1.
func TestSwiGLUBadShapesFail(t *testing.T) {
	initORT(t)
	w := newQ4Weights(128, 40, false, 3)
	kn := []proto.Attr{proto.IntAttr("K", 128), proto.IntAttr("N", 40)}
	tests := []struct {
		name   string
		swiglu int64
		cols   int
		want   string
	}{
		{"A K wide", 1, 128, "twice the attribute K"},
		{"A 2K+32 wide", 1, 288, "twice the attribute K"},
		{"swiglu 2", 2, 256, "swiglu must be 0 or 1"},
		{"no swiglu, A 2K wide", 0, 256, "A's last dimension must be the attribute K"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, rows := range []int{1, 9} {
				s, err := mmSession(t, mmModel(Domain, w, 4, false, append(kn, proto.IntAttr("swiglu", tc.swiglu))...))
				if err == nil {
					_, err = mmRun(t, s, rows, tc.cols, false, 1)
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("rows %d: got error %v, want one saying %q", rows, err, tc.want)
				}
			}
		})
	}
}
