//go:build linux && amd64 && cgo

// Command kernbench measures whether a custom int4 kernel would pay for carrying a native
// library: at Qwen3-0.6B's matrix shapes it times ONNX Runtime's MatMulNBits (block 32, no zero
// points, as EdgeChat's int4 copies run it) in a one-node session at accuracy levels 0 and 4
// against this folder's own int4×int8 kernel (q4.c: llama.cpp's Q4_0×Q8_0 scheme on AVX-512
// VNNI or AVX2, the same weight bytes), on the same threads, checks both against a float64
// reference, and sums a decode step's and a prefill's matrix products over 28 layers. See
// NOTES.md for the results and the trade-off.
//
//	go run ./inference/ort/kernbench [--threads 2] [--rounds 5] [--prefill 428] [--isa avx512|avx2]
//	go run ./inference/ort/kernbench --copy /tmp/q28/onnx/model_q4.onnx   # the app's optimized copy, for tools/opprofile
//	go run ./inference/ort/kernbench --fused [--threads 2] [--rounds 30]   # gate+up as one node + Split against two
//	go run ./inference/ort/kernbench --model COPY --vs FLOATCOPY --threads 2 --spin=false   # two graphs end to end (PREFILL.md)
//	go run ./inference/ort/kernbench --attn 100,428,3000 --attn-prompt 428@0,512@2500 --threads 2 --rounds 20   # inference/ort/attnop against GroupQueryAttention (DECODE.md)
//	go run ./inference/ort/kernbench --model COPY --attn-twin --prefill 428 --decode 32 --spin=false   # the same, whole model
//	go run ./inference/ort/kernbench --ops LIB --model COPY --both-twin --ref FLOATCOPY --decode 32 --spin=false   # q4.c and attnop, alone and together
package main

/*
#cgo CFLAGS: -O3
#cgo LDFLAGS: -lm -lpthread
#include "q4.h"
*/
import "C"

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/decoder"
	"edgechat/inference/ort/env"
	"edgechat/internal/paths"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

