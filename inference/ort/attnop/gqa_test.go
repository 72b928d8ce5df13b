//go:build cgo && (amd64 || arm64) && (linux || windows)

package attnop

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/env"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/proto"
)

// TestMain runs the tests on AVX2 where the CPU has AVX-512 too when EDGECHAT_ATTNOP_ISA=avx2,
// and on AVX-512 without the VNNI loops when it is avx512, so that every loop can be checked on
// one machine.
func TestMain(m *testing.M) {
	isa = selectISA(isaCap())
	os.Exit(m.Run())
}

// isaCap is the loops EDGECHAT_ATTNOP_ISA caps the tests to (0: none).
func isaCap() int {
	switch os.Getenv("EDGECHAT_ATTNOP_ISA") {
	case "avx2":
		return 1
	case "avx512":
		return 2
	}
	return 0
}

// initORT loads ONNX Runtime (the test skips when it cannot be found, as other ort tests do) and
// checks the kernels can be used.
func initORT(t testing.TB) {
	t.Helper()
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	if err := Available(); err != nil {
		t.Fatal(err)
	}
}

// shape is an attention's heads: query heads, KV heads and head size.
type shape struct{ heads, kv, dim int }

var (
	qwen3 = shape{16, 8, 128} // Qwen3-0.6B
	small = shape{4, 2, 16}
)

// gqaModel is one GroupQueryAttention node of shape sh in domain, rotary inside (cos and sin
// caches of positions rows), the cache float32 or int8 per channel (scales kScale, vScale).
func gqaModel(domain string, sh shape, quant bool, positions int, kScale, vScale []float32) *proto.Model {
	return gqaModelDims(domain, sh, quant, positions, kScale, vScale, false)
}

// gqaModelDims is gqaModel, with every dimension of the inputs and outputs symbolic when
// dynamic (so that ONNX Runtime passes any shape to the operator).
func gqaModelDims(domain string, sh shape, quant bool, positions int, kScale, vScale []float32, dynamic bool) *proto.Model {
	t := proto.Float
	if quant {
		t = proto.Int8
	}
	g := proto.Graph{Name: "attention"}
	g.Inputs = []proto.ValueInfo{
		{Name: "q", Type: proto.Float, Dims: proto.Dims(1, "s", sh.heads*sh.dim)},
		{Name: "k", Type: proto.Float, Dims: proto.Dims(1, "s", sh.kv*sh.dim)},
		{Name: "v", Type: proto.Float, Dims: proto.Dims(1, "s", sh.kv*sh.dim)},
		{Name: "past_key", Type: t, Dims: proto.Dims(1, sh.kv, "t", sh.dim)},
		{Name: "past_value", Type: t, Dims: proto.Dims(1, sh.kv, "t", sh.dim)},
		{Name: "seqlens_k", Type: proto.Int32, Dims: proto.Dims(1)},
		{Name: "total_sequence_length", Type: proto.Int32, Dims: proto.Dims(1)},
	}
	g.Outputs = []proto.ValueInfo{
		{Name: "out", Type: proto.Float, Dims: proto.Dims(1, "s", sh.heads*sh.dim)},
		{Name: "present_key", Type: t, Dims: proto.Dims(1, sh.kv, "t", sh.dim)},
		{Name: "present_value", Type: t, Dims: proto.Dims(1, sh.kv, "t", sh.dim)},
	}
	if dynamic {
		for _, vs := range [][]proto.ValueInfo{g.Inputs, g.Outputs} {
			for i := range vs {
				for j := range vs[i].Dims {
					vs[i].Dims[j] = proto.Dims(fmt.Sprintf("%s_%d", vs[i].Name, j))[0]
				}
			}
		}
	}
	half := sh.dim / 2
	cos, sin := make([]float32, positions*half), make([]float32, positions*half)
	for p := range positions {
		for i := range half {
			a := float64(p) / math.Pow(1e6, float64(2*i)/float64(sh.dim))
			cos[p*half+i], sin[p*half+i] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
	dims := []int64{int64(positions), int64(half)}
	g.Initializers = append(g.Initializers, proto.FloatTensor("cos", dims, cos), proto.FloatTensor("sin", dims, sin))
	in := []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos", "sin"}
	attrs := []proto.Attr{proto.IntAttr("num_heads", int64(sh.heads)), proto.IntAttr("kv_num_heads", int64(sh.kv)),
		proto.FloatAttr("scale", float32(1/math.Sqrt(float64(sh.dim)))), proto.IntAttr("do_rotary", 1)}
	if quant {
		n := []int64{int64(len(kScale))}
		g.Initializers = append(g.Initializers, proto.FloatTensor("k_scale", n, kScale), proto.FloatTensor("v_scale", n, vScale))
		in = append(in, "", "", "", "k_scale", "v_scale")
		attrs = append(attrs, proto.StringAttr("k_quant_type", "PER_CHANNEL"), proto.StringAttr("v_quant_type", "PER_CHANNEL"),
			proto.IntAttr("kv_cache_bit_width", 8))
	}
	g.Nodes = []proto.Node{{Name: "attention", OpType: "GroupQueryAttention", Domain: domain, Inputs: in,
		Outputs: []string{"out", "present_key", "present_value"}, Attrs: attrs}}
	return &proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}, {Domain: domain, Version: 1}}, Graph: g}
}

