//go:build cgo && (amd64 || arm64) && (linux || windows)

package attnop

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/onnx/proto"
)

// rowPositions are the rotary rows of the per-row tests' models: the longest call's total, 3000.
const rowPositions = 3010

// asRow turns m (one attention node, float32 cache, inputs past_key and past_value) into its
// per-row int8 cache twin in DomainRow: the buffers int8 [1, KV, t, D + RowExtra].
func asRow(m *proto.Model, sh shape) *proto.Model {
	for _, vs := range [][]proto.ValueInfo{m.Graph.Inputs, m.Graph.Outputs} {
		for i := range vs {
			if strings.HasPrefix(vs[i].Name, "past_") || strings.HasPrefix(vs[i].Name, "present_") {
				vs[i].Type = proto.Int8
				vs[i].Dims = proto.Dims(1, sh.kv, "t", sh.dim+RowExtra)
			}
		}
	}
	n := &m.Graph.Nodes[len(m.Graph.Nodes)-1]
	n.Domain = DomainRow
	for i := range m.Opsets {
		if m.Opsets[i].Domain != "" {
			m.Opsets[i].Domain = DomainRow
		}
	}
	return m
}

// quantRowGo is op.c's quantRow: round(x · 127 / max|x|) (float32 products, ties to even), then
// the scale max|x| / 127 as little-endian float32.
func quantRowGo(x []float32) []int8 {
	top := float32(0)
	for _, v := range x {
		top = max(top, float32(math.Abs(float64(v))))
	}
	inv, sc := float32(0), top/127
	if top > 0 {
		inv = 127 / top
	}
	y := make([]int8, len(x)+RowExtra)
	for i, v := range x {
		p := v * inv
		y[i] = int8(max(-127, min(127, math.RoundToEven(float64(p)))))
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], math.Float32bits(sc))
	for i := range b {
		y[len(x)+i] = int8(b[i])
	}
	return y
}

// dequantRowGo is a per-row cache row's values: q · scale.
func dequantRowGo(r []int8, d int) []float32 {
	var b [4]byte
	for i := range b {
		b[i] = byte(r[d+i])
	}
	sc := math.Float32frombits(binary.LittleEndian.Uint32(b[:]))
	y := make([]float32, d)
	for i := range y {
		y[i] = float32(r[i]) * sc
	}
	return y
}

// rowCaches are a float32 cache of random rows (c's shape: [1, KV, rows, D]) and its per-row
// quantization ([1, KV, rows, D + RowExtra]), and the float32 cache that quantization holds.
func rowCaches(t testing.TB, c call, seed uint64) (f, q, fq ort.Value) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 2))
	rows, d := c.sh.kv*c.bufRows(), c.sh.dim
	fs, fqs := make([]float32, rows*d), make([]float32, rows*d)
	qs := make([]int8, 0, rows*(d+RowExtra))
	for i := range rows {
		x := fs[i*d : (i+1)*d]
		for j := range x {
			x[j] = float32(r.NormFloat64() * 2)
		}
		row := quantRowGo(x)
		qs = append(qs, row...)
		copy(fqs[i*d:], dequantRowGo(row, d))
	}
	mk := func(v ort.Value, err error) ort.Value {
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Destroy() })
		return v
	}
	sh := ort.NewShape(1, int64(c.sh.kv), int64(c.bufRows()), int64(d))
	f = mk(ort.NewTensor(sh, fs))
	fq = mk(ort.NewTensor(sh, fqs))
	q = mk(ort.NewTensor(ort.NewShape(1, int64(c.sh.kv), int64(c.bufRows()), int64(d+RowExtra)), qs))
	return f, q, fq
}

// rotTable is gqaModel's rotary tables' entry for position p and pair i (head size d).
func rotTable(p, i, d int) (cos, sin float32) {
	a := float64(p) / math.Pow(1e6, float64(2*i)/float64(d))
	return float32(math.Cos(a)), float32(math.Sin(a))
}

