//go:build cgo && amd64 && (linux || windows)

package attnop

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/onnx/proto"
)

const normEps = 1e-6 // Qwen3's RMS norm epsilon

// normWeight is a norm's weight gamma [K], away from 1 so that a missed multiply shows.
func normWeight(K int) []float32 {
	g := make([]float32, K)
	for i := range g {
		g[i] = 0.25 + float32(i%13)/6
	}
	return g
}

// preNormModel is the norm a product reads and the product, over w at level: unfused, ONNX
// Runtime's com.microsoft SkipSimplifiedLayerNormalization of A and skip (its normed output and
// its sum, output 3) or, without skip, SimplifiedLayerNormalization of A, then com.microsoft
// MatMulNBits; fused, the operator with prenorm 1, gamma and skip. Outputs Y and, with skip,
// sum. With normOnly the unfused graph's Y is the norm's output itself (no product).
func preNormModel(w q4Weights, level int, skip, fused, normOnly bool) *proto.Model {
	dom := "com.microsoft"
	if fused {
		dom = Domain
	}
	m := mmModel(dom, w, level, true)
	g := &m.Graph
	g.Initializers = append(g.Initializers, proto.FloatTensor("gamma", []int64{int64(w.K)}, normWeight(w.K)))
	if skip {
		g.Inputs = append(g.Inputs, proto.ValueInfo{Name: "skip", Type: proto.Float, Dims: proto.Dims(1, "m", "k")})
		g.Outputs = append(g.Outputs, proto.ValueInfo{Name: "sum", Type: proto.Float, Dims: proto.Dims(1, "m", "k")})
	}
	mm := &g.Nodes[0]
	if fused {
		for len(mm.Inputs) < 6 {
			mm.Inputs = append(mm.Inputs, "")
		}
		mm.Inputs = append(mm.Inputs, "gamma")
		if skip {
			mm.Inputs = append(mm.Inputs, "skip")
			mm.Outputs = append(mm.Outputs, "sum")
		}
		mm.Attrs = append(mm.Attrs, proto.IntAttr("prenorm", 1), proto.FloatAttr("epsilon", normEps))
		return m
	}
	mm.Inputs[0] = "normed"
	var norm proto.Node
	if skip {
		norm = proto.Node{Name: "norm", OpType: "SkipSimplifiedLayerNormalization", Domain: "com.microsoft",
			Inputs: []string{"A", "skip", "gamma"}, Outputs: []string{"normed", "", "", "sum"},
			Attrs: []proto.Attr{proto.FloatAttr("epsilon", normEps)}}
	} else {
		norm = proto.Node{Name: "norm", OpType: "SimplifiedLayerNormalization", Inputs: []string{"A", "gamma"}, Outputs: []string{"normed"},
			Attrs: []proto.Attr{proto.IntAttr("axis", -1), proto.FloatAttr("epsilon", normEps), proto.IntAttr("stash_type", 1)}}
	}
	if normOnly {
		norm.Outputs[0] = "Y"
		g.Nodes = []proto.Node{norm}
		return m
	}
	g.Nodes = []proto.Node{norm, *mm}
	return m
}

// preNormSession opens m with its inputs A (and skip) and outputs Y (and sum).
func preNormSession(t testing.TB, m *proto.Model, skip bool) (*ort.DynamicAdvancedSession, error) {
	t.Helper()
	if skip {
		return openSession(t, m, []string{"A", "skip"}, []string{"Y", "sum"})
	}
	return openSession(t, m, []string{"A"}, []string{"Y"})
}

// preNormRun runs s on A [1, rows, K] (and skip) of seed's values: Y and sum (nil without skip).
func preNormRun(t testing.TB, s *ort.DynamicAdvancedSession, rows, K int, skip bool, seed uint64) (y, sum []float32, err error) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(rows)))
	var ins []ort.Value
	for i := 0; i < map[bool]int{false: 1, true: 2}[skip]; i++ {
		a := make([]float32, rows*K)
		for j := range a {
			a[j] = float32(r.NormFloat64() * float64(3-2*i)) // the stream larger than a layer's output
		}
		x, err := ort.NewTensor(ort.NewShape(1, int64(rows), int64(K)), a)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Destroy()
		ins = append(ins, x)
	}
	out := make([]ort.Value, len(ins))
	if err := s.Run(ins, out); err != nil {
		return nil, nil, err
	}
	for _, o := range out {
		defer o.Destroy()
	}
	y = append([]float32(nil), out[0].(*ort.Tensor[float32]).GetData()...)
	if skip {
		sum = append([]float32(nil), out[1].(*ort.Tensor[float32]).GetData()...)
	}
	return y, sum, nil
}