// scales are an int8 cache's per-channel scales for sh.
func scales(sh shape) (k, v []float32) {
	k, v = make([]float32, sh.kv*sh.dim), make([]float32, sh.kv*sh.dim)
	for i := range k {
		k[i], v[i] = 0.02+0.01*float32(i%7), 0.015+0.005*float32(i%5)
	}
	return k, v
}

// session opens m with 2 intra-op threads, spinning off, the kernels registered.
func session(t testing.TB, m *proto.Model) *ort.DynamicAdvancedSession {
	t.Helper()
	s, err := openSession(t, m, []string{"q", "k", "v", "past_key", "past_value", "seqlens_k",
		"total_sequence_length"}, []string{"out", "present_key", "present_value"})
	if err != nil {
		t.Fatalf("%s: %v", m.Graph.Nodes[0].Domain, err)
	}
	return s
}

// openSession opens m with 2 intra-op threads, spinning off, the kernels registered, on the
// inputs ins and outputs outs; the session is destroyed when the test ends.
func openSession(t testing.TB, m *proto.Model, ins, outs []string) (*ort.DynamicAdvancedSession, error) {
	t.Helper()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	o, err := ort.NewSessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Destroy()
	if err := o.SetIntraOpNumThreads(2); err != nil {
		t.Fatal(err)
	}
	if err := o.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
		t.Fatal(err)
	}
	if err := Register(o); err != nil {
		t.Fatal(err)
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(b, ins, outs, o)
	if err == nil {
		t.Cleanup(func() { s.Destroy() })
	}
	return s, err
}

// call is one attention call's inputs: S new rows after past cached ones in a buffer of rows.
type call struct {
	sh            shape
	quant         bool
	past, newRows int
	rows          int   // the buffer's rows; past + newRows + 3 when 0
	seqlens       int32 // with total, when either is not 0: the inputs' values instead of past + S − 1 and past + S
	total         int32
	qCols         int // the query's last dimension; heads × dim when 0
	kRows         int // key and value rows; newRows when 0
}

// inputs are one call's tensors; each side gets its own copy of the cache.
type inputs struct {
	q, k, v  ort.Value
	seq, tot ort.Value
}

func (c call) bufRows() int {
	if c.rows > 0 {
		return c.rows
	}
	return c.past + c.newRows + 3
}

func newInputs(t testing.TB, c call, seed uint64) inputs {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(c.past*7919+c.newRows)))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	qCols, kRows := c.qCols, c.kRows
	if qCols == 0 {
		qCols = c.sh.heads * c.sh.dim
	}
	if kRows == 0 {
		kRows = c.newRows
	}
	tensor := func(rows, cols int) ort.Value {
		x, err := ort.NewTensor(ort.NewShape(1, int64(rows), int64(cols)), vec(rows*cols))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Destroy() })
		return x
	}
	in := inputs{q: tensor(c.newRows, qCols), k: tensor(kRows, c.sh.kv*c.sh.dim), v: tensor(kRows, c.sh.kv*c.sh.dim)}
	seq, tot := c.seqlens, c.total
	if seq == 0 && tot == 0 {
		seq, tot = int32(c.past+c.newRows-1), int32(c.past+c.newRows)
	}
	var err error
	if in.seq, err = ort.NewTensor(ort.NewShape(1), []int32{seq}); err != nil {
		t.Fatal(err)
	}
	if in.tot, err = ort.NewTensor(ort.NewShape(1), []int32{tot}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.seq.Destroy(); in.tot.Destroy() })
	return in
}