var (
	threads     = flag.Int("threads", 2, "threads on both sides")
	rounds      = flag.Int("rounds", 30, "alternating rounds; the best of each side is reported (the machine is shared: the best is the least disturbed)")
	prefill     = flag.Int("prefill", 428, "prompt rows of the prefill shapes")
	isaFlag     = flag.String("isa", "", "force the kernel's instruction set: avx512 (VNNI) or avx2 (default: the best the CPU has)")
	only        = flag.String("only", "", "comma-separated shape names to run (default all)")
	copyOf      = flag.String("copy", "", "write the app's optimized copy of this int4 graph (GroupQueryAttention, LM head on the last row, accuracy level 4) and print its path")
	stream      = flag.Int("stream", 128<<20, "one-row shapes: weight copies of at least this many bytes in all, run in turn (so that they come from memory, not the caches)")
	e2e         = flag.String("model", "", "with --ops: run this int4 decoder graph (the app's optimized copy, see --copy) and its twin whose MatMulNBits nodes run this kernel, end to end")
	floatCopy   = flag.Bool("float", false, "--copy: the float-compute twin (MatMulNBits accuracy level 0), the reference of --ref")
	vsGraph     = flag.String("vs", "", "--model without --ops: run this second graph (e.g. the --copy --float twin) against --model end to end instead of the kernel twin")
	refGraph    = flag.String("ref", "", "--model: a float-compute twin (--copy --float) to measure both sides' logits against")
	spin        = flag.Bool("spin", true, "--model: let ONNX Runtime's threads spin while a run lasts (off: CPU time counts work only)")
	decodeN     = flag.Int("decode", 64, "--model: greedy tokens after the prefill")
	opsLib      = flag.String("ops", "", "custom-operator library built by customop/build.sh: register it, run its trivial operator, and time its Q4MatMul (this kernel on ONNX Runtime's threads) in sessions as a fourth side")
	mixFlag     = flag.String("acc0", "", "--copy: also write a copy whose MatMulNBits nodes of these shapes (comma-separated KxN, e.g. 1024x2048,1024x1024,2048x1024 for q, k, v, o) run at accuracy level 0 (PREFILL.md)")
	fusedFlag   = flag.Bool("fused", false, "time gate+up as one MatMulNBits over the concatenated weights + Split against the two nodes, at 1 and --prefill rows (PREFILL.md)")
	q4opFlag    = flag.Bool("q4op", false, "time inference/ort/attnop's MatMulNBits against MLAS's (accuracy level 4) at one row (streaming) and --prefill rows, on the app's packed Qwen3-0.6B shapes, summed as the model runs them; with --model, the copy against its twin whose MatMulNBits nodes run attnop's, end to end (PREFILL.md)")
	q4opRows    = flag.Int("q4op-rows", 0, "--q4op: only this row count (1 or --prefill; 0 both)")
	dqFlag      = flag.Bool("dq", false, "time the prefill shapes as MatMulNBits (4 and 8 bits) against DynamicQuantizeMatMul over per-column int8 weights (PREFILL.md)")
	attnFlag    = flag.String("attn", "", "check inference/ort/attnop's attention against GroupQueryAttention and time both (float32 and int8 caches) at decode steps after these comma-separated context lengths, then --attn-prompt's prompts (DECODE.md)")
	attnPrompt  = flag.String("attn-prompt", "", "with --attn: also time prompts, comma-separated ROWS@PAST (e.g. 428@0,512@2500), in the runs the app's decoder makes of them")
	attnTwin    = flag.Bool("attn-twin", false, "with --model: the twin runs inference/ort/attnop in place of GroupQueryAttention, decode steps only, from a copy of the model's cache after --prefill tokens (DECODE.md)")
	bothTwin    = flag.Bool("both-twin", false, "with --ops --model: like --attn-twin with four sides: the copy, its q4.c twin (MatMulNBits), its attnop twin (GroupQueryAttention) and the twin with both (DECODE.md)")
	attnProfile = flag.String("attn-profile", "", "--attn-twin, --both-twin: write ONNX Runtime's per-node traces of both sides to files starting with this (-0 the copy, -1 the twin)")
	attnShort   = flag.Int("attn-short", 0, "--attn-twin, --both-twin: also time each side's decode steps from this shorter context (the prompt's first rows), in the same rounds: decode at --prefill against decode at this, in one process")
	budget      = flag.Duration("budget", 0, "least time of one timed batch of calls (0: one call, which the copies of one-row shapes make milliseconds long)")
)

// shape is one matrix product of a Qwen3-0.6B layer (or the LM head): K inputs, N outputs,
// Count times in a forward pass of the 28-layer model.
type shape struct {
	Name    string
	K, N    int
	Count   int
	Prefill bool // also in the prefill (the LM head runs on the last row only there)
}

var shapes = []shape{
	{"q", 1024, 2048, 28, true},
	{"k", 1024, 1024, 28, true},
	{"v", 1024, 1024, 28, true},
	{"o", 2048, 1024, 28, true},
	{"gate", 1024, 3072, 28, true},
	{"up", 1024, 3072, 28, true},
	{"down", 3072, 1024, 28, true},
	{"lm_head", 1024, 151936, 1, false},
}

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kernbench:", err)
		os.Exit(1)
	}
}

