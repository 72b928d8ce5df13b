package optimize

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"edgechat/onnx/proto"
)

// preNormLayer is a layer's norms and products as the app's copies have them, width 64: the
// embedding's Gather h0, its SimplifiedLayerNormalization x1 read by the qkv MatMulNBits (N 96),
// an o MatMulNBits (K 96) standing in for attention and its output projection, the
// SkipSimplifiedLayerNormalization of o and h0 (normed x2, sum h1) read by the up
// MatMulNBits, and the residual Add of h1 and up's output writing y; edit changes the graph
// before it is written.
func preNormLayer(t *testing.T, edit func(g *proto.Graph)) []byte {
	t.Helper()
	const k = 64
	g := proto.Graph{Name: "layer",
		Inputs:  []proto.ValueInfo{{Name: "ids", Type: proto.Int64, Dims: proto.Dims(1, "s")}},
		Outputs: []proto.ValueInfo{{Name: "y", Type: proto.Float, Dims: proto.Dims(1, "s", k)}}}
	g.Initializers = append(g.Initializers, proto.FloatTensor("table", []int64{10, k}, make([]float32, 10*k)),
		proto.FloatTensor("g1", []int64{k}, make([]float32, k)), proto.FloatTensor("g2", []int64{k}, make([]float32, k)))
	mm := func(name, in, out string, kk, n int64) proto.Node { return q4Node(&g, name, in, out, kk, n) }
	g.Nodes = []proto.Node{
		{Name: "emb", OpType: "Gather", Inputs: []string{"table", "ids"}, Outputs: []string{"h0"}},
		{Name: "norm1", OpType: "SimplifiedLayerNormalization", Inputs: []string{"h0", "g1"}, Outputs: []string{"x1"},
			Attrs: []proto.Attr{proto.IntAttr("axis", -1), proto.FloatAttr("epsilon", 1e-6), proto.IntAttr("stash_type", 1)}},
		mm("qkv", "x1", "a", k, 96),
		mm("o", "a", "o", 96, k),
		{Name: "norm2", OpType: "SkipSimplifiedLayerNormalization", Domain: "com.microsoft", Inputs: []string{"o", "h0", "g2"},
			Outputs: []string{"x2", "", "", "h1"}, Attrs: []proto.Attr{proto.FloatAttr("epsilon", 1e-6)}},
		mm("up", "x2", "m", k, k),
		{Name: "add", OpType: "Add", Inputs: []string{"h1", "m"}, Outputs: []string{"y"}},
	}
	return msModel(t, g, edit)
}

