package optimize

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/onnx/proto"
)

// swigluLayer is a gated MLP as the app's copies have it: x [1, s, 64] through gate and up
// MatMulNBits (N 96 each, or one packed of N 192 and a Split with sizes [96, 96] when packed),
// SiLU as Sigmoid and Mul, a Mul by up, and the down MatMulNBits (K 96, N 64) writing y; edit
// changes the graph before it is written.
func swigluLayer(t *testing.T, packed bool, edit func(g *proto.Graph)) []byte {
	t.Helper()
	const k, f = 64, 96
	g := proto.Graph{Name: "mlp",
		Inputs:  []proto.ValueInfo{{Name: "x", Type: proto.Float, Dims: proto.Dims(1, "s", k)}},
		Outputs: []proto.ValueInfo{{Name: "y", Type: proto.Float, Dims: proto.Dims(1, "s", k)}}}
	mm := func(name, in, out string, kk, n int64) proto.Node { return q4Node(&g, name, in, out, kk, n) }
	if packed {
		g.Initializers = append(g.Initializers, proto.Int64Tensor("halves", []int64{2}, []int64{f, f}))
		g.Nodes = append(g.Nodes, mm("gate_up", "x", "gu", k, 2*f),
			proto.Node{Name: "split", OpType: "Split", Inputs: []string{"gu", "halves"}, Outputs: []string{"gate", "up"},
				Attrs: []proto.Attr{proto.IntAttr("axis", -1)}})
	} else {
		g.Nodes = append(g.Nodes, mm("gate", "x", "gate", k, f), mm("up", "x", "up", k, f))
	}
	g.Nodes = append(g.Nodes,
		proto.Node{Name: "sigmoid", OpType: "Sigmoid", Inputs: []string{"gate"}, Outputs: []string{"sig"}},
		proto.Node{Name: "silu", OpType: "Mul", Inputs: []string{"gate", "sig"}, Outputs: []string{"silu"}},
		proto.Node{Name: "gated", OpType: "Mul", Inputs: []string{"silu", "up"}, Outputs: []string{"h"}},
		mm("down", "h", "y", f, k))
	return msModel(t, g, edit)
}

// graphNodes are the nodes of model b.
func graphNodes(t *testing.T, b []byte) []node {
	t.Helper()
	mfs, err := fields(b)
	if err != nil {
		t.Fatal(err)
	}
	var out []node
	for _, f := range mfs {
		if f.num != proto.FieldModelGraph || f.typ != protowire.BytesType {
			continue
		}
		gfs, err := fields(f.val)
		if err != nil {
			t.Fatal(err)
		}
		for _, gf := range gfs {
			if gf.num == proto.FieldGraphNode {
				n, err := parseNode(gf.val)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, n)
			}
		}
	}
	return out
}

// nodeOf returns g's node named name (nil when none).
func nodeOf(g *proto.Graph, name string) *proto.Node {
	for i := range g.Nodes {
		if g.Nodes[i].Name == name {
			return &g.Nodes[i]
		}
	}
	return nil
}