// TestRowAgainstDequantizedCache checks the per-row operator's loops exactly: it runs the
// operator on a per-row cache, then com.microsoft GroupQueryAttention (float32 cache) on what
// that cache holds after the call (the cached rows dequantized, and as new keys and values the
// rows the operator wrote, dequantized, the keys rotated back so that GroupQueryAttention's
// rotation gives them again). The outputs must agree as the float32 operator's do (1e-5 of
// the largest output; decode8.c's int16 roundings, int8DecodeTol, on AVX-512 VNNI decode steps).
// Totals of 1, 31, 32, 33, 255, 256, 257 and 3000 rows cover the blocks' and chunks' edges.
func TestRowAgainstDequantizedCache(t *testing.T) {
	initORT(t)
	// chunk "256" (DecodeChunkVar) splits a decode step's rows as the kernels did before a KV
	// head's rows became one item (up to 4,096): the chunks' merge on every shape.
	for _, run := range []struct {
		sh    shape
		chunk string
	}{{small, ""}, {qwen3, ""}, {shape{12, 4, 80}, ""}, {qwen3, "256"}, {shape{12, 4, 80}, "256"}} {
		sh := run.sh
		t.Setenv(DecodeChunkVar, run.chunk) // read when the session makes its kernels
		ref := session(t, gqaModel("com.microsoft", sh, false, rowPositions, nil, nil))
		op := session(t, asRow(gqaModel(Domain, sh, false, rowPositions, nil, nil), sh))
		for _, tc := range []struct{ past, s int }{{0, 1}, {30, 1}, {31, 1}, {32, 1}, {254, 1}, {255, 1}, {256, 1}, {2999, 1},
			{0, 31}, {0, 33}, {1, 31}, {200, 57}, {0, 257}, {2743, 257}} {
			if sh.dim == 80 && tc.past > 300 || run.chunk != "" && (tc.s > 1 || tc.past < 254) {
				continue
			}
			c := call{sh: sh, past: tc.past, newRows: tc.s}
			t.Run(fmt.Sprintf("%dx%dx%d/chunk=%q/past=%d/S=%d", sh.heads, sh.kv, sh.dim, run.chunk, tc.past, tc.s), func(t *testing.T) {
				in := newInputs(t, c, 3)
				_, qk, fqk := rowCaches(t, c, 21)
				_, qv, fqv := rowCaches(t, c, 22)
				got, err := runOn(t, op, c, in, qk, qv)
				if err != nil {
					t.Fatal(err)
				}
				// The new rows as written, dequantized; the keys rotated back.
				d, rows := sh.dim, c.bufRows()
				kb, vb := qk.(*ort.Tensor[int8]).GetData(), qv.(*ort.Tensor[int8]).GetData()
				fk, fv := fqk.(*ort.Tensor[float32]).GetData(), fqv.(*ort.Tensor[float32]).GetData()
				nk, nv := make([]float32, tc.s*sh.kv*d), make([]float32, tc.s*sh.kv*d)
				for s := range tc.s {
					pos := tc.past + s
					for h := range sh.kv {
						row := h*rows + pos
						kr := dequantRowGo(kb[row*(d+RowExtra):], d)
						vr := dequantRowGo(vb[row*(d+RowExtra):], d)
						copy(fk[row*d:], kr) // the float cache holds them too (GroupQueryAttention overwrites them)
						copy(fv[row*d:], vr)
						o := (s*sh.kv + h) * d
						copy(nv[o:o+d], vr)
						for i := range d / 2 {
							cs, sn := rotTable(pos, i, d)
							a, b := float64(kr[i]), float64(kr[i+d/2])
							nk[o+i] = float32(a*float64(cs) + b*float64(sn))
							nk[o+i+d/2] = float32(-a*float64(sn) + b*float64(cs))
						}
					}
				}
				k2, err := ort.NewTensor(ort.NewShape(1, int64(tc.s), int64(sh.kv*d)), nk)
				if err != nil {
					t.Fatal(err)
				}
				defer k2.Destroy()
				v2, err := ort.NewTensor(ort.NewShape(1, int64(tc.s), int64(sh.kv*d)), nv)
				if err != nil {
					t.Fatal(err)
				}
				defer v2.Destroy()
				want, err := runOn(t, ref, c, inputs{q: in.q, k: k2, v: v2, seq: in.seq, tot: in.tot}, fqk, fqv)
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-5
				if runtime.GOOS != "linux" {
					tol = 1e-4
				}
				if tc.s == 1 && isa == 3 && d%32 == 0 {
					tol = int8DecodeTol
				}
				if e := relDiff(want, got); e > tol {
					t.Errorf("output %.2e of its largest value from GroupQueryAttention's on the dequantized cache (tolerance %.0e)", e, tol)
				}
			})
		}
	}
}