func TestFusePreNorm(t *testing.T) {
	on := Options{MatMulKernel: MatMulKernel{Domain: "test.f32"}, FusePreNorm: true}
	extraReader := func(tensor string) func(g *proto.Graph) {
		return func(g *proto.Graph) {
			g.Nodes = append(g.Nodes, proto.Node{Name: "other", OpType: "Neg", Inputs: []string{tensor}, Outputs: []string{"other"}})
			g.Outputs = append(g.Outputs, proto.ValueInfo{Name: "other", Type: proto.Float, Dims: proto.Dims(1, "s", 64)})
		}
	}
	tests := []struct {
		name    string
		o       Options
		edit    func(g *proto.Graph)
		fused   []string // the products that took their norm
		skipped string   // a part of Report.PreNormSkipped
	}{
		{name: "both norms", o: on, fused: []string{"qkv", "up"}},
		{name: "option off", o: Options{MatMulKernel: on.MatMulKernel}},
		{name: "no kernel", o: Options{FusePreNorm: true}},
		{name: "normed output read elsewhere too", o: on, edit: extraReader("x2"), fused: []string{"qkv"}},
		{name: "normed output a graph output", o: on, fused: []string{"qkv"}, skipped: "graph output", edit: func(g *proto.Graph) {
			g.Outputs = append(g.Outputs, proto.ValueInfo{Name: "x2", Type: proto.Float, Dims: proto.Dims(1, "s", 64)})
		}},
		{name: "skip norm with beta", o: on, fused: []string{"qkv"}, skipped: "beta or bias", edit: func(g *proto.Graph) {
			nodeOf(g, "norm2").Inputs = append(nodeOf(g, "norm2").Inputs, "g1")
		}},
		{name: "skip norm's inverse deviation read", o: on, fused: []string{"qkv"}, skipped: "beta or bias", edit: func(g *proto.Graph) {
			nodeOf(g, "norm2").Outputs[2] = "inv"
			g.Outputs = append(g.Outputs, proto.ValueInfo{Name: "inv", Type: proto.Float, Dims: proto.Dims(1, "s", 1)})
		}},
		{name: "skip a graph input (may broadcast)", o: on, fused: []string{"qkv"}, skipped: "not both the stream's", edit: func(g *proto.Graph) {
			g.Inputs = append(g.Inputs, proto.ValueInfo{Name: "bias", Type: proto.Float, Dims: proto.Dims(64)})
			nodeOf(g, "norm2").Inputs[1] = "bias"
		}},
		{name: "norm over another axis", o: on, fused: []string{"up"}, skipped: "last axis", edit: func(g *proto.Graph) {
			nodeOf(g, "norm1").Attrs[0] = proto.IntAttr("axis", 1)
		}},
		{name: "stash_type 0", o: on, fused: []string{"up"}, skipped: "stash_type", edit: func(g *proto.Graph) {
			nodeOf(g, "norm1").Attrs[2] = proto.IntAttr("stash_type", 0)
		}},
		{name: "weight not K values", o: on, fused: []string{"qkv"}, skipped: "K = 64 values", edit: func(g *proto.Graph) {
			g.Initializers[2] = proto.FloatTensor("g2", []int64{32}, make([]float32, 32))
		}},
		{name: "weight computed", o: on, fused: []string{"qkv"}, skipped: "not a float32 initializer", edit: func(g *proto.Graph) {
			g.Nodes = slices.Insert(g.Nodes, 0, proto.Node{Name: "gw", OpType: "Neg", Inputs: []string{"g2"}, Outputs: []string{"g2n"}})
			nodeOf(g, "norm2").Inputs[2] = "g2n"
		}},
		{name: "product not on the kernel (an attribute it does not take)", o: on, fused: []string{"qkv"}, edit: func(g *proto.Graph) {
			nodeOf(g, "up").Attrs = append(nodeOf(g, "up").Attrs, proto.IntAttr(SwiGLUAttr, 0))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := preNormLayer(t, tc.edit)
			b, rep, err := Rewrite(src, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.PreNorm != len(tc.fused) || !strings.Contains(rep.PreNormSkipped, tc.skipped) || (tc.skipped == "") != (rep.PreNormSkipped == "") {
				t.Fatalf("fused %d (skipped %q), want %d (skipped %q)", rep.PreNorm, rep.PreNormSkipped, len(tc.fused), tc.skipped)
			}
			info, err := proto.Parse(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if meta, want := info.Metadata[MetaPreNorm], map[bool]string{true: strconv.Itoa(len(tc.fused))}[len(tc.fused) > 0]; meta != want {
				t.Errorf("metadata %s %q, want %q", MetaPreNorm, meta, want)
			}
			before, after := graphNodes(t, src), graphNodes(t, b)
			if len(after) != len(before)-len(tc.fused) {
				t.Errorf("%d nodes, want %d", len(after), len(before)-len(tc.fused))
			}
			at := map[string]int{}
			for i, n := range after {
				at[n.name] = i
			}
			// Each fused product: the norm's inputs, weight and epsilon, its sum, at the norm's place.
			want := map[string]struct {
				norm    string
				in, out []string
			}{
				"qkv": {"norm1", []string{"h0", "qkv_q4", "qkv_scales", "", "", "", "g1"}, []string{"a"}},
				"up":  {"norm2", []string{"o", "up_q4", "up_scales", "", "", "", "g2", "h0"}, []string{"m", "h1"}},
			}
			for name, w := range want {
				i, ok := at[name]
				if !ok {
					t.Fatalf("product %s is gone", name)
				}
				p := after[i]
				_, normLeft := at[w.norm]
				v, has, _ := intAttr(p.raw, PreNormAttr)
				if !slices.Contains(tc.fused, name) {
					if has || !normLeft {
						t.Errorf("%s: %s set %v, norm left %v; want it unfused", name, PreNormAttr, has, normLeft)
					}
					continue
				}
				if !has || v != 1 || normLeft {
					t.Errorf("%s: %s %d (set %v), norm left %v; want 1 and the norm gone", name, PreNormAttr, v, has, normLeft)
				}
				if eps, ok := floatAttr(p.raw, "epsilon"); !ok || eps != 1e-6 {
					t.Errorf("%s: epsilon %g (set %v), want the norm's 1e-6", name, eps, ok)
				}
				if !slices.Equal(p.inputs, w.in) || !slices.Equal(p.outputs, w.out) {
					t.Errorf("%s: inputs %q outputs %q, want %q %q", name, p.inputs, p.outputs, w.in, w.out)
				}
				for _, o := range p.outputs {
					for j, r := range after {
						if j < i && slices.Contains(r.inputs, o) {
							t.Errorf("%s writes %s after %s reads it", name, o, r.name)
						}
					}
				}
			}
		})
	}
}

// TestDQTwinSplitsPreNorm: the int8 prompt twin of a copy whose products took their norms has
// the norms as nodes again (with the same inputs, weight, epsilon and sum) and rewrites every
// product, those that took a norm included, as over a copy without the fusion.
func TestDQTwinSplitsPreNorm(t *testing.T) {
	dir := t.TempDir()
	fused, rep, err := Rewrite(preNormLayer(t, nil), Options{MatMulKernel: MatMulKernel{Domain: "test.f32"}, FusePreNorm: true})
	if err != nil || rep.PreNorm != 2 {
		t.Fatalf("fused %d (%v), want 2", rep.PreNorm, err)
	}
	in := filepath.Join(dir, "in.onnx")
	if err := os.WriteFile(in, fused, 0o644); err != nil {
		t.Fatal(err)
	}
	n, _, err := DQTwin(in, filepath.Join(dir, "twin"), DQOptions{MaxN: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("%d products rewritten, want all 3", n)
	}
	twin, err := os.ReadFile(filepath.Join(dir, "twin", "in.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]node{}
	for _, x := range graphNodes(t, twin) {
		if _, ok, _ := intAttr(x.raw, PreNormAttr); ok {
			t.Errorf("node %s still has %s", x.name, PreNormAttr)
		}
		ops[x.op] = x
	}
	skip, plain := ops[skipNormOp], ops["SimplifiedLayerNormalization"]
	if !slices.Equal(skip.inputs, []string{"o", "h0", "g2"}) || len(skip.outputs) != 4 || skip.outputs[3] != "h1" || skip.domain != "com.microsoft" {
		t.Errorf("skip norm: inputs %q outputs %q domain %q", skip.inputs, skip.outputs, skip.domain)
	}
	if !slices.Equal(plain.inputs, []string{"h0", "g1"}) {
		t.Errorf("norm: inputs %q", plain.inputs)
	}
	for _, x := range []node{skip, plain} {
		if eps, ok := floatAttr(x.raw, "epsilon"); !ok || eps != 1e-6 {
			t.Errorf("%s: epsilon %g (set %v), want 1e-6", x.op, eps, ok)
		}
	}
}