// cache is a KV buffer pair of c's shape filled with random values (seeded: both sides get the
// same contents).
func newCache(t testing.TB, c call, seed uint64) (k, v ort.Value) {
	t.Helper()
	shape := ort.NewShape(1, int64(c.sh.kv), int64(c.bufRows()), int64(c.sh.dim))
	n := c.sh.kv * c.bufRows() * c.sh.dim
	r := rand.New(rand.NewPCG(seed, 1))
	mk := func() ort.Value {
		var x ort.Value
		var err error
		if c.quant {
			b := make([]int8, n)
			for j := range b {
				b[j] = int8(r.IntN(255) - 127)
			}
			x, err = ort.NewTensor(shape, b)
		} else {
			b := make([]float32, n)
			for j := range b {
				b[j] = float32(r.NormFloat64())
			}
			x, err = ort.NewTensor(shape, b)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Destroy() })
		return x
	}
	return mk(), mk()
}

// run runs s on in and a fresh copy of the cache (bound as past and present, as the app does),
// returning the output and the buffers.
func run(t testing.TB, s *ort.DynamicAdvancedSession, c call, in inputs) (out []float32, k, v ort.Value, err error) {
	t.Helper()
	k, v = newCache(t, c, 11)
	out, err = runOn(t, s, c, in, k, v)
	return out, k, v, err
}

// runOn runs s on in and the buffers k, v (past and present), returning the output.
func runOn(t testing.TB, s *ort.DynamicAdvancedSession, c call, in inputs, k, v ort.Value) ([]float32, error) {
	t.Helper()
	o, err := ort.NewEmptyTensor[float32](ort.NewShape(1, int64(c.newRows), int64(c.sh.heads*c.sh.dim)))
	if err != nil {
		t.Fatal(err)
	}
	defer o.Destroy()
	err = s.Run([]ort.Value{in.q, in.k, in.v, k, v, in.seq, in.tot}, []ort.Value{o, k, v})
	return append([]float32(nil), o.GetData()...), err
}

// bufferDiff is where two buffers differ: the first differing element's index, or -1. Unless
// exact, float elements may differ by 1e-6 of their magnitude (at least 1: a rotated key near 0
// keeps the products' ulps) and int8 ones by one.
func bufferDiff(a, b ort.Value, exact bool) int {
	switch x := a.(type) {
	case *ort.Tensor[float32]:
		y := b.(*ort.Tensor[float32]).GetData()
		for i, v := range x.GetData() {
			if exact && math.Float32bits(v) != math.Float32bits(y[i]) || math.Abs(float64(v-y[i])) > 1e-6*max(1, math.Abs(float64(v))) {
				return i
			}
		}
	case *ort.Tensor[int8]:
		y := b.(*ort.Tensor[int8]).GetData()
		for i, v := range x.GetData() {
			if d := int(v) - int(y[i]); exact && d != 0 || d < -1 || d > 1 {
				return i
			}
		}
	}
	return -1
}

// sides are GroupQueryAttention and the kernels' operator for one shape and cache type.
type sides struct{ gqa, op *ort.DynamicAdvancedSession }

const positions = 2100 // rotary rows of the test models: the longest call's total

func openSides(t testing.TB, sh shape, quant bool) sides {
	ks, vs := scales(sh)
	dom := Domain
	if quant {
		dom = DomainInt8
	}
	var gqa *ort.DynamicAdvancedSession
	open := func() error { gqa = session(t, gqaModel("com.microsoft", sh, quant, positions, ks, vs)); return nil }
	if quant {
		env.WithoutGQAFlash(open) // as the app opens copies with an int8 cache
	} else {
		open()
	}
	return sides{gqa, session(t, gqaModel(dom, sh, quant, positions, ks, vs))}
}

// outputTol is the tolerance tol of an output against ONNX Runtime's, relative to its largest
// value, widened where the kernels round otherwise by design: on Windows an int8 cache's output
// (a flipped step), and decode8.c's int16 queries and weights (an int8 cache's decode step on
// AVX-512 VNNI).
func outputTol(c call, tol float64) float64 {
	if runtime.GOOS != "linux" && c.quant {
		tol = max(tol, 1e-4)
	}
	if c.quant && c.newRows == 1 && isa == 3 && c.sh.dim%32 == 0 {
		tol = max(tol, int8DecodeTol)
	}
	return tol
}