// identityWeights are K×K int4 weights whose product is A itself at level 0: weight 9 (1 after
// the zero point 8) at column n's element n, 8 (0) elsewhere, scales 1.
func identityWeights(K int) q4Weights {
	w := q4Weights{K: K, N: K, B: make([]byte, K*K/2), S: make([]float32, K*K/32)}
	for i := range w.B {
		w.B[i] = 0x88
	}
	for n := 0; n < K; n++ {
		b := &w.B[n*K/2+n/2]
		if n%2 == 0 {
			*b = *b&0xF0 | 9
		} else {
			*b = *b&0x0F | 9<<4
		}
	}
	for i := range w.S {
		w.S[i] = 1
	}
	return w
}

// bitsDiffer counts the elements of got that are not want's bits.
func bitsDiffer(got, want []float32) int {
	n := 0
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			n++
		}
	}
	return n
}

// TestPreNormExact: the norm the operator takes rounds as ONNX Runtime's nodes do. The product
// of identity weights at level 0 is its input exactly, so the operator's Y is its normed A,
// which must be the bits of SkipSimplifiedLayerNormalization's (or SimplifiedLayerNormalization's)
// output; the sum must be the bits of the node's output 3.
func TestPreNormExact(t *testing.T) {
	initORT(t)
	for _, K := range []int{1024, 96} {
		w := identityWeights(K)
		for _, skip := range []bool{true, false} {
			ref, err := preNormSession(t, preNormModel(w, 0, skip, false, true), skip)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := preNormSession(t, preNormModel(w, 0, skip, true, false), skip)
			if err != nil {
				t.Fatal(err)
			}
			for _, rows := range []int{1, 64} {
				t.Run(fmt.Sprintf("K=%d/skip=%v/M=%d", K, skip, rows), func(t *testing.T) {
					want, wantSum, err := preNormRun(t, ref, rows, K, skip, 3)
					if err != nil {
						t.Fatal(err)
					}
					got, gotSum, err := preNormRun(t, ours, rows, K, skip, 3)
					if err != nil {
						t.Fatal(err)
					}
					if n := bitsDiffer(got, want); n > 0 {
						t.Errorf("%d of %d normed values differ from ONNX Runtime's", n, len(want))
					}
					if n := bitsDiffer(gotSum, wantSum); n > 0 {
						t.Errorf("%d of %d sums differ from ONNX Runtime's", n, len(wantSum))
					}
				})
			}
		}
	}
}

// TestPreNormAgainstUnfused runs the operator with prenorm 1 against ONNX Runtime's norm node
// and com.microsoft MatMulNBits on the same weights and inputs: Qwen3-0.6B's QKV and gate|up
// shapes and a small one, one to 600 rows, with and without skip, levels 4 and 0, every loop
// set the CPU runs. The norms are the same bits (TestPreNormExact), so the products are within
// TestMatMulAgainstMLAS's tolerances and the sums equal.
func TestPreNormAgainstUnfused(t *testing.T) {
	initORT(t)
	shapes := []struct {
		K, N int
		bias bool
		rows []int
	}{
		{1024, 4096, false, []int{1, 2, 9, 428, 600}}, // Qwen3-0.6B q+k+v
		{1024, 6144, false, []int{1, 32, 428}},        // gate+up
		{96, 40, true, []int{1, 5, 13}},
	}
	isas := matMulISAs(t)
	defer selectISA(isaCap())
	for _, sh := range shapes {
		w := newQ4Weights(sh.K, sh.N, sh.bias, 13)
		for _, level := range []int{4, 0} {
			for _, skip := range []bool{true, false} {
				ref, err := preNormSession(t, preNormModel(w, level, skip, false, false), skip)
				if err != nil {
					t.Fatal(err)
				}
				ours, err := preNormSession(t, preNormModel(w, level, skip, true, false), skip)
				if err != nil {
					t.Fatal(err)
				}
				for _, rows := range sh.rows {
					want, wantSum, err := preNormRun(t, ref, rows, sh.K, skip, uint64(rows))
					if err != nil {
						t.Fatal(err)
					}
					for _, which := range isas {
						if level == 0 && which != isas[0] {
							continue
						}
						t.Run(fmt.Sprintf("%dx%d/skip=%v/level=%d/M=%d/%s", sh.K, sh.N, skip, level, rows, isaNames[which]), func(t *testing.T) {
							useMatMul(which)
							got, gotSum, err := preNormRun(t, ours, rows, sh.K, skip, uint64(rows))
							if err != nil {
								t.Fatal(err)
							}
							tol := map[int]float64{4: tolLevel4, 0: tolLevel0}[level]
							d := rmsDiff(got, want)
							t.Logf("largest difference from the unfused graph %.2e of its rms", d)
							if d > tol || math.IsNaN(d) {
								t.Errorf("largest difference from the unfused graph %.2e of its rms, want at most %.0e", d, tol)
							}
							if n := bitsDiffer(gotSum, wantSum); n > 0 {
								t.Errorf("%d of %d sums differ from SkipSimplifiedLayerNormalization's", n, len(wantSum))
							}
						})
					}
				}
			}
		}
	}
}

