package decoder

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference"
	"edgechat/inference/ort/attnop"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// matMulQ4 is kernelQ4's model and the kernels of a CPU load: attention and int4 products.
func matMulQ4(t *testing.T) (string, kernels) {
	t.Helper()
	dir, k := kernelQ4(t)
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	mm, err := matMulKernel(f, inference.LoadOptions{EP: cpu1})
	if err != nil {
		t.Fatal(err)
	}
	return dir, kernels{attn: k, mm: mm}
}

// matMuls counts the MatMulNBits nodes of graph on EdgeChat's kernel and on ONNX Runtime's.
func matMuls(t *testing.T, graph string) [2]int {
	t.Helper()
	info, err := proto.ReadInfo(graph)
	if err != nil {
		t.Fatal(err)
	}
	return [2]int{attnop.MatMulNodes(info), info.Ops[proto.OpKey("com.microsoft", "MatMulNBits")]}
}

// The tiny q4 model's packed copy has 9 MatMulNBits: per layer Q, K and V as one, the output
// projection, gate and up as one and down; and the LM head.
const tinyMatMuls = 9

// matMulInt8Tolerance bounds the logits of a copy whose products run on the kernel at accuracy
// level 4 against the copy on MLAS's: both quantize the activations alike and sum each
// block's int8 products exactly, but add the blocks' float32 results in another order, and an
// ulp out of one layer can move a next layer's activation by a quantization step (1/127 of its
// block): 5.3e-7 measured on the 2-layer tiny model; 1e-4 still fails a wrong scale, bias or
// column (tens of percent).
const matMulInt8Tolerance = 1e-4

// TestMatMulKernelMatchesMLAS: the decoder on the copy whose products (and attention) run on
// EdgeChat's kernels gives the logits and greedy tokens of the copy on ONNX Runtime's
// MatMulNBits (attention on the kernels in both): at accuracy level 4 (the app's copies), on
// float-compute copies (level 0: the kernel's float path, which the check's twins use), and
// with an int8 KV cache.
func TestMatMulKernelMatchesMLAS(t *testing.T) {
	dir, k := matMulQ4(t)
	cache := t.TempDir()
	plain := openDynamic(t, dir, dynOpts{cache: cache, kern: kernels{attn: k.attn}})
	kern := openDynamic(t, dir, dynOpts{cache: cache, kern: k})
	if got := matMuls(t, kern.path); got != [2]int{tinyMatMuls, 0} {
		t.Fatalf("the kernel copy's MatMulNBits (kernel, ONNX Runtime): %v, want all %d on the kernel", got, tinyMatMuls)
	}
	if got := matMuls(t, plain.path); got != [2]int{0, tinyMatMuls} {
		t.Fatalf("the plain copy's MatMulNBits: %v", got)
	}
	t.Run("accuracy level 4", func(t *testing.T) { sameRuns(t, plain, kern, matMulInt8Tolerance) })

	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	scales, err := calibrateKV(f, plain.path, cpu1, idsOfLength(64, 3), func(float64) {})
	if err != nil {
		t.Fatal(err)
	}
	var floats, int8s []*dynamicDecoder
	for _, kern := range []kernels{{attn: k.attn}, k} {
		o := kern.apply(gqaOptions(256, cpu1))
		o.AccuracyLevel, o.FloatCompute = 0, true
		graph, _, err := optimize.Cached(f.Model, cache, o)
		if err != nil {
			t.Fatal(err)
		}
		floats = append(floats, openDynamic(t, dir, dynOpts{graph: graph}))
		q, err := optimize.CachedKVInt8(graph, cache, "test scales", func() (optimize.KVScales, error) { return scales, nil })
		if err != nil {
			t.Fatal(err)
		}
		int8s = append(int8s, openDynamic(t, dir, dynOpts{graph: q}))
	}
	if got := matMuls(t, int8s[1].path); got != [2]int{tinyMatMuls, 0} {
		t.Fatalf("the kernel copy's int8-cache twin's MatMulNBits: %v, want all on the kernel", got)
	}
	t.Run("float compute", func(t *testing.T) { sameRuns(t, floats[0], floats[1], kernelTolerance) })
	t.Run("int8 cache, float compute", func(t *testing.T) { sameRuns(t, int8s[0], int8s[1], kernelTolerance) })
}