func run() error {
	if *copyOf != "" {
		o := decoder.CPUCopyOptions(*copyOf, 8192)
		// Its twins move com.microsoft's nodes to its own operators.
		o.AttentionKernel, o.MatMulKernel = optimize.AttentionKernel{}, optimize.MatMulKernel{}
		if *floatCopy {
			o.AccuracyLevel, o.FloatCompute = 0, true
		}
		p, _, err := optimize.Cached(*copyOf, filepath.Join(paths.CacheDir(), "bench"), o)
		if err != nil {
			return err
		}
		fmt.Println(p)
		if *mixFlag != "" {
			m, n, err := mixedCopy(p, strings.Split(*mixFlag, ","))
			if err != nil {
				return err
			}
			fmt.Printf("%s: %d MatMulNBits nodes at accuracy level 0\n", m, n)
		}
		return nil
	}
	isa := map[string]int{"": 0, "avx2": 1, "avx512": 2}[*isaFlag]
	if got := kbInit(*threads, isa); got < 0 {
		return errors.New("this CPU has neither AVX-512 VNNI nor AVX2 (or not the one --isa asks for)")
	} else {
		fmt.Printf("kernel: %s, %d threads; ONNX Runtime MatMulNBits at accuracy levels 0 and 4, %d threads; best of %d alternating rounds\n",
			map[int]string{1: "AVX2 (maddubs)", 2: "AVX-512 VNNI"}[got], *threads, *threads, *rounds)
	}
	if _, err := env.Init(""); err != nil {
		return err
	}
	if *fusedFlag {
		return fusedGateUp()
	}
	if *dqFlag {
		return dynQuant()
	}
	if *q4opFlag && *e2e != "" {
		return endToEnd(*e2e, *decodeN)
	}
	if *q4opFlag {
		return q4op()
	}
	dir, err := os.MkdirTemp("", "kernbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if *attnFlag != "" {
		pasts, err := parsePasts(*attnFlag)
		if err != nil {
			return err
		}
		return attnBench(dir, pasts)
	}
	if *e2e != "" && *attnTwin {
		return decodeTwins(*e2e, attnSides, *decodeN)
	}
	if *opsLib != "" {
		if ops, err = loadCustomOps(*opsLib); err != nil {
			return err
		}
		if err := ops.checkAffine(dir); err != nil {
			return err
		}
		if *e2e != "" && *bothTwin {
			return decodeTwins(*e2e, bothSides, *decodeN)
		}
		if *e2e != "" {
			return endToEnd(*e2e, *decodeN)
		}
	} else if *e2e != "" && *vsGraph != "" {
		return endToEnd(*e2e, *decodeN)
	} else if *e2e != "" {
		return errors.New("--model needs --ops or --vs")
	}
	bw, err := bandwidth()
	if err != nil {
		return err
	}
	fmt.Println("rate: GB/s of weights read for one row, GMAC/s for more")
	fmt.Printf("memory read bandwidth on the kernel's threads: %.1f GB/s (best of %d reads of %d MB)\n", bw, *rounds*4, *stream>>20)
	fmt.Printf("\n%-8s %5s %6s %5s | %9s %9s %9s %9s | %7s %7s %7s %7s | %6s %6s %6s | %s\n",
		"shape", "K", "N", "rows", "ort acc0", "ort acc4", "kernel", "ort+op", "rate a0", "rate a4", "rate k", "rate op", "a4/k", "a0/k", "a4/op", "max error / rms (acc0, acc4, kernel, op)")
	var sum [2][sides]float64 // [decode, prefill][side] seconds of a forward pass
	for _, s := range shapes {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), s.Name) {
			continue
		}
		rows := []int{1}
		if s.Prefill && *prefill > 1 {
			rows = append(rows, *prefill)
		}
		w := newWeights(s, 1)
		size := len(w.B) + 4*len(w.S)
		for ri, m := range rows {
			// One decode step streams ~335 MB of weights: copies enough to leave the caches.
			ws := []weights{w}
			for m == 1 && len(ws)*size < *stream {
				ws = append(ws, newWeights(s, uint64(len(ws)+1)))
			}
			r, err := measure(dir, s, ws, m)
			if err != nil {
				return fmt.Errorf("%s at %d rows: %w", s.Name, m, err)
			}
			// One row: weights read (GB/s); more rows: multiply-adds (GMAC/s).
			gb := float64(len(w.B)+4*len(w.S)) / 1e9
			if m > 1 {
				gb = float64(m) * float64(s.K) * float64(s.N) / 1e9
			}
			fmt.Printf("%-8s %5d %6d %5d | %7.3fms %7.3fms %7.3fms %7.3fms | %7.1f %7.1f %7.1f %7.1f | %6.2f %6.2f %6.2f | %.1e %.1e %.1e %.1e\n",
				s.Name, s.K, s.N, m, r.t[0]*1e3, r.t[1]*1e3, r.t[2]*1e3, r.t[3]*1e3, gb/r.t[0], gb/r.t[1], gb/r.t[2], gb/r.t[3],
				r.t[1]/r.t[2], r.t[0]/r.t[2], r.t[1]/r.t[3], r.err[0], r.err[1], r.err[2], r.err[3])
			for i := range sides {
				sum[ri][i] += float64(s.Count) * r.t[i]
			}
		}
	}
	if *only == "" {
		fmt.Printf("\n28-layer sums of the matrix products (one-node times × count):\n")
		for ri, what := range []string{"decode step (1 row, LM head included)", fmt.Sprintf("prefill (%d rows, LM head on the last row not included)", *prefill)} {
			fmt.Printf("  %-52s acc0 %8.2f ms  acc4 %8.2f ms  kernel %8.2f ms  ort+op %8.2f ms  acc4/kernel %.2f×  acc4/op %.2f×\n", what,
				sum[ri][0]*1e3, sum[ri][1]*1e3, sum[ri][2]*1e3, sum[ri][3]*1e3, sum[ri][1]/sum[ri][2], sum[ri][1]/sum[ri][3])
		}
	}
	return nil
}

