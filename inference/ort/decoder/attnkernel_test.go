package decoder

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference"
	"edgechat/inference/ort/attnop"
	"edgechat/inference/sample"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// kernelQ4 is the tiny Qwen3-like q4 export (head size 16, 4 query and 2 KV heads, 2 layers),
// whose attention the kernels take; it skips where this build or CPU has no kernels.
func kernelQ4(t *testing.T) (string, optimize.AttentionKernel) {
	t.Helper()
	dir := synthModel(t, "tiny-q4", func(o *synth.Options) { o.Quant = synth.QuantQ4 })
	if err := attnop.Available(); err != nil {
		t.Skip(err)
	}
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	k, err := attnKernel(f, inference.LoadOptions{EP: cpu1})
	if err != nil {
		t.Fatal(err)
	}
	return dir, k
}

// graphNodes counts the GroupQueryAttention nodes of graph on the float32 kernel, the
// per-channel int8 kernel, the per-row int8 kernel and ONNX Runtime.
func graphNodes(t *testing.T, graph string) [4]int {
	t.Helper()
	info, err := proto.ReadInfo(graph)
	if err != nil {
		t.Fatal(err)
	}
	op := "GroupQueryAttention"
	return [4]int{info.Ops[proto.OpKey(attnop.Domain, op)], info.Ops[proto.OpKey(attnop.DomainInt8, op)], info.Ops[proto.OpKey(attnop.DomainRow, op)],
		info.Ops[proto.OpKey("com.microsoft", op)]}
}

// qkNodes counts graph's SimplifiedLayerNormalization, Split and Reshape nodes.
func qkNodes(t *testing.T, graph string) [3]int {
	t.Helper()
	info, err := proto.ReadInfo(graph)
	if err != nil {
		t.Fatal(err)
	}
	return [3]int{info.Ops["SimplifiedLayerNormalization"], info.Ops["Split"], info.Ops["Reshape"]}
}

// relDiff is the largest difference between two rows of logits relative to a's largest
// magnitude.
func relDiff(a, b []float32) float64 {
	var scale, diff float64
	for i := range a {
		scale = max(scale, math.Abs(float64(a[i])))
		diff = max(diff, math.Abs(float64(a[i]-b[i])))
	}
	return diff / max(scale, 1e-9)
}

// kernelTolerance bounds the logits of a copy on the kernels against the copy on ONNX
// Runtime's GroupQueryAttention, relative to the largest logit: the two sum in other orders.
const kernelTolerance = 1e-5

