//go:build cgo && amd64 && (linux || windows)

package attnop

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// q4Weights are one MatMulNBits' weights: B [N][K/32][16] and scales [N·K/32].
type q4Weights struct {
	K, N int
	B    []byte
	S    []float32
	bias []float32 // nil: no bias input
}

func newQ4Weights(K, N int, bias bool, seed uint64) q4Weights {
	r := rand.New(rand.NewPCG(seed, uint64(K*131+N)))
	w := q4Weights{K: K, N: N, B: make([]byte, N*K/2), S: make([]float32, N*K/32)}
	for i := range w.B {
		w.B[i] = byte(r.IntN(256))
	}
	for i := range w.S {
		w.S[i] = 0.002 + 0.02*r.Float32()
	}
	if bias {
		w.bias = make([]float32, N)
		for i := range w.bias {
			w.bias[i] = float32(r.NormFloat64())
		}
	}
	return w
}

// cols16 is w in the operator's layout 1 (optimize.Cols16Weights, Cols16Scales).
func (w q4Weights) cols16() q4Weights {
	c := w
	c.B = optimize.Cols16Weights(w.B, w.N, w.K)
	s := optimize.Cols16Scales(unsafe.Slice((*byte)(unsafe.Pointer(&w.S[0])), 4*len(w.S)), w.N, w.K)
	c.S = unsafe.Slice((*float32)(unsafe.Pointer(&s[0])), len(w.S))
	return c
}

// mmModel is one MatMulNBits node over w in domain at accuracy level, A [rows, K] (rows
// symbolic), or [1, rows, K] when threeD; attrs replace the node's K and N when set.
func mmModel(domain string, w q4Weights, level int, threeD bool, attrs ...proto.Attr) *proto.Model {
	ad, yd := proto.Dims("m", "k"), proto.Dims("m", "n") // any shape reaches the operator
	if threeD {
		ad, yd = proto.Dims(1, "m", "k"), proto.Dims(1, "m", "n")
	}
	bd := []int64{int64(w.N), int64(w.K / 32), 16}
	if len(w.B) != w.N*w.K/2 {
		bd = []int64{int64(len(w.B))}
	}
	g := proto.Graph{Name: "mm", Inputs: []proto.ValueInfo{{Name: "A", Type: proto.Float, Dims: ad}},
		Outputs: []proto.ValueInfo{{Name: "Y", Type: proto.Float, Dims: yd}}}
	in := []string{"A", "B", "S"}
	g.Initializers = append(g.Initializers,
		&proto.Tensor{Name: "B", DataType: proto.Uint8, Dims: bd, Raw: w.B},
		proto.FloatTensor("S", []int64{int64(len(w.S))}, w.S))
	if w.bias != nil {
		in = append(in, "", "", "bias")
		g.Initializers = append(g.Initializers, proto.FloatTensor("bias", []int64{int64(len(w.bias))}, w.bias))
	}
	if len(attrs) == 0 {
		attrs = []proto.Attr{proto.IntAttr("K", int64(w.K)), proto.IntAttr("N", int64(w.N))}
	}
	attrs = append(attrs, proto.IntAttr("bits", 4), proto.IntAttr("block_size", 32), proto.IntAttr("accuracy_level", int64(level)))
	g.Nodes = []proto.Node{{Name: "mm", OpType: "MatMulNBits", Domain: domain, Inputs: in, Outputs: []string{"Y"}, Attrs: attrs}}
	return &proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}, {Domain: domain, Version: 1}}, Graph: g}
}

// mmSession opens m with 2 intra-op threads, spinning off, the kernels registered.
func mmSession(t testing.TB, m *proto.Model) (*ort.DynamicAdvancedSession, error) {
	t.Helper()
	return openSession(t, m, []string{"A"}, []string{"Y"})
}

// mmRun runs s on A [rows, cols] (or [1, rows, cols]) of seed's values and returns Y.
func mmRun(t testing.TB, s *ort.DynamicAdvancedSession, rows, cols int, threeD bool, seed uint64) ([]float32, error) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(rows)))
	a := make([]float32, rows*cols)
	for i := range a {
		a[i] = float32(r.NormFloat64())
	}
	sh := ort.NewShape(int64(rows), int64(cols))
	if threeD {
		sh = ort.NewShape(1, int64(rows), int64(cols))
	}
	x, err := ort.NewTensor(sh, a)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Destroy()
	out := []ort.Value{nil}
	if err := s.Run([]ort.Value{x}, out); err != nil {
		return nil, err
	}
	defer out[0].Destroy()
	return append([]float32(nil), out[0].(*ort.Tensor[float32]).GetData()...), nil
}