// compare runs both sides on c and checks the outputs agree within tol of the output's largest
// magnitude (int8DecodeTol for an int8 cache's decode step on decode8.c's loops) and the buffers
// are identical. ONNX Runtime's Windows build rotates the keys with
// other roundings than its Linux build (an ulp at times; the kernels follow Linux's): there the
// float rows may differ by 1e-6 of their magnitude (or of 1), int8 rows by one step, and an int8 output
// (one flipped step weighs scale · weight) by 1e-4.
func compare(t *testing.T, sd sides, c call, tol float64) {
	t.Helper()
	exact := runtime.GOOS == "linux"
	tol = outputTol(c, tol)
	in := newInputs(t, c, 3)
	want, wk, wv, err := run(t, sd.gqa, c, in)
	if err != nil {
		t.Fatalf("GroupQueryAttention: %v", err)
	}
	got, gk, gv, err := run(t, sd.op, c, in)
	if err != nil {
		t.Fatalf("the operator: %v", err)
	}
	worst, scale := 0.0, 0.0
	for i, w := range want {
		worst = max(worst, math.Abs(float64(w-got[i])))
		scale = max(scale, math.Abs(float64(w)))
	}
	if worst > tol*scale || math.IsNaN(worst) {
		t.Errorf("output max |diff| %.3g, %.3g of the output's largest magnitude %.3g (tolerance %.0e)", worst, worst/scale, scale, tol)
	}
	for _, b := range []struct {
		name string
		w, g ort.Value
	}{{"keys", wk, gk}, {"values", wv, gv}} {
		if i := bufferDiff(b.w, b.g, exact); i >= 0 {
			row := i / c.sh.dim % c.bufRows()
			t.Errorf("the %s buffers differ first at element %d (row %d of %d; the call wrote rows %d to %d)", b.name, i, row, c.bufRows(), c.past, c.past+c.newRows-1)
		}
	}
}

// TestOtherShapesAgainstGroupQueryAttention covers the rest of what Supports takes: 8 query heads
// a KV head (head size 64: AVX-512's 64-column loops), 3 (tiles of 42 rows), 1 with head size 256,
// and head size 80 (AVX-512 scores, AVX2 value sums); decode steps over one and two chunks.
func TestOtherShapesAgainstGroupQueryAttention(t *testing.T) {
	initORT(t)
	for _, sh := range []shape{{32, 4, 64}, {12, 4, 80}, {8, 8, 256}} {
		for _, quant := range []bool{false, true} {
			sd := openSides(t, sh, quant)
			for _, past := range []int{0, 260} {
				for _, s := range []int{1, 7, 64, 300} {
					c := call{sh: sh, quant: quant, past: past, newRows: s}
					t.Run(fmt.Sprintf("%dx%dx%d/int8=%v/past=%d/S=%d", sh.heads, sh.kv, sh.dim, quant, past, s), func(t *testing.T) {
						compare(t, sd, c, 1e-5)
					})
				}
			}
		}
	}
}

// TestAgainstGroupQueryAttention runs the operators and com.microsoft GroupQueryAttention on the
// same inputs: Qwen3-0.6B's shape and a small one, float32 and int8 caches, decode steps and
// prompts after empty, short and long caches.
func TestAgainstGroupQueryAttention(t *testing.T) {
	initORT(t)
	for _, sh := range []shape{small, qwen3} {
		for _, quant := range []bool{false, true} {
			sd := openSides(t, sh, quant)
			for _, past := range []int{0, 100, 1000} {
				for _, s := range []int{1, 7, 64, 428} {
					c := call{sh: sh, quant: quant, past: past, newRows: s}
					t.Run(fmt.Sprintf("%dx%dx%d/int8=%v/past=%d/S=%d", sh.heads, sh.kv, sh.dim, quant, past, s), func(t *testing.T) {
						compare(t, sd, c, 1e-5)
					})
				}
			}
			if sh == qwen3 {
				t.Run(fmt.Sprintf("qwen3/int8=%v/past=0/S=2000", quant), func(t *testing.T) {
					compare(t, sd, call{sh: sh, quant: quant, newRows: 2000}, 1e-5)
				})
			}
		}
	}
}
