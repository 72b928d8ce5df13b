package decoder

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// normNodes counts a graph's norm nodes (SkipSimplifiedLayerNormalization and
// SimplifiedLayerNormalization) and all its nodes.
func normNodes(t *testing.T, graph string) (norms, total int) {
	t.Helper()
	info := mustInfo(t, graph)
	for _, c := range info.Ops {
		total += c
	}
	return info.Ops[proto.OpKey("com.microsoft", "SkipSimplifiedLayerNormalization")] + info.Ops[proto.OpKey("", "SimplifiedLayerNormalization")], total
}

// TestPreNormMatchesUnfused: the decoder on the copy whose products take the norms they read
// (FusePreNorm) gives the same logits, to the bit, and greedy tokens as the copy that keeps the
// norms as nodes, both on EdgeChat's product kernel: the kernel rounds each norm as ONNX
// Runtime's node does, so each product quantizes the same values. At accuracy level 4 (the
// app's copies) and on float-compute twins (level 0, which the copy's check uses). The fused
// copy has two norm nodes a layer fewer (the first layer's plain norm and the skip norms; the
// final norm, read through the LM head's row Slice, stays).
func TestPreNormMatchesUnfused(t *testing.T) {
	dir, k := matMulQ4(t)
	k.swiglu = true
	cache := t.TempDir()
	fusedK := k
	fusedK.prenorm = true
	plain := openDynamic(t, dir, dynOpts{cache: cache, kern: k})
	fused := openDynamic(t, dir, dynOpts{cache: cache, kern: fusedK})
	const layers = 2
	r0, n0 := normNodes(t, plain.path)
	r1, n1 := normNodes(t, fused.path)
	if r0 != 2*layers+1 || r1 != 1 || n0-n1 != 2*layers {
		t.Fatalf("norms, all nodes: unfused %d, %d; fused %d, %d: want %d norms, then 1 and %d nodes fewer", r0, n0, r1, n1, 2*layers+1, 2*layers)
	}
	if got := matMuls(t, fused.path); got != [2]int{tinyMatMuls, 0} {
		t.Fatalf("the fused copy's MatMulNBits (kernel, ONNX Runtime): %v, want all %d on the kernel", got, tinyMatMuls)
	}
	t.Run("accuracy level 4", func(t *testing.T) {
		if d := sameRuns(t, plain, fused, 0); d != 0 {
			t.Errorf("largest logit difference %.2e, want 0", d)
		}
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
		if want := map[bool]int{false: 0, true: 2 * layers}[kern.prenorm]; rep.PreNorm != want {
			t.Fatalf("float twin: %d products took their norm (%s), want %d", rep.PreNorm, rep.PreNormSkipped, want)
		}
		floats = append(floats, openDynamic(t, dir, dynOpts{graph: graph}))
	}
	t.Run("float compute", func(t *testing.T) {
		if d := sameRuns(t, floats[0], floats[1], 0); d != 0 {
			t.Errorf("largest logit difference %.2e, want 0", d)
		}
	})
}

// TestPreNormLoad: Open runs the copy whose products take their norms wherever the product
// kernel runs, and otherwise the copy that keeps them, saying why in the log: when PreNormVar
// turns it off, when the product kernel is off, or when the fused copy fails its check (the
// unfused copy on the kernel then runs).
func TestPreNormLoad(t *testing.T) {
	dir, _ := matMulQ4(t)
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	asEver := verifyTolerance
	tests := []struct {
		name    string
		prenorm string                              // PreNormVar
		matmul  string                              // MatMulKernelVar
		tol     func(info *proto.ModelInfo) float64 // verifyTolerance (nil: as ever)
		norms   int                                 // norm nodes of the graph that runs
		kernel  int                                 // its MatMulNBits on the kernel
		log     string                              // in the log ("": nothing asked)
	}{
		{name: "on", norms: 1, kernel: tinyMatMuls},
		{name: "turned off by " + PreNormVar, prenorm: "off", norms: 5, kernel: tinyMatMuls},
		{name: "product kernel off", matmul: "off", norms: 5, kernel: 0},
		{name: "the fused copy fails its check", tol: func(info *proto.ModelInfo) float64 {
			if info.Metadata[optimize.MetaPreNorm] != "" {
				return -1
			}
			return asEver(info)
		}, norms: 5, kernel: tinyMatMuls, log: "the norms stay nodes of their own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(PreNormVar, tt.prenorm)
			t.Setenv(MatMulKernelVar, tt.matmul)
			t.Setenv(SwiGLUVar, "")
			t.Setenv(AttnKernelVar, "")
			_, graph, logs := openChecked(t, f, tt.tol)
			if n, _ := normNodes(t, graph); n != tt.norms || matMuls(t, graph)[0] != tt.kernel {
				t.Errorf("%s: %d norms, %d MatMulNBits on the kernel; want %d, %d", graph, n, matMuls(t, graph)[0], tt.norms, tt.kernel)
			}
			if !strings.Contains(logs.String(), tt.log) {
				t.Errorf("the log does not say %q:\n%s", tt.log, logs.String())
			}
		})
	}
}

// openChecked opens the tiny q4 model f on one CPU thread with verifyTolerance tol (nil: as
// ever) and the log captured, and returns the decoder (closed when the test ends), the graph
// it runs and the log: the load tests of the copy's fusions (prenorm, swiglu) read both.
func openChecked(t *testing.T, f *models.Folder, tol func(*proto.ModelInfo) float64) (inference.Decoder, string, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	oldLog, asEver := slog.Default(), verifyTolerance
	t.Cleanup(func() { slog.SetDefault(oldLog); verifyTolerance = asEver })
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	if tol != nil {
		verifyTolerance = tol
	}
	d, err := Open(f, inference.LoadOptions{EP: cpu1, GraphCache: t.TempDir(), MaxContext: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.Forward(context.Background(), idsOfLength(20, 1)); err != nil {
		t.Fatal(err)
	}
	return d, d.(inference.GraphFiler).GraphFile(), &logs
}