// rmsDiff is the largest |got − want| over the rms of want.
func rmsDiff(got, want []float32) float64 {
	var rms, worst float64
	for i := range want {
		rms += float64(want[i]) * float64(want[i])
		worst = max(worst, math.Abs(float64(got[i])-float64(want[i])))
	}
	return worst / math.Sqrt(rms/float64(len(want)))
}

// matMulISAs are the int4 product's loops this CPU runs (useMatMul's names), the one
// selectISA picked first.
func matMulISAs(t *testing.T) []int {
	var all []int
	for _, which := range []int{2, 1, 0} {
		if useMatMul(which) {
			all = append(all, which)
		}
	}
	selectISA(isaCap()) // back to what TestMain chose
	if len(all) == 0 {
		t.Fatal("no int4 loops run on this CPU")
	}
	return all
}

var isaNames = map[int]string{2: "avx512vnni", 1: "avxvnni", 0: "avx2"}

// Tolerances against MLAS, over the rms of its output. Level 4: both sides quantize A to the
// same int8 values (checked by the tolerance: one step off in one element moves an output by
// about scale_a·scale_b·|w − 8|, ~1e-3 of the rms); they differ in how they add the int32 block
// sums in float32 (MLAS adds −8·Σq·scale_a·scale_b as a separate float product), up to ~4e-6
// of the rms for K up to 4864. Level 0: the same float32 sums as MLAS's at M > 1 (0), in
// another order at one row (up to ~5e-6).
const (
	tolLevel4 = 2e-5
	tolLevel0 = 1e-5
)

// TestMatMulAgainstMLAS runs the operator and com.microsoft MatMulNBits on the same weights and
// inputs: the app's shapes, odd N and K, one to 600 rows, with and without bias, at accuracy
// levels 4 and 0, on every loop set the CPU runs.
func TestMatMulAgainstMLAS(t *testing.T) {
	initORT(t)
	shapes := []struct {
		K, N int
		bias bool
		rows []int
	}{
		{1024, 4096, false, []int{1, 2, 7, 32, 428, 600}}, // Qwen3-0.6B q+k+v
		{2048, 1024, true, []int{1, 3, 7, 428}},           // o
		{1024, 6144, false, []int{1, 32, 428}},            // gate+up
		{3072, 1024, false, []int{1, 2, 428, 600}},        // down
		{1024, 100, true, []int{1, 8, 9, 428}},            // N under a panel
		{1024, 4097, false, []int{1, 2, 32, 428}},         // N one past a panel
		{896, 4864, true, []int{1, 7, 428}},               // Qwen2.5-0.5B (K/32 not a multiple of 4)
		{4864, 896, false, []int{1, 32}},
		{96, 33, true, []int{1, 4, 5, 13}}, // K/32 = 3: under one group of 4 blocks
		{96, 48, true, []int{1, 2, 9}},     // layout 1: K/32 odd (a lone last block), 3 panels
	}
	isas := matMulISAs(t)
	defer selectISA(isaCap())
	for _, sh := range shapes {
		w := newQ4Weights(sh.K, sh.N, sh.bias, 7)
		for _, level := range []int{4, 0} {
			threeD := sh.bias // the bias shapes feed A as [1, rows, K]
			ref, err := mmSession(t, mmModel("com.microsoft", w, level, threeD))
			if err != nil {
				t.Fatal(err)
			}
			ours, err := mmSession(t, mmModel(Domain, w, level, threeD))
			if err != nil {
				t.Fatal(err)
			}
			// layout 1 (the app's copies' order of B and scales) where N takes it
			var ours1 *ort.DynamicAdvancedSession
			if sh.N%optimize.Cols16Panel == 0 {
				attrs := []proto.Attr{proto.IntAttr("K", int64(sh.K)), proto.IntAttr("N", int64(sh.N)), proto.IntAttr("layout", 1)}
				if ours1, err = mmSession(t, mmModel(Domain, w.cols16(), level, threeD, attrs...)); err != nil {
					t.Fatal(err)
				}
			}
			for _, rows := range sh.rows {
				want, err := mmRun(t, ref, rows, sh.K, threeD, uint64(rows))
				if err != nil {
					t.Fatal(err)
				}
				for _, which := range isas {
					if level == 0 && which != isas[0] {
						continue // level 0 is one loop for every instruction set
					}
					for layout, s := range []*ort.DynamicAdvancedSession{ours, ours1} {
						if s == nil {
							continue
						}
						t.Run(fmt.Sprintf("%dx%d/bias=%v/level=%d/M=%d/%s/layout=%d", sh.K, sh.N, sh.bias, level, rows, isaNames[which], layout), func(t *testing.T) {
							useMatMul(which)
							got, err := mmRun(t, s, rows, sh.K, threeD, uint64(rows))
							if err != nil {
								t.Fatal(err)
							}
							tol := map[int]float64{4: tolLevel4, 0: tolLevel0}[level]
							d := rmsDiff(got, want)
							t.Logf("largest difference from MLAS %.2e of its rms", d)
							if d > tol || math.IsNaN(d) {
								t.Errorf("largest difference from MLAS %.2e of its rms, want at most %.0e", d, tol)
							}
						})
					}
				}
			}
		}
	}
}