// rowOutputBound is how far the per-row cache's output may be from the float32 cache's, relative
// to the values' largest magnitude, on the tests' data (N(0, 2²) cached rows, N(0, 3²) new ones;
// with the norms, Qwen3-like normed keys). A value is off by at most half a step, max|row| / 254
// (3.9e-3 of the row's largest value), which moves an output (a convex combination of values)
// by at most that; the keys' rounding moves the scores and so the weights besides, which is not
// bounded a priori: measured, the whole stays under 4e-3 on decode steps over 31 to 2000 rows
// and reaches 1.2e-2 on a prompt's first rows (which see few rows, sharp softmax). The test's
// bound is 2e-2: a wrong scale or a row mixed up moves outputs by tens of percent.
const rowOutputBound = 2e-2

// TestRowWritesAndBound runs the per-row operator and the float32 nodes it replaces
// (com.microsoft GroupQueryAttention; with packed QKV and the q/k norms, Split, Reshapes and
// SimplifiedLayerNormalization before it) on the same inputs and cached rows (the per-row
// cache the float32 one's rows quantized): the rows written must be the float32 rows
// quantized as quantRowGo does, bit for bit (a step off on Windows, whose rotation rounds
// otherwise), and the outputs within rowOutputBound.
func TestRowWritesAndBound(t *testing.T) {
	initORT(t)
	for _, sh := range []shape{small, qwen3} {
		for _, packed := range []bool{false, true} {
			var ref, op *ort.DynamicAdvancedSession
			if packed {
				ref = packedSession(t, qkNormModel(sh, false, false))
				op = packedSession(t, asRow(qkNormModel(sh, false, true), sh))
			} else {
				ref = session(t, gqaModel("com.microsoft", sh, false, positions, nil, nil))
				op = session(t, asRow(gqaModel(Domain, sh, false, positions, nil, nil), sh))
			}
			for _, tc := range []struct{ past, s int }{{0, 1}, {31, 1}, {256, 1}, {2000, 1}, {0, 7}, {0, 64}, {100, 33}, {0, 300}} {
				c := call{sh: sh, past: tc.past, newRows: tc.s}
				t.Run(fmt.Sprintf("%dx%dx%d/packed=%v/past=%d/S=%d", sh.heads, sh.kv, sh.dim, packed, tc.past, tc.s), func(t *testing.T) {
					in := newInputs(t, c, 3)
					var args []ort.Value
					if packed {
						args = []ort.Value{packedQKV(t, c)}
					} else {
						args = []ort.Value{in.q, in.k, in.v}
					}
					side := func(s *ort.DynamicAdvancedSession, k, v ort.Value) []float32 {
						o, err := ort.NewEmptyTensor[float32](ort.NewShape(1, int64(c.newRows), int64(sh.heads*sh.dim)))
						if err != nil {
							t.Fatal(err)
						}
						defer o.Destroy()
						if err := s.Run(append(append([]ort.Value{}, args...), k, v, in.seq, in.tot), []ort.Value{o, k, v}); err != nil {
							t.Fatal(err)
						}
						return append([]float32(nil), o.GetData()...)
					}
					fk, qk, _ := rowCaches(t, c, 31)
					fv, qv, _ := rowCaches(t, c, 32)
					want := side(ref, fk, fv)
					got := side(op, qk, qv)
					d, rows := sh.dim, c.bufRows()
					// The rows are the float32 rows quantized, byte for byte where the keys are
					// ONNX Runtime's bits (Linux; with the norms, exactNorms), else a step apart.
					exact := runtime.GOOS == "linux" && (!packed || exactNorms())
					for _, b := range []struct {
						name string
						f, q ort.Value
					}{{"key", fk, qk}, {"value", fv, qv}} {
						fd, qd := b.f.(*ort.Tensor[float32]).GetData(), b.q.(*ort.Tensor[int8]).GetData()
						for h := range sh.kv {
							for pos := tc.past; pos < tc.past+tc.s; pos++ {
								row := h*rows + pos
								w := quantRowGo(fd[row*d : (row+1)*d])
								g := qd[row*(d+RowExtra) : (row+1)*(d+RowExtra)]
								for i := range w {
									diff := int(w[i]) - int(g[i])
									if i < d && (diff != 0 && exact || diff < -1 || diff > 1) || i >= d && diff != 0 && exact {
										t.Fatalf("%s row %d of head %d: byte %d is %d, want %d (the float32 row quantized)", b.name, pos, h, i, g[i], w[i])
									}
								}
							}
						}
					}
					worst, top := 0.0, 0.0
					for i, w := range want {
						worst = max(worst, math.Abs(float64(w-got[i])))
					}
					for _, x := range fv.(*ort.Tensor[float32]).GetData()[:sh.kv*rows*d] {
						top = max(top, math.Abs(float64(x)))
					}
					t.Logf("output off by %.2e of the values' largest magnitude (%.2e of the output's)", worst/top, relDiff(want, got))
					if worst > rowOutputBound*top || math.IsNaN(worst) {
						t.Errorf("output off by %.2e of the values' largest magnitude: want under %.1e", worst/top, rowOutputBound)
					}
				})
			}
		}
	}
}