// kbInit starts the kernel's threads (on the first call) and picks its instruction set: 0 the
// best the CPU has, 1 AVX2, 2 AVX-512 VNNI. It returns the one picked, or -1.
func kbInit(threads, isa int) int { return int(C.kb_init(C.int(threads), C.int(isa))) }

// weights are one matrix in MatMulNBits' layout: B [N][K/32][16] (element 2i in the low nibble,
// zero point 8) and scales [N][K/32].
type weights struct {
	B []byte
	S []float32
}

func newWeights(s shape, seed uint64) weights {
	r := rand.New(rand.NewPCG(seed, uint64(s.K*1_000_003+s.N)))
	nb := s.K / 32
	w := weights{B: make([]byte, s.N*nb*16), S: make([]float32, s.N*nb)}
	for i := range w.B {
		w.B[i] = byte(r.Uint32())
	}
	for i := range w.S {
		w.S[i] = 0.002 + 0.004*r.Float32() // about what a 1024-wide layer's weights need
	}
	return w
}

// The sides: ONNX Runtime's MatMulNBits at accuracy level 0 and 4, this kernel on its own
// threads, and this kernel as the custom operator kernbench.Q4MatMul in a session (--ops; NaN
// without).
const sides = 4

var ops *customOps

type result struct {
	t   [sides]float64 // seconds a call
	err [sides]float64 // the largest |y - reference| over the reference's rms, sampled columns
}

// oneNode writes a model of len(ws) MatMulNBits nodes side by side, each with its own weights,
// all reading A: as many copies as it takes to stream the weights from memory, as a decode
// step's 28 layers do, rather than from the caches.
// acc < 0 writes kernbench.Q4MatMul nodes instead.
func oneNode(path string, s shape, ws []weights, rows int, acc int64) error {
	g := proto.Graph{Name: "matmulnbits", Inputs: []proto.ValueInfo{{Name: "A", Type: proto.Float, Dims: proto.Dims(rows, s.K)}}}
	for i, w := range ws {
		b, sc, y := fmt.Sprint("B", i), fmt.Sprint("scales", i), fmt.Sprint("Y", i)
		n := proto.Node{Name: fmt.Sprint("mm", i), OpType: "MatMulNBits", Domain: "com.microsoft",
			Inputs: []string{"A", b, sc}, Outputs: []string{y},
			Attrs: []proto.Attr{proto.IntAttr("K", int64(s.K)), proto.IntAttr("N", int64(s.N)), proto.IntAttr("bits", 4),
				proto.IntAttr("block_size", 32), proto.IntAttr("accuracy_level", acc)}}
		if acc < 0 {
			n.OpType, n.Domain, n.Attrs = "Q4MatMul", "kernbench", n.Attrs[:2]
		}
		g.Nodes = append(g.Nodes, n)
		g.Outputs = append(g.Outputs, proto.ValueInfo{Name: y, Type: proto.Float, Dims: proto.Dims(rows, s.N)})
		g.Initializers = append(g.Initializers,
			&proto.Tensor{Name: b, DataType: proto.Uint8, Dims: []int64{int64(s.N), int64(s.K / 32), 16}, Raw: w.B},
			proto.FloatTensor(sc, []int64{int64(len(w.S))}, w.S))
	}
	m := &proto.Model{IRVersion: 10, Producer: "kernbench",
		Opsets: []proto.Opset{{Domain: "", Version: 21}, {Domain: "com.microsoft", Version: 1}, {Domain: "kernbench", Version: 1}}, Graph: g}
	return m.WriteFile(path, proto.WriteOptions{})
}