// sameRuns runs the same ids through ref and got (both dynamic decoders of one model) and
// fails at the first run whose logits differ by more than tol (relative to the largest) or
// whose greedy token differs: a prompt, greedy steps, a prompt-lookup check of several rows
// after the past, and a second turn continuing the cache after rewinding into it (KV reuse).
// It returns the largest difference seen.
func sameRuns(t *testing.T, ref, got *dynamicDecoder, tol float64) float64 {
	t.Helper()
	ctx := context.Background()
	v := ref.Vocab()
	worst := 0.0
	check := func(what string, a, b []float32, rows int) int {
		t.Helper()
		if len(a) != len(b) {
			t.Fatalf("%s: %d and %d logits", what, len(a), len(b))
		}
		for r := range rows {
			ra, rb := a[r*v:(r+1)*v], b[r*v:(r+1)*v]
			d := relDiff(ra, rb)
			worst = max(worst, d)
			if !(d <= tol) {
				t.Fatalf("%s, row %d: logits differ by %.3g of the largest (tolerance %g)", what, r, d, tol)
			}
			if ia, ib := sample.Argmax(ra), sample.Argmax(rb); ia != ib {
				t.Fatalf("%s, row %d: greedy token %d, on the kernels %d", what, r, ia, ib)
			}
		}
		return sample.Argmax(a[(rows-1)*v:])
	}
	forward := func(what string, ids []int) int {
		t.Helper()
		a, err := ref.Forward(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		a = slices.Clone(a)
		b, err := got.Forward(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		return check(what, a, b, 1)
	}
	var toks []int
	next := forward("prompt", idsOfLength(40, 1))
	for i := range 6 {
		toks = append(toks, next)
		next = forward(fmt.Sprintf("step %d", i), []int{next})
	}
	rows := []int{next, (next + 7) % v, (next + 11) % v, (next + 13) % v}
	a, err := ref.ForwardRows(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	a = slices.Clone(a)
	b, err := got.ForwardRows(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	check("prompt-lookup rows", a, b, len(rows))
	// The next turn keeps the cache up to the reply's fourth token and continues from there.
	keep := 40 + 3
	ref.Truncate(keep)
	got.Truncate(keep)
	next = forward("second turn", idsOfLength(25, 2))
	for i := range 4 {
		toks = append(toks, next)
		next = forward(fmt.Sprintf("second turn, step %d", i), []int{next})
	}
	requireVaried(t, toks)
	t.Logf("logits differ by at most %.3g of the largest", worst)
	return worst
}

// TestAttnKernelMatchesGQA: the decoder on the copy whose attention runs on EdgeChat's kernels
// gives the logits and greedy tokens of the copy on GroupQueryAttention (float32 cache), and
// the same with an int8 cache made with one set of scales (the int8 kernel's domain) on copies
// computing in float32.
func TestAttnKernelMatchesGQA(t *testing.T) {
	dir, k := kernelQ4(t)
	cache := t.TempDir()
	plain := openDynamic(t, dir, dynOpts{cache: cache})
	kern := openDynamic(t, dir, dynOpts{cache: cache, kern: kernels{attn: k}})
	if got := graphNodes(t, kern.path); got != [4]int{2, 0, 0, 0} {
		t.Fatalf("the kernel copy's attention nodes (float32 kernel, int8 kernel, ONNX Runtime): %v, want all on the float32 kernel", got)
	}
	if got := graphNodes(t, plain.path); got != [4]int{0, 0, 0, 2} {
		t.Fatalf("the plain copy's attention nodes: %v", got)
	}
	// The kernel copy's attention takes the q/k norms and packed QKV (optimize.AttentionKernel.QKNorm):
	// per layer, two SimplifiedLayerNormalization, the Split and four Reshapes fewer.
	if !k.QKNorm {
		t.Fatal("attnKernel leaves the q/k norms out of the kernels")
	}
	pn, kn := qkNodes(t, plain.path), qkNodes(t, kern.path)
	if want := [3]int{pn[0] - 2*2, pn[1] - 2, pn[2] - 4*2}; kn != want {
		t.Fatalf("the kernel copy's norms, Splits and Reshapes: %v, want %v (the plain copy's: %v)", kn, want, pn)
	}
	t.Run("float32 cache", func(t *testing.T) { sameRuns(t, plain, kern, kernelTolerance) })

	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	scales, err := calibrateKV(f, plain.path, cpu1, idsOfLength(64, 3), func(float64) {})
	if err != nil {
		t.Fatal(err)
	}
	// The int8 copies compute in float32 (MatMulNBits at accuracy level 0): with int8
	// activations an int8 cache's ulp of difference moves an activation by a quantization step
	// (1.2% of the largest logit at the sixth step), hiding whether the kernel is right.
	var int8s []*dynamicDecoder
	for _, kern := range []optimize.AttentionKernel{{}, k} {
		o := gqaOptions(256, cpu1)
		o.AccuracyLevel, o.FloatCompute, o.AttentionKernel = 0, true, kern
		graph, _, err := optimize.Cached(f.Model, cache, o)
		if err != nil {
			t.Fatal(err)
		}
		q, err := optimize.CachedKVInt8(graph, cache, "test scales", func() (optimize.KVScales, error) { return scales, nil })
		if err != nil {
			t.Fatal(err)
		}
		int8s = append(int8s, openDynamic(t, dir, dynOpts{graph: q}))
	}
	if got := graphNodes(t, int8s[1].path); got != [4]int{0, 2, 0, 0} {
		t.Fatalf("the kernel copy's int8 twin's attention nodes: %v, want all on the int8 kernel", got)
	}
	if int8s[1].io.KVType != "int8" || !int8s[1].kv.shared {
		t.Fatalf("the int8 kernel copy's cache: %s, shared %v", int8s[1].io.KVType, int8s[1].kv.shared)
	}
	t.Run("int8 cache", func(t *testing.T) { sameRuns(t, int8s[0], int8s[1], kernelTolerance) })
}

// The KV caches as AttentionOf names them.
const (
	perRow     = "8-bit KV cache, a scale per row"
	perChannel = "8-bit KV cache, calibrated scales per channel"
)

// TestAttnKernelLoad: Open runs the copy on the kernels where they run, and the copy on
// GroupQueryAttention, saying why in the log, when they are turned off, do not register (before
// the copy is made, or when a session registers them later) or their copy fails its check.
func TestAttnKernelLoad(t *testing.T) {
	dir, _ := kernelQ4(t)
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom: no registration here")
	asEver := verifyTolerance
	tests := []struct {
		name string
		env  string // AttnKernelVar
		// kvRow is KVRowVar: "off" pins the calibrated per-channel 8-bit cache, whose prompts the
		// int8 twin runs on a float32 shadow (a per-row cache's run on the kernels).
		kvRow string
		opts  func(o *inference.LoadOptions)      // the load's options
		reg   func(n int) error                   // registerKernels' answer to its n-th call (nil: the kernels')
		tol   func(info *proto.ModelInfo) float64 // verifyTolerance (nil: as ever)
		// twice opens the model a first time as it comes, then again with reg and tol.
		twice bool
		// int8Prompts: the load has an int8 prompt twin, on the float32 kernel too.
		int8Prompts bool
		want        [4]int // graphNodes of the graph that runs
		log         string // in the log
		cache       string // in AttentionOf's answer ("" = "32-bit KV cache")
	}{
		{name: "on", want: [4]int{2, 0, 0, 0}, log: "attention runs on EdgeChat's kernels"},
		{name: "int8 cache", opts: func(o *inference.LoadOptions) { o.KVCache = inference.KV8 }, want: [4]int{0, 0, 2, 0}, log: "the KV cache is int8", cache: perRow},
		{name: "int8 prompts", opts: func(o *inference.LoadOptions) { o.PromptInt8 = true }, int8Prompts: true,
			want: [4]int{2, 0, 0, 0}, log: "prompts run on an int8 twin of the graph (per-row"},
		// The kernels run the per-row cache's prompts: no twin is made.
		{name: "int8 cache and prompts", opts: func(o *inference.LoadOptions) { o.KVCache, o.PromptInt8 = inference.KV8, true },
			want: [4]int{0, 0, 2, 0}, log: "the KV cache is int8", cache: perRow},
		{name: "int8 cache and prompts, per channel", opts: func(o *inference.LoadOptions) { o.KVCache, o.PromptInt8 = inference.KV8, true },
			kvRow: "off", int8Prompts: true, want: [4]int{0, 2, 0, 0}, log: "prompts run on an int8 twin of the graph on a float32 cache", cache: perChannel},
		// Automatic: per row on the kernels, no calibration anywhere; with 8-bit prompts, the
		// 32-bit cache they run on.
		{name: "automatic cache", opts: func(o *inference.LoadOptions) { o.KVCache = inference.KVAuto }, want: [4]int{0, 0, 2, 0}, log: "the KV cache is int8", cache: perRow},
		{name: "automatic cache and int8 prompts", opts: func(o *inference.LoadOptions) { o.KVCache, o.PromptInt8 = inference.KVAuto, true }, int8Prompts: true,
			want: [4]int{2, 0, 0, 0}, log: "the KV cache is 32-bit: 8-bit prompts run on a float32 cache"},
		{name: "automatic cache, per-row cache off", opts: func(o *inference.LoadOptions) { o.KVCache = inference.KVAuto },
			kvRow: "off", want: [4]int{2, 0, 0, 0}, log: "attention runs on EdgeChat's kernels"},
		{name: "automatic cache, kernels off", opts: func(o *inference.LoadOptions) { o.KVCache, o.PlainAttention = inference.KVAuto, true },
			want: [4]int{0, 0, 0, 2}, log: "turned off"},
		{name: "turned off by the load", opts: func(o *inference.LoadOptions) { o.PlainAttention = true }, want: [4]int{0, 0, 0, 2}, log: "turned off"},
		{name: "turned off by " + AttnKernelVar, env: "off", want: [4]int{0, 0, 0, 2}, log: "turned off"},
		{name: "registration fails", reg: func(int) error { return boom }, want: [4]int{0, 0, 0, 2}, log: boom.Error()},
		{name: "registration fails after the check", twice: true, reg: func(n int) error {
			if n > 2 { // the first calls are AttnKernelStatus' and MatMulKernelStatus' probes
				return boom
			}
			return nil
		}, want: [4]int{0, 0, 0, 2}, log: "EdgeChat's kernels did not register"},
		{name: "the check fails", tol: func(info *proto.ModelInfo) float64 {
			if attnop.Nodes(info) > 0 {
				return -1
			}
			return asEver(info)
		}, want: [4]int{0, 0, 0, 2}, log: "the copy on EdgeChat's kernels failed its check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if why := int8Refusal(); tt.int8Prompts && why != "" {
				t.Skip(why)
			}
			t.Setenv(AttnKernelVar, tt.env)
			t.Setenv(KVRowVar, tt.kvRow)
			// The 32-bit cache unless a case says otherwise: the float32 kernel's.
			o := inference.LoadOptions{EP: cpu1, GraphCache: t.TempDir(), MaxContext: 256, KVCache: inference.KV32}
			if tt.opts != nil {
				tt.opts(&o)
			}
			if tt.twice {
				d, err := Open(f, o)
				if err != nil {
					t.Fatal(err)
				}
				d.Close()
			}
			var logs bytes.Buffer
			oldLog, oldReg, oldTol := slog.Default(), registerKernels, verifyTolerance
			t.Cleanup(func() { slog.SetDefault(oldLog); registerKernels, verifyTolerance = oldReg, oldTol })
			slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
			if tt.reg != nil {
				n := 0
				registerKernels = func(o *ort.SessionOptions) error {
					n++
					if err := tt.reg(n); err != nil {
						return err
					}
					return oldReg(o)
				}
			}
			if tt.tol != nil {
				verifyTolerance = tt.tol
			}
			d, err := Open(f, o)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			graph := d.(inference.GraphFiler).GraphFile()
			if got := graphNodes(t, graph); got != tt.want {
				t.Errorf("%s: attention nodes (float32 kernel, int8 kernels per channel and per row, ONNX Runtime) %v, want %v", graph, got, tt.want)
			}
			twins, _ := filepath.Glob(filepath.Join(o.GraphCache, "optimized", "*", promptInt8Dir, "*.onnx"))
			if tt.int8Prompts && (len(twins) != 1 || graphNodes(t, twins[0]) != [4]int{2, 0, 0, 0}) {
				t.Errorf("int8 prompt twins %v: want one, its attention on the float32 kernel", twins)
			}
			if !tt.int8Prompts && len(twins) != 0 {
				t.Errorf("int8 prompt twins %v written for a load that does not run them", twins)
			}
			if a, want := AttentionOf(graph), cmp.Or(tt.cache, "32-bit KV cache"); !strings.Contains(a, want) {
				t.Errorf("AttentionOf says %q, want %q", a, want)
			}
			if !strings.Contains(logs.String(), tt.log) {
				t.Errorf("the log does not say %q:\n%s", tt.log, logs.String())
			}
			if why, ok := optimize.Fallback(f.Model, o.GraphCache); ok {
				t.Errorf("the load fell back to the graph as published: %s", why)
			}
			if _, err := d.Forward(context.Background(), idsOfLength(20, 1)); err != nil {
				t.Fatal(err)
			}
			// A second load takes the same graph from the verdicts kept, without making the
			// copy without the attention rewrite again.
			d2, err := Open(f, o)
			if err != nil {
				t.Fatal(err)
			}
			defer d2.Close()
			if again := d2.(inference.GraphFiler).GraphFile(); again != graph {
				t.Errorf("the second load runs %s, the first %s", again, graph)
			}
			if base, _ := optimize.CachedPath(f.Model, o.GraphCache, graphOptions); fileExists(base) {
				t.Errorf("the copy without the attention rewrite is in the cache after the second load: %s", base)
			}
		})
	}
}

// TestAttnKernelChoice: the kernels take the tiny Qwen3-like model's attention on the CPU, not
// stories260K's (head size 8: its copies keep GroupQueryAttention and its text), nor another
// provider's.
func TestAttnKernelChoice(t *testing.T) {
	q4, _ := kernelQ4(t)
	tests := []struct {
		name, dir string
		ep        inference.EP
		why       string // in attnKernel's error; "" for none
	}{
		{"tiny q4", q4, cpu1, ""},
		{"stories260K", testenv.SharedModel(t, "stories260K"), cpu1, "head size 8"},
		{"another provider", q4, inference.EP{Name: "dml"}, "CPU only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := models.Open(tt.dir, "")
			if err != nil {
				t.Fatal(err)
			}
			k, err := attnKernel(f, inference.LoadOptions{EP: tt.ep})
			switch {
			case tt.why == "" && (err != nil || k.Domain != attnop.Domain || k.DomainInt8 != attnop.DomainInt8):
				t.Errorf("attnKernel: %+v, %v; want the kernels' domains", k, err)
			case tt.why != "" && (err == nil || !strings.Contains(err.Error(), tt.why) || k != (optimize.AttentionKernel{})):
				t.Errorf("attnKernel: %+v, %v; want none, because %s", k, err, tt.why)
			}
		})
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