// TestRowBadShapesFail runs the per-row operator on buffers that are not per-row ones and with
// scales it does not take: each call must fail with the operator's error.
func TestRowBadShapesFail(t *testing.T) {
	initORT(t)
	c := call{sh: small, past: 3, newRows: 2}
	in := newInputs(t, c, 5)
	m := asRow(gqaModelDims(Domain, small, false, positions, nil, nil, true), small)
	for _, vs := range [][]proto.ValueInfo{m.Graph.Inputs, m.Graph.Outputs} {
		for i := range vs {
			vs[i].Dims = proto.Dims(vs[i].Name+"_0", vs[i].Name+"_1", vs[i].Name+"_2", vs[i].Name+"_3")[:len(vs[i].Dims)]
		}
	}
	s := session(t, m)
	t.Run("rows without their scales", func(t *testing.T) {
		sh := ort.NewShape(1, int64(small.kv), int64(c.bufRows()), int64(small.dim)) // head size 16 − 4: not a multiple of 16
		k, _ := ort.NewTensor(sh, make([]int8, sh.FlattenedSize()))
		v, _ := ort.NewTensor(sh, make([]int8, sh.FlattenedSize()))
		defer k.Destroy()
		defer v.Destroy()
		_, err := runOn(t, s, c, in, k, v)
		if err == nil || !strings.Contains(err.Error(), "last dimension less 4") {
			t.Errorf("got error %v, want one about the head size", err)
		}
	})
	t.Run("cache shorter than the total", func(t *testing.T) {
		sh := ort.NewShape(1, int64(small.kv), 4, int64(small.dim+RowExtra))
		k, _ := ort.NewTensor(sh, make([]int8, sh.FlattenedSize()))
		v, _ := ort.NewTensor(sh, make([]int8, sh.FlattenedSize()))
		defer k.Destroy()
		defer v.Destroy()
		_, err := runOn(t, s, c, in, k, v)
		if err == nil || !strings.Contains(err.Error(), "fit both the KV buffer") {
			t.Errorf("got error %v, want one saying the rows do not fit", err)
		}
	})
	t.Run("scales given", func(t *testing.T) {
		ks, vs := scales(small)
		m := gqaModelDims(DomainInt8, small, true, positions, ks, vs, true)
		m.Graph.Nodes[0].Attrs = m.Graph.Nodes[0].Attrs[:4]
		s := session(t, asRow(m, small))
		k, v := newRowBuffers(t, c)
		_, err := runOn(t, s, c, in, k, v)
		if err == nil || !strings.Contains(err.Error(), "must be absent") {
			t.Errorf("got error %v, want one saying k_scale and v_scale must be absent", err)
		}
	})
}

// newRowBuffers is a zeroed per-row cache of c's shape.
func newRowBuffers(t testing.TB, c call) (k, v ort.Value) {
	t.Helper()
	sh := ort.NewShape(1, int64(c.sh.kv), int64(c.bufRows()), int64(c.sh.dim+RowExtra))
	kk, err := ort.NewTensor(sh, make([]int8, sh.FlattenedSize()))
	if err != nil {
		t.Fatal(err)
	}
	vv, err := ort.NewTensor(sh, make([]int8, sh.FlattenedSize()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kk.Destroy(); vv.Destroy() })
	return kk, vv
}