// ortSide is a one-node session with its input and output bound.
type ortSide struct {
	s *ort.AdvancedSession
	y []*ort.Tensor[float32]
}

func (o *ortSide) destroy() {
	o.s.Destroy()
	for _, y := range o.y {
		y.Destroy()
	}
}

func newORT(dir string, s shape, ws []weights, x []float32, rows int, acc int64) (*ortSide, error) {
	path := filepath.Join(dir, fmt.Sprintf("%s-%d-acc%d.onnx", s.Name, rows, acc))
	if err := oneNode(path, s, ws, rows, acc); err != nil {
		return nil, err
	}
	defer os.Remove(path)
	in, err := ort.NewTensor(ort.NewShape(int64(rows), int64(s.K)), x)
	if err != nil {
		return nil, err
	}
	side := &ortSide{}
	outs, names := []ort.Value{}, []string{}
	for i := range ws {
		y, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), int64(s.N)))
		if err != nil {
			return nil, err
		}
		side.y = append(side.y, y)
		outs, names = append(outs, y), append(names, fmt.Sprint("Y", i))
	}
	var register func(*ort.SessionOptions) error
	if acc < 0 {
		register = ops.register
	}
	o, err := benchOptions(register)
	if err != nil {
		return nil, err
	}
	defer o.Destroy()
	if side.s, err = ort.NewAdvancedSession(path, []string{"A"}, names, []ort.Value{in}, outs, o); err != nil {
		return nil, err
	}
	return side, nil
}

// benchOptions are the one-node sessions' options: *threads intra-op threads, register (if
// not nil) called on them, and spinning as the app runs its sessions — while a run lasts,
// stopped after it.
func benchOptions(register func(*ort.SessionOptions) error) (*ort.SessionOptions, error) {
	o, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	err = o.SetIntraOpNumThreads(*threads)
	if err == nil && register != nil {
		err = register(o)
	}
	for k, v := range map[string]string{"session.intra_op.allow_spinning": "1", "session.force_spinning_stop": "1"} {
		if err == nil {
			err = o.AddSessionConfigEntry(k, v)
		}
	}
	if err != nil {
		o.Destroy()
		return nil, err
	}
	return o, nil
}

// kernel holds the quantized activations' buffers.
type kernel struct {
	s     shape
	ws    []weights
	x     []float32
	rows  int
	q     []int8
	d, de []float32
	init  []int32
	y     []float32
}

// run does what the session does: each copy quantizes the activations (as every layer
// would its own) and multiplies.
func (k *kernel) run() {
	for _, w := range k.ws {
		C.kb_quant((*C.float)(&k.x[0]), C.int(k.rows), C.int(k.s.K), (*C.int8_t)(&k.q[0]), (*C.float)(&k.d[0]), (*C.int32_t)(&k.init[0]), (*C.float)(&k.de[0]))
		C.kb_matmul((*C.uint8_t)(unsafe.Pointer(&w.B[0])), (*C.float)(&w.S[0]), C.int(k.s.N), C.int(k.s.K),
			(*C.int8_t)(&k.q[0]), (*C.float)(&k.d[0]), (*C.int32_t)(&k.init[0]), (*C.float)(&k.de[0]), C.int(k.rows), (*C.float)(&k.y[0]))
	}
}