// TestMatMulBadShapesFail runs the operator on inputs and attributes that do not fit together:
// each must fail with the operator's error, not read out of bounds or crash.
func TestMatMulBadShapesFail(t *testing.T) {
	initORT(t)
	w := newQ4Weights(128, 40, true, 3)
	short := func(f func(*q4Weights)) q4Weights {
		c := w
		c.B, c.S, c.bias = append([]byte(nil), w.B...), append([]float32(nil), w.S...), append([]float32(nil), w.bias...)
		f(&c)
		return c
	}
	tests := []struct {
		name  string
		w     q4Weights
		cols  int // A's last dimension
		attrs []proto.Attr
		want  string
	}{
		{"A's width not K", w, 96, nil, "A's last dimension"},
		{"B a block short", short(func(c *q4Weights) { c.B = c.B[16:] }), 128, nil, "B must hold"},
		{"scales one short", short(func(c *q4Weights) { c.S = c.S[1:] }), 128, nil, "scales must hold"},
		{"bias one short", short(func(c *q4Weights) { c.bias = c.bias[1:] }), 128, nil, "bias must hold"},
		{"N past B", w, 128, []proto.Attr{proto.IntAttr("K", 128), proto.IntAttr("N", 41)}, "B must hold"},
		{"K not a multiple of 32", w, 120, []proto.Attr{proto.IntAttr("K", 120), proto.IntAttr("N", 40)}, "multiple of 32"},
		{"no K", w, 128, []proto.Attr{proto.IntAttr("N", 40)}, "multiple of 32"},
		{"layout 1, N not a multiple of 16", w, 128, []proto.Attr{proto.IntAttr("K", 128), proto.IntAttr("N", 40), proto.IntAttr("layout", 1)}, "multiple of 16"},
		{"layout 2", w, 128, []proto.Attr{proto.IntAttr("K", 128), proto.IntAttr("N", 40), proto.IntAttr("layout", 2)}, "layout must be"},
		{"layout 1, B a block short", short(func(c *q4Weights) { c.B = c.B[16:] }), 128, []proto.Attr{proto.IntAttr("K", 128), proto.IntAttr("N", 32), proto.IntAttr("layout", 1)}, "B must hold"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, rows := range []int{1, 9} {
				s, err := mmSession(t, mmModel(Domain, tc.w, 4, false, tc.attrs...))
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

// TestSupportsMatMul checks which MatMulNBits the operator takes.
func TestSupportsMatMul(t *testing.T) {
	tests := []struct {
		K, N, bits, block int
		want              bool
	}{
		{1024, 4096, 4, 32, true},
		{896, 151936, 4, 32, true},
		{96, 1, 4, 32, true},
		{1024, 4096, 8, 32, false},
		{1024, 4096, 4, 64, false},
		{1000, 4096, 4, 32, false},
		{0, 4096, 4, 32, false},
		{1024, 0, 4, 32, false},
	}
	for _, tc := range tests {
		if got := SupportsMatMul(tc.K, tc.N, tc.bits, tc.block); got != tc.want {
			t.Errorf("SupportsMatMul(%d, %d, %d, %d) = %v, want %v", tc.K, tc.N, tc.bits, tc.block, got, tc.want)
		}
	}
}
