package decoder

import (
	"strings"
	"testing"

	"edgechat/inference/ort/attnop"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// mlpNodes counts a graph's nodes of the MLP activation FuseSwiGLU folds: Sigmoid, Split, Mul.
func mlpNodes(t *testing.T, graph string) (sigmoid, split, mul, total int) {
	t.Helper()
	info, err := proto.ReadInfo(graph)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range info.Ops {
		total += c
	}
	return info.Ops[proto.OpKey("", "Sigmoid")], info.Ops[proto.OpKey("", "Split")], info.Ops[proto.OpKey("", "Mul")], total
}

// TestSwiGLUMatchesUnfused: the decoder on the copy whose down projections take their gated
// activation (FuseSwiGLU) gives the logits and greedy tokens of the copy that keeps Split,
// Sigmoid and the two Muls, both on EdgeChat's product kernel: at accuracy level 4 (the app's
// copies) and on float-compute twins (level 0, which the copy's check uses). The fused copy
// has each layer's Sigmoid, gate+up Split and two Muls fewer.
func TestSwiGLUMatchesUnfused(t *testing.T) {
	dir, k := matMulQ4(t)
	cache := t.TempDir()
	fusedK := k
	fusedK.swiglu = true
	plain := openDynamic(t, dir, dynOpts{cache: cache, kern: k})
	fused := openDynamic(t, dir, dynOpts{cache: cache, kern: fusedK})
	s0, sp0, m0, n0 := mlpNodes(t, plain.path)
	s1, sp1, m1, n1 := mlpNodes(t, fused.path)
	const layers = 2
	if s0 != layers || s1 != 0 || sp0-sp1 != layers || m0-m1 != 2*layers || n0-n1 != 4*layers {
		t.Fatalf("Sigmoid, Split, Mul, all nodes: unfused %d, %d, %d, %d; fused %d, %d, %d, %d: want the fused copy %d Sigmoid, Split and %d Mul fewer, no Sigmoid left",
			s0, sp0, m0, n0, s1, sp1, m1, n1, layers, 2*layers)
	}
	if got := matMuls(t, fused.path); got != [2]int{tinyMatMuls, 0} {
		t.Fatalf("the fused copy's MatMulNBits (kernel, ONNX Runtime): %v, want all %d on the kernel", got, tinyMatMuls)
	}
	t.Run("accuracy level 4", func(t *testing.T) {
		t.Logf("largest logit difference %.2e", sameRuns(t, plain, fused, swigluInt8Tolerance))
	})
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	var floats []*dynamicDecoder
	for _, kern := range []kernels{k, fusedK} {
		o := kern.apply(gqaOptions(256, cpu1))
		o.AccuracyLevel, o.FloatCompute = 0, true
		graph, rep, err := optimize.Cached(f.Model, cache, o)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 0, true: layers}[kern.swiglu]; rep.SwiGLU != want {
			t.Fatalf("float twin: %d down projections fused (%s), want %d", rep.SwiGLU, rep.SwiGLUSkipped, want)
		}
		floats = append(floats, openDynamic(t, dir, dynOpts{graph: graph}))
	}
	t.Run("float compute", func(t *testing.T) {
		t.Logf("largest logit difference %.2e", sameRuns(t, floats[0], floats[1], kernelTolerance))
	})
	if attnop.MatMulNodes(mustInfo(t, floats[1].path)) != tinyMatMuls {
		t.Errorf("the fused float twin's products are not all on the kernel")
	}
}

// swigluInt8Tolerance bounds the logits of the fused copy at accuracy level 4 against the
// unfused one: the activation differs by a few 1e-7 relative (the kernel's sigmoid against
// MLAS's), which can put an element of the down projection's input one int8 step off; 3.4e-7
// measured on the 2-layer tiny model, as matMulInt8Tolerance's kernel-against-MLAS figure.
const swigluInt8Tolerance = matMulInt8Tolerance

func mustInfo(t *testing.T, path string) *proto.ModelInfo {
	t.Helper()
	info, err := proto.ReadInfo(path)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// TestSwiGLULoad: Open runs the copy whose down projections take their activation wherever the
// product kernel runs, and otherwise the copy that keeps it, saying why in the log: when
// SwiGLUVar turns it off, when the product kernel is off, or when the fused copy fails its check
// (the unfused copy on the kernel then runs).
func TestSwiGLULoad(t *testing.T) {
	dir, _ := matMulQ4(t)
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	asEver := verifyTolerance
	tests := []struct {
		name     string
		swiglu   string                              // SwiGLUVar
		matmul   string                              // MatMulKernelVar
		tol      func(info *proto.ModelInfo) float64 // verifyTolerance (nil: as ever)
		sigmoids int                                 // Sigmoid nodes of the graph that runs
		kernel   int                                 // its MatMulNBits on the kernel
		log      string                              // in the log ("": nothing asked)
	}{
		{name: "on", sigmoids: 0, kernel: tinyMatMuls},
		{name: "turned off by " + SwiGLUVar, swiglu: "off", sigmoids: 2, kernel: tinyMatMuls},
		{name: "product kernel off", matmul: "off", sigmoids: 2, kernel: 0},
		{name: "the fused copy fails its check", tol: func(info *proto.ModelInfo) float64 {
			if info.Ops[proto.OpKey("", "Sigmoid")] == 0 {
				return -1
			}
			return asEver(info)
		}, sigmoids: 2, kernel: tinyMatMuls, log: "the down projections keep their activation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(SwiGLUVar, tt.swiglu)
			t.Setenv(MatMulKernelVar, tt.matmul)
			t.Setenv(AttnKernelVar, "")
			_, graph, logs := openChecked(t, f, tt.tol)
			if s, _, _, _ := mlpNodes(t, graph); s != tt.sigmoids || matMuls(t, graph)[0] != tt.kernel {
				t.Errorf("%s: %d Sigmoid, %d MatMulNBits on the kernel; want %d, %d", graph, s, matMuls(t, graph)[0], tt.sigmoids, tt.kernel)
			}
			if !strings.Contains(logs.String(), tt.log) {
				t.Errorf("the log does not say %q:\n%s", tt.log, logs.String())
			}
		})
	}
}