func measure(dir string, s shape, ws []weights, rows int) (result, error) {
	w := ws[0]
	var res result
	r := rand.New(rand.NewPCG(7, uint64(rows)))
	x := make([]float32, rows*s.K)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	accs := []int64{0, 4}
	if ops != nil {
		accs = append(accs, -1)
	}
	var sess []*ortSide
	for _, acc := range accs {
		o, err := newORT(dir, s, ws, x, rows, acc)
		if err != nil {
			return res, err
		}
		defer o.destroy()
		sess = append(sess, o)
	}
	k := &kernel{s: s, ws: ws, x: x, rows: rows, q: make([]int8, rows*s.K), d: make([]float32, rows*s.K/32),
		de: make([]float32, rows*s.K/8), init: make([]int32, rows*s.K/8), y: make([]float32, rows*s.N)}
	calls := []func() error{sess[0].s.Run, sess[1].s.Run, func() error { k.run(); return nil }}
	if ops != nil {
		calls = append(calls, sess[2].s.Run)
	}
	// Warm up (ONNX Runtime packs the weights on its first run) and size the batches.
	reps := [sides]int{}
	for i, f := range calls {
		if err := f(); err != nil {
			return res, err
		}
		start := time.Now()
		if err := f(); err != nil {
			return res, err
		}
		reps[i] = max(1, int(*budget/max(time.Since(start), time.Microsecond)))
	}
	res.t = [sides]float64{math.Inf(1), math.Inf(1), math.Inf(1), math.NaN()}
	res.err[3] = math.NaN()
	if ops != nil {
		res.t[3] = math.Inf(1)
	}
	for round := range *rounds {
		for j := range calls {
			i := (j + round) % len(calls) // each side first in turn
			start := time.Now()
			for range reps[i] {
				if err := calls[i](); err != nil {
					return res, err
				}
			}
			res.t[i] = min(res.t[i], time.Since(start).Seconds()/float64(reps[i]*len(ws)))
			time.Sleep(5 * time.Millisecond) // let the other side's spinning threads go to sleep
		}
	}
	// The kernel's y holds the last copy's product, the sessions' first output the first's.
	ys := [][]float32{sess[0].y[0].GetData(), sess[1].y[0].GetData(), k.y}
	if ops != nil {
		ys = append(ys, sess[2].y[0].GetData())
	}
	k.ws = ws[:1]
	k.run()
	for i, y := range ys {
		res.err[i] = relErr(s, w, x, rows, y)
	}
	return res, nil
}

// relErr compares y with a float64 reference at up to 16 rows and 64 columns: the largest
// absolute difference over the reference's root mean square.
func relErr(s shape, w weights, x []float32, rows int, y []float32) float64 {
	nb := s.K / 32
	var worst, sq float64
	var cnt int
	for m := 0; m < rows; m += max(1, rows/16) {
		for n := 0; n < s.N; n += max(1, s.N/64) {
			var ref float64
			for b := range nb {
				sc := float64(w.S[n*nb+b])
				for i := range 16 {
					v := w.B[(n*nb+b)*16+i]
					ref += sc * (float64(v&15) - 8) * float64(x[m*s.K+b*32+2*i])
					ref += sc * (float64(v>>4) - 8) * float64(x[m*s.K+b*32+2*i+1])
				}
			}
			worst = max(worst, math.Abs(float64(y[m*s.N+n])-ref))
			sq += ref * ref
			cnt++
		}
	}
	return worst / math.Sqrt(sq/float64(cnt))
}

// bandwidth reads a buffer of --stream bytes on the kernel's threads, best of a few.
func bandwidth() (float64, error) {
	buf := make([]byte, *stream+64)
	off := (64 - int(uintptr(unsafe.Pointer(&buf[0]))%64)) % 64
	p := buf[off : off+*stream]
	for i := range p {
		p[i] = byte(i)
	}
	best := math.Inf(1)
	for range *rounds * 4 {
		start := time.Now()
		C.kb_read((*C.uint8_t)(unsafe.Pointer(&p[0])), C.size_t(len(p)))
		best = min(best, time.Since(start).Seconds())
	}
	return float64(len(p)) / best / 1e9, nil
}