// TestMatMulKernelLoad: Open runs the copy whose products run on the kernel where it runs,
// and otherwise the copy with its attention alone on the kernels, saying why in the log: when
// it is turned off, takes no product of the model, its copy fails its check or (then neither
// kernel runs) the kernels do not register.
func TestMatMulKernelLoad(t *testing.T) {
	dir, _ := matMulQ4(t)
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom: no registration here")
	asEver, supports, avail := verifyTolerance, matMulSupports, matMulAvailable
	tests := []struct {
		name  string
		env   string                              // MatMulKernelVar
		opts  func(o *inference.LoadOptions)      // the load's options
		reg   func(n int) error                   // registerKernels' answer to its n-th call (nil: the kernels')
		tol   func(info *proto.ModelInfo) float64 // verifyTolerance (nil: as ever)
		takes func(k, n, bits, block int) bool    // matMulSupports (nil: the kernel's)
		avail func() error                        // matMulAvailable (nil: the build's)
		// twice opens the model a first time as it comes, then again with reg.
		twice bool
		// int8Prompts: the load has an int8 prompt twin, its LM head on the kernel.
		int8Prompts bool
		mm          [2]int // matMuls of the graph that runs
		attn        [4]int // graphNodes of the graph that runs
		log         string // in the log
	}{
		{name: "on", mm: [2]int{tinyMatMuls, 0}, attn: [4]int{2, 0, 0, 0}, log: "int4 products run on EdgeChat's kernel"},
		{name: "int8 cache", opts: func(o *inference.LoadOptions) { o.KVCache = inference.KV8 }, mm: [2]int{tinyMatMuls, 0}, attn: [4]int{0, 0, 2, 0}, log: "the KV cache is int8"},
		{name: "automatic cache", opts: func(o *inference.LoadOptions) { o.KVCache = inference.KVAuto }, mm: [2]int{tinyMatMuls, 0}, attn: [4]int{0, 0, 2, 0}, log: "the KV cache is int8"},
		{name: "int8 prompts", opts: func(o *inference.LoadOptions) { o.PromptInt8 = true }, int8Prompts: true,
			mm: [2]int{tinyMatMuls, 0}, attn: [4]int{2, 0, 0, 0}, log: "prompts run on an int8 twin of the graph (per-row"},
		{name: "attention kernels off", opts: func(o *inference.LoadOptions) { o.PlainAttention = true },
			mm: [2]int{tinyMatMuls, 0}, attn: [4]int{0, 0, 0, 2}, log: "int4 products run on EdgeChat's kernel"},
		{name: "turned off by the load", opts: func(o *inference.LoadOptions) { o.PlainMatMul = true },
			mm: [2]int{0, tinyMatMuls}, attn: [4]int{2, 0, 0, 0}, log: "turned off"},
		{name: "turned off by " + MatMulKernelVar, env: "off", mm: [2]int{0, tinyMatMuls}, attn: [4]int{2, 0, 0, 0}, log: "turned off"},
		{name: "no product it takes", takes: func(k, n, bits, block int) bool { return false },
			mm: [2]int{0, tinyMatMuls}, attn: [4]int{2, 0, 0, 0}, log: "the kernel does not take K"},
		// Arm64's build: the attention kernels without the product; Automatic's per-row cache.
		{name: "a build without the product", opts: func(o *inference.LoadOptions) { o.KVCache = inference.KVAuto },
			avail: func() error { return errors.New("built for x86-64 only") },
			mm:    [2]int{0, tinyMatMuls}, attn: [4]int{0, 0, 2, 0}, log: "built for x86-64 only"},
		{name: "registration fails after the check", twice: true, reg: func(n int) error {
			if n > 2 { // the first calls are the two statuses' probes
				return boom
			}
			return nil
		}, mm: [2]int{0, tinyMatMuls}, attn: [4]int{0, 0, 0, 2}, log: "EdgeChat's kernels did not register"},
		{name: "the check fails", tol: func(info *proto.ModelInfo) float64 {
			if attnop.MatMulNodes(info) > 0 {
				return -1
			}
			return asEver(info)
		}, mm: [2]int{0, tinyMatMuls}, attn: [4]int{2, 0, 0, 0}, log: "the copy on EdgeChat's product kernel failed its check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if why := int8Refusal(); tt.int8Prompts && why != "" {
				t.Skip(why)
			}
			t.Setenv(MatMulKernelVar, tt.env)
			t.Setenv(AttnKernelVar, "")
			// The 32-bit cache unless a case says otherwise: the float32 attention kernel's.
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
			oldLog, oldReg := slog.Default(), registerKernels
			t.Cleanup(func() {
				slog.SetDefault(oldLog)
				registerKernels, verifyTolerance, matMulSupports, matMulAvailable = oldReg, asEver, supports, avail
			})
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
			if tt.takes != nil {
				matMulSupports = tt.takes
			}
			if tt.avail != nil {
				matMulAvailable = tt.avail
			}
			d, err := Open(f, o)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			graph := d.(inference.GraphFiler).GraphFile()
			if mm, attn := matMuls(t, graph), graphNodes(t, graph); mm != tt.mm || attn != tt.attn {
				t.Errorf("%s: MatMulNBits (kernel, ONNX Runtime) %v, attention (float32 kernel, int8 kernels per channel and per row, ONNX Runtime) %v; want %v, %v", graph, mm, attn, tt.mm, tt.attn)
			}
			if tt.int8Prompts {
				twins, _ := filepath.Glob(filepath.Join(o.GraphCache, "optimized", "*", promptInt8Dir, "*.onnx"))
				// The LM head and the two down projections that take their activation (FuseSwiGLU)
				// stay on the kernel: the twin does not compute SiLU·up.
				if len(twins) != 1 || matMuls(t, twins[0]) != [2]int{3, 0} {
					t.Errorf("int8 prompt twins %v: want one, its LM head and down projections on the kernel", twins)
				}
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
			// A second load takes the same graph from the verdicts kept.
			d2, err := Open(f, o)
			if err != nil {
				t.Fatal(err)
			}
			defer d2.Close()
			if again := d2.(inference.GraphFiler).GraphFile(); again != graph {
				t.Errorf("the second load runs %s, the first %s", again, graph)
			}
		})
	}
}