func TestFuseSwiGLU(t *testing.T) {
	on := Options{MatMulKernel: MatMulKernel{Domain: "test.f32"}, FuseSwiGLU: true}
	onPacking := on
	onPacking.FuseGateUp = true
	extraReader := func(tensor string) func(g *proto.Graph) {
		return func(g *proto.Graph) {
			g.Nodes = append(g.Nodes, proto.Node{Name: "other", OpType: "Neg", Inputs: []string{tensor}, Outputs: []string{"other"}})
			g.Outputs = append(g.Outputs, proto.ValueInfo{Name: "other", Type: proto.Float, Dims: proto.Dims(1, "s", 96)})
		}
	}
	output := func(tensor string) func(g *proto.Graph) {
		return func(g *proto.Graph) {
			g.Outputs = append(g.Outputs, proto.ValueInfo{Name: tensor, Type: proto.Float, Dims: proto.Dims(1, "s", 96)})
		}
	}
	quickGelu := func(alpha ...float32) func(g *proto.Graph) {
		return func(g *proto.Graph) {
			q := proto.Node{Name: "silu", OpType: "QuickGelu", Domain: "com.microsoft", Inputs: []string{"gate"}, Outputs: []string{"silu"}}
			for _, a := range alpha {
				q.Attrs = append(q.Attrs, proto.FloatAttr("alpha", a))
			}
			*nodeOf(g, "silu") = q
			*nodeOf(g, "sigmoid") = proto.Node{Name: "unused", OpType: "Identity", Inputs: []string{"x"}, Outputs: []string{"unused"}}
		}
	}
	tests := []struct {
		name    string
		packed  bool
		o       Options
		edit    func(g *proto.Graph)
		fused   int
		skipped string // a part of Report.SwiGLUSkipped
	}{
		{name: "packed by the rewrite", o: onPacking, fused: 1},
		{name: "packed in the graph", packed: true, o: on, fused: 1},
		{name: "factors in the other order", packed: true, o: on, fused: 1, edit: func(g *proto.Graph) {
			nodeOf(g, "silu").Inputs = []string{"sig", "gate"}
			nodeOf(g, "gated").Inputs = []string{"up", "silu"}
		}},
		{name: "QuickGelu alpha 1", packed: true, o: on, fused: 1, edit: quickGelu(1)},
		{name: "QuickGelu without alpha: GELU", packed: true, o: on, edit: quickGelu(), skipped: "neither factor"},
		{name: "QuickGelu alpha 1.702: GELU", packed: true, o: on, edit: quickGelu(1.702), skipped: "neither factor"},
		{name: "option off", packed: true, o: Options{MatMulKernel: on.MatMulKernel}},
		{name: "no kernel", packed: true, o: Options{FuseSwiGLU: true}},
		{name: "gate and up not packed", o: on, skipped: "not a Split's output"},
		{name: "halves swapped", packed: true, o: on, skipped: "swapped", edit: func(g *proto.Graph) {
			nodeOf(g, "split").Outputs = []string{"up", "gate"}
		}},
		{name: "Split not in halves", packed: true, o: on, skipped: "not two halves", edit: func(g *proto.Graph) {
			g.Initializers[len(g.Initializers)-5] = proto.Int64Tensor("halves", []int64{2}, []int64{64, 128})
		}},
		{name: "Split sizes not constant", packed: true, o: on, skipped: "not a constant", edit: func(g *proto.Graph) {
			nodeOf(g, "split").Inputs[1] = "x"
		}},
		{name: "Split without sizes of a product of N 2K", packed: true, o: on, fused: 1, edit: func(g *proto.Graph) {
			nodeOf(g, "split").Inputs = []string{"gu"}
		}},
		{name: "Split without sizes of another tensor", packed: true, o: on, skipped: "gives no sizes", edit: func(g *proto.Graph) {
			nodeOf(g, "split").Inputs = []string{"x"}
		}},
		{name: "Split on another axis", packed: true, o: on, skipped: "axis -1", edit: func(g *proto.Graph) {
			nodeOf(g, "split").Attrs = []proto.Attr{proto.IntAttr("axis", 1)}
		}},
		{name: "Sigmoid of up", packed: true, o: on, skipped: "neither factor", edit: func(g *proto.Graph) {
			nodeOf(g, "sigmoid").Inputs = []string{"up"}
		}},
		{name: "silu read elsewhere", packed: true, o: on, edit: extraReader("silu"), skipped: "silu is read"},
		{name: "up read elsewhere", packed: true, o: on, edit: extraReader("up"), skipped: "up is read"},
		{name: "gate read elsewhere", packed: true, o: on, edit: extraReader("gate"), skipped: "gate is read"},
		{name: "Sigmoid read elsewhere", packed: true, o: on, edit: extraReader("sig"), skipped: "sig is read"},
		{name: "product input read elsewhere", packed: true, o: on, edit: extraReader("h"), skipped: "read elsewhere"},
		{name: "product input a graph output", packed: true, o: on, edit: output("h"), skipped: "read elsewhere"},
		{name: "up a graph output", packed: true, o: on, edit: output("up"), skipped: "up is read"},
		{name: "a third Split output", packed: true, o: on, skipped: "not the two outputs", edit: func(g *proto.Graph) {
			sp := nodeOf(g, "split")
			sp.Outputs = append(sp.Outputs, "third")
			g.Initializers[len(g.Initializers)-5] = proto.Int64Tensor("halves", []int64{3}, []int64{96, 96, 0})
		}},
		{name: "swiglu already set: not moved", packed: true, o: on, edit: func(g *proto.Graph) {
			d := nodeOf(g, "down")
			d.Attrs = append(d.Attrs, proto.IntAttr("swiglu", 1))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := swigluLayer(t, tc.packed, tc.edit)
			b, rep, err := Rewrite(src, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.SwiGLU != tc.fused || !strings.Contains(rep.SwiGLUSkipped, tc.skipped) || (tc.skipped == "") != (rep.SwiGLUSkipped == "") {
				t.Fatalf("fused %d (skipped %q), want %d (skipped %q)", rep.SwiGLU, rep.SwiGLUSkipped, tc.fused, tc.skipped)
			}
			info, err := proto.Parse(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if meta, want := info.Metadata[MetaSwiGLU], map[bool]string{true: strconv.Itoa(tc.fused)}[tc.fused > 0]; meta != want {
				t.Errorf("metadata %s %q, want %q", MetaSwiGLU, meta, want)
			}
			before, after := graphNodes(t, src), graphNodes(t, b)
			var down *node
			ops := map[string]int{}
			for i, n := range after {
				ops[n.op]++
				if n.op == "MatMulNBits" && n.outputs[0] == "y" {
					down = &after[i]
				}
			}
			if down == nil {
				t.Fatal("the down projection is gone")
			}
			if tc.fused == 0 {
				if len(after) != len(before) {
					t.Errorf("%d nodes, want %d as before", len(after), len(before))
				}
				return
			}
			if v, has, _ := intAttr(down.raw, SwiGLUAttr); !has || v != 1 {
				t.Errorf("down projection: %s %d (set %v), want 1", SwiGLUAttr, v, has)
			}
			if ops["Split"]+ops["Sigmoid"]+ops["Mul"]+ops["QuickGelu"] != 0 {
				t.Errorf("nodes left: %v", ops)
			}
			gu := after[0]
			if gu.op != "MatMulNBits" || down.inputs[0] != gu.outputs[0] {
				t.Errorf("down projection reads %s, want the packed gate+up's output (nodes %v)", down.inputs[0], ops)
			}
			if n, _, _ := intAttr(gu.raw, "N"); n != 192 {
				t.Errorf("gate+up N %d, want 192", n)
			}
		})
	}
}

// TestTwinsLeaveSwiGLU: the int8 and row-quantized twins re-encode a kernel's plain products
// but not one that takes its activation (A is gate | up, 2K wide).
func TestTwinsLeaveSwiGLU(t *testing.T) {
	base := withDomain(mkNode(encodeNode("down", "MatMulNBits", []string{"h", "w", "s"}, []string{"y"}), withInt("K", 96), withInt("N", 64)), "test.f32")
	fused, err := withIntAttr(base.raw, SwiGLUAttr, 1)
	if err != nil {
		t.Fatal(err)
	}
	off, err := withIntAttr(base.raw, SwiGLUAttr, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		raw  []byte
		want bool
	}{
		{"plain", base.raw, true},
		{"swiglu 1", fused, false},
		{"swiglu 0: any swiglu attribute is left alone", off, false},
	}
	for _, tc := range tests {
		if _, ok, err := plainMatMulNBits(tc.raw, "test.f32"); err != nil || ok != tc.want {
			t.Errorf("%s: plain %v (%v), want %v", tc.name, ok, err, tc.want)
		}
	}
}

// msModel is the model of graph g (opset 17 and com.microsoft's), after edit (nil: none)
// changes it: the one-layer graphs of the rewrites' tests.
func msModel(t *testing.T, g proto.Graph, edit func(*proto.Graph)) []byte {
	t.Helper()
	if edit != nil {
		edit(&g)
	}
	m := proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// q4Node is a com.microsoft MatMulNBits node name (in → out, K kk, N n, 4 bits, blocks of 32,
// level 4) whose zero weights and scales it adds to g's initializers.
func q4Node(g *proto.Graph, name, in, out string, kk, n int64) proto.Node {
	g.Initializers = append(g.Initializers,
		&proto.Tensor{Name: name + "_q4", DataType: proto.Uint8, Dims: []int64{n, kk / 32, 16}, Raw: make([]byte, n*kk/2)},
		proto.FloatTensor(name+"_scales", []int64{n * kk / 32}, make([]float32, n*kk/32)))
	return proto.Node{Name: name, OpType: "MatMulNBits", Domain: "com.microsoft",
		Inputs: []string{in, name + "_q4", name + "_scales"}, Outputs: []string{out},
		Attrs: []proto.Attr{proto.IntAttr("K", kk), proto.IntAttr("N", n), proto.IntAttr("bits", 4),
			proto.IntAttr("block_size", 32), proto.IntAttr("accuracy_level", 4)}}
}