// TestPreNormBadInputsFail: the norm's inputs and attributes that do not fit fail with the
// operator's error.
func TestPreNormBadInputsFail(t *testing.T) {
	initORT(t)
	w := newQ4Weights(128, 40, false, 3)
	tests := []struct {
		name string
		edit func(m *proto.Model)
		skip int // skip's last dimension (0: 128)
		want string
	}{
		{"gamma one short", func(m *proto.Model) {
			m.Graph.Initializers[len(m.Graph.Initializers)-1] = proto.FloatTensor("gamma", []int64{127}, make([]float32, 127))
		}, 0, "gamma must hold K values"},
		{"no gamma", func(m *proto.Model) { m.Graph.Nodes[0].Inputs[6] = "" }, 0, "gamma (input 6) is required"},
		{"skip narrower", nil, 96, "skip must have A's shape"},
		{"gamma without prenorm", func(m *proto.Model) { m.Graph.Nodes[0].Attrs = dropAttr(m.Graph.Nodes[0].Attrs, "prenorm") }, 0, "need prenorm 1"},
		{"prenorm 2", func(m *proto.Model) { setIntAttr(&m.Graph.Nodes[0], "prenorm", 2) }, 0, "prenorm must be 0 or 1"},
		{"prenorm with swiglu", func(m *proto.Model) {
			m.Graph.Nodes[0].Attrs = append(m.Graph.Nodes[0].Attrs, proto.IntAttr("swiglu", 1))
		}, 0, "cannot both be set"},
		{"negative epsilon", func(m *proto.Model) {
			for i, a := range m.Graph.Nodes[0].Attrs {
				if a.Name == "epsilon" {
					m.Graph.Nodes[0].Attrs[i] = proto.FloatAttr("epsilon", -1)
				}
			}
		}, 0, "epsilon must not be negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := preNormModel(w, 4, true, true, false)
			m.Graph.Inputs[1].Dims = proto.Dims(1, "m", "ks")
			if tc.edit != nil {
				tc.edit(m)
			}
			for _, rows := range []int{1, 9} {
				s, err := preNormSession(t, m, true)
				if err == nil {
					ks := tc.skip
					if ks == 0 {
						ks = 128
					}
					err = runSkipWidth(t, s, rows, 128, ks)
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("rows %d: got error %v, want one saying %q", rows, err, tc.want)
				}
			}
		})
	}
}

// runSkipWidth runs s on A [1, rows, K] and skip [1, rows, ks] of zeros.
func runSkipWidth(t testing.TB, s *ort.DynamicAdvancedSession, rows, K, ks int) error {
	t.Helper()
	a, err := ort.NewTensor(ort.NewShape(1, int64(rows), int64(K)), make([]float32, rows*K))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Destroy()
	b, err := ort.NewTensor(ort.NewShape(1, int64(rows), int64(ks)), make([]float32, rows*ks))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Destroy()
	out := []ort.Value{nil, nil}
	err = s.Run([]ort.Value{a, b}, out)
	for _, o := range out {
		if o != nil {
			o.Destroy()
		}
	}
	return err
}

func dropAttr(as []proto.Attr, name string) []proto.Attr {
	var out []proto.Attr
	for _, a := range as {
		if a.Name != name {
			out = append(out, a)
		}
	}
	return out
}

func setIntAttr(n *proto.Node, name string, v int64) {
	n.Attrs = append(dropAttr(n.Attrs, name), proto.IntAttr(name, v))
}