// TestMatMulOf says what runs a graph's products, as bench prints it.
func TestMatMulOf(t *testing.T) {
	dir, k := matMulQ4(t)
	cache := t.TempDir()
	plain := openDynamic(t, dir, dynOpts{cache: cache, kern: kernels{attn: k.attn}})
	kern := openDynamic(t, dir, dynOpts{cache: cache, kern: k})
	for _, tt := range []struct{ graph, want string }{
		{kern.path, "EdgeChat's int4 kernel (9 nodes)"},
		{plain.path, "ONNX Runtime's MatMulNBits"},
		{filepath.Join(t.TempDir(), "missing.onnx"), ""},
	} {
		if got := MatMulOf(tt.graph); got != tt.want {
			t.Errorf("MatMulOf(%s) = %q, want %q", tt.graph, got, tt.want)
		}
	}
}

// TestMatMulKernelChoice: the kernel takes the tiny q4 model's products on the CPU, not those
// of a model without 4-bit blocks of 32 free of zero points (stories260K: float32; the
// asymmetric q4 model), of a float16 model, nor another provider's.
func TestMatMulKernelChoice(t *testing.T) {
	q4, _ := kernelQ4(t)
	tests := []struct {
		name, dir string
		ep        inference.EP
		why       string // in matMulKernel's error; "" for none
	}{
		{"tiny q4", q4, cpu1, ""},
		{"stories260K", testenv.SharedModel(t, "stories260K"), cpu1, "no 4-bit MatMulNBits"},
		{"zero points", synthModel(t, "tiny-q4-zp", func(o *synth.Options) { o.Quant, o.ZeroPoints = synth.QuantQ4, true }), cpu1, "no 4-bit MatMulNBits"},
		{"float16", synthModel(t, "tiny-q4f16", func(o *synth.Options) { o.Quant, o.KVFloat16 = synth.QuantQ4F16, true }), cpu1, "float16"},
		{"another provider", q4, inference.EP{Name: "dml"}, "CPU only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := models.Open(tt.dir, "")
			if err != nil {
				t.Fatal(err)
			}
			k, err := matMulKernel(f, inference.LoadOptions{EP: tt.ep})
			switch {
			case tt.why == "" && (err != nil || k.Domain != attnop.Domain || k.Shapes == nil):
				t.Errorf("matMulKernel: %+v, %v; want the kernel's domain and shapes", k, err)
			case tt.why != "" && (err == nil || !strings.Contains(err.Error(), tt.why) || k != (optimize.MatMulKernel{})):
				t.Errorf("matMulKernel: %+v, %v; want none, because %s", k, err, tt.why)
			}
		})
	}
}

// TestMatMulKernelLayout1: the copy whose products read their weights in the kernel's layout 1
// (optimize.MatMulKernel.Cols16, the default) gives the logits and greedy tokens of the copy
// in MatMulNBits' order (LayoutVar off), every product in layout 1.
func TestMatMulKernelLayout1(t *testing.T) {
	dir, k := matMulQ4(t)
	cache := t.TempDir()
	k.mm.Cols16 = false
	plain := openDynamic(t, dir, dynOpts{cache: cache, kern: k})
	k1 := k
	k1.mm.Cols16 = true
	cols16 := openDynamic(t, dir, dynOpts{cache: cache, kern: k1})
	if plain.path == cols16.path {
		t.Fatalf("one copy %s for both layouts", plain.path)
	}
	b, err := os.ReadFile(cols16.path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte(optimize.LayoutAttr)); n < tinyMatMuls {
		t.Fatalf("%d mentions of attribute %s in the layout-1 copy, want one a product (%d)", n, optimize.LayoutAttr, tinyMatMuls)
	}
	sameRuns(t, plain, cols16, matMulInt8Tolerance)
}
