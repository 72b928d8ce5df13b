package optimize_test

import (
	"slices"
	"strings"
	"testing"

	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// qkKernel is a small attention shape for the q/k norm tests: head size 16, 4 query heads, 2 KV.
var qkKernel = optimize.AttentionKernel{Domain: "test.f32", DomainInt8: "test.kv8", HeadSize: 16, Heads: 4, KVHeads: 2, QKNorm: true}

// qkModel is one Qwen3 layer's attention as the app's copies have it before the kernels: the
// packed QKV MatMul, a Split into q, k and v, for q and k a Reshape to heads, a
// SimplifiedLayerNormalization over the head size and a Reshape back, and com.microsoft
// GroupQueryAttention. edit changes the graph before it is written.
func qkModel(t *testing.T, edit func(g *proto.Graph)) []byte {
	t.Helper()
	const d, h, kv, hidden, rows = 16, 4, 2, 8, 32
	f := proto.Float
	g := proto.Graph{
		Name: "layer",
		Inputs: []proto.ValueInfo{
			{Name: "x", Type: f, Dims: proto.Dims(1, "s", hidden)},
			{Name: "past_key", Type: f, Dims: proto.Dims(1, kv, "p", d)},
			{Name: "past_value", Type: f, Dims: proto.Dims(1, kv, "p", d)},
			{Name: "seqlens_k", Type: proto.Int32, Dims: proto.Dims(1)},
			{Name: "total_sequence_length", Type: proto.Int32, Dims: proto.Dims()},
		},
		Outputs: []proto.ValueInfo{
			{Name: "out", Type: f, Dims: proto.Dims(1, "s", h*d)},
			{Name: "present_key", Type: f, Dims: proto.Dims(1, kv, "t", d)},
			{Name: "present_value", Type: f, Dims: proto.Dims(1, kv, "t", d)},
		},
		Initializers: []*proto.Tensor{
			proto.FloatTensor("w", []int64{hidden, (h + 2*kv) * d}, make([]float32, hidden*(h+2*kv)*d)),
			proto.Int64Tensor("sizes", []int64{3}, []int64{h * d, kv * d, kv * d}),
			proto.Int64Tensor("q_heads", []int64{4}, []int64{0, 0, -1, d}),
			proto.Int64Tensor("k_heads", []int64{4}, []int64{0, 0, -1, d}),
			proto.Int64Tensor("q_flat", []int64{3}, []int64{0, 0, h * d}),
			proto.Int64Tensor("k_flat", []int64{3}, []int64{0, 0, kv * d}),
			proto.FloatTensor("q_norm", []int64{d}, make([]float32, d)),
			proto.FloatTensor("k_norm", []int64{d}, make([]float32, d)),
			proto.FloatTensor("cos", []int64{rows, d / 2}, make([]float32, rows*d/2)),
			proto.FloatTensor("sin", []int64{rows, d / 2}, make([]float32, rows*d/2)),
		},
	}
	norm := func(p, x string) []proto.Node {
		return []proto.Node{
			{Name: p + "_reshape", OpType: "Reshape", Inputs: []string{x, p + "_heads"}, Outputs: []string{p + "_h"}},
			{Name: p + "_normed", OpType: "SimplifiedLayerNormalization", Inputs: []string{p + "_h", p + "_norm"}, Outputs: []string{p + "_n"},
				Attrs: []proto.Attr{proto.IntAttr("axis", -1), proto.FloatAttr("epsilon", 1e-6), proto.IntAttr("stash_type", 1)}},
			{Name: p + "_back", OpType: "Reshape", Inputs: []string{p + "_n", p + "_flat"}, Outputs: []string{p}},
		}
	}
	g.Nodes = []proto.Node{
		{Name: "qkv", OpType: "MatMul", Inputs: []string{"x", "w"}, Outputs: []string{"packed"}},
		{Name: "split", OpType: "Split", Inputs: []string{"packed", "sizes"}, Outputs: []string{"q_p", "k_p", "v"},
			Attrs: []proto.Attr{proto.IntAttr("axis", -1)}},
	}
	g.Nodes = append(g.Nodes, norm("q", "q_p")...)
	g.Nodes = append(g.Nodes, norm("k", "k_p")...)
	g.Nodes = append(g.Nodes, proto.Node{Name: "attention", OpType: "GroupQueryAttention", Domain: "com.microsoft",
		Inputs:  []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos", "sin"},
		Outputs: []string{"out", "present_key", "present_value"},
		Attrs: []proto.Attr{proto.IntAttr("num_heads", h), proto.IntAttr("kv_num_heads", kv),
			proto.FloatAttr("scale", 0.25), proto.IntAttr("do_rotary", 1)}})
	return optimize.MSModel(t, g, edit)
}

// nodeNamed is g's node named name.
func nodeNamed(g *proto.Graph, name string) *proto.Node {
	for i := range g.Nodes {
		if g.Nodes[i].Name == name {
			return &g.Nodes[i]
		}
	}
	panic("no node " + name)
}

func TestQKNorm(t *testing.T) {
	folded := "MatMul GroupQueryAttention"
	unfolded := "MatMul Split Reshape SimplifiedLayerNormalization Reshape Reshape SimplifiedLayerNormalization Reshape GroupQueryAttention"
	tests := []struct {
		name    string
		kernel  optimize.AttentionKernel
		edit    func(g *proto.Graph)
		ops     string // the copy's node types, in order
		skipped string // a part of Report.QKNormSkipped
	}{
		{name: "folded", kernel: qkKernel, ops: folded},
		{name: "option off", kernel: func() optimize.AttentionKernel { k := qkKernel; k.QKNorm = false; return k }(), ops: unfolded},
		{name: "another reader of the normed queries", kernel: qkKernel, ops: unfolded + " Identity", skipped: "query: q_n has another reader",
			edit: func(g *proto.Graph) {
				g.Nodes = append(g.Nodes, proto.Node{Name: "peek", OpType: "Identity", Inputs: []string{"q_n"}, Outputs: []string{"peek"}})
				g.Outputs = append(g.Outputs, proto.ValueInfo{Name: "peek", Type: proto.Float, Dims: proto.Dims(1, "s", 4, 16)})
			}},
		{name: "the value read elsewhere", kernel: qkKernel, ops: unfolded + " Identity", skipped: "value has another reader",
			edit: func(g *proto.Graph) {
				g.Nodes = append(g.Nodes, proto.Node{Name: "peek", OpType: "Identity", Inputs: []string{"v"}, Outputs: []string{"peek"}})
				g.Outputs = append(g.Outputs, proto.ValueInfo{Name: "peek", Type: proto.Float, Dims: proto.Dims(1, "s", 32)})
			}},
		{name: "interleaved (q and k parts swapped)", kernel: qkKernel, ops: unfolded, skipped: "not parts 0, 1 and 2",
			edit: func(g *proto.Graph) {
				nodeNamed(g, "split").Outputs = []string{"k_p", "q_p", "v"}
			}},
		{name: "another norm axis", kernel: qkKernel, ops: unfolded, skipped: "normalizes axis 2",
			edit: func(g *proto.Graph) {
				n := nodeNamed(g, "k_normed")
				n.Attrs[0] = proto.IntAttr("axis", 2)
			}},
		{name: "no norm", kernel: qkKernel, ops: "MatMul Split Reshape Reshape Reshape SimplifiedLayerNormalization Reshape GroupQueryAttention",
			skipped: "query: q_h is not made by a SimplifiedLayerNormalization",
			edit: func(g *proto.Graph) {
				g.Nodes = slices.DeleteFunc(g.Nodes, func(n proto.Node) bool { return n.Name == "q_normed" })
				nodeNamed(g, "q_back").Inputs[0] = "q_h"
			}},
		{name: "the Split of a graph input", kernel: qkKernel, ops: "Split Reshape SimplifiedLayerNormalization Reshape Reshape SimplifiedLayerNormalization Reshape GroupQueryAttention",
			skipped: "not a MatMulNBits or MatMul output",
			edit: func(g *proto.Graph) {
				g.Nodes = g.Nodes[1:]
				g.Inputs = append(g.Inputs, proto.ValueInfo{Name: "packed", Type: proto.Float, Dims: proto.Dims(1, "s", 128)})
			}},
		{name: "other split sizes", kernel: qkKernel, ops: unfolded, skipped: "does not split the last axis into 64, 32 and 32",
			edit: func(g *proto.Graph) {
				for i, in := range g.Initializers {
					if in.Name == "sizes" {
						g.Initializers[i] = proto.Int64Tensor("sizes", []int64{3}, []int64{32, 64, 32})
					}
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, rep, err := optimize.Rewrite(qkModel(t, tt.edit), optimize.Options{AttentionKernel: tt.kernel})
			if err != nil {
				t.Fatal(err)
			}
			nodes, err := optimize.GraphNodes(out)
			if err != nil {
				t.Fatal(err)
			}
			var ops []string
			var attn optimize.GraphNode
			for _, n := range nodes {
				ops = append(ops, n.Op)
				if n.Op == "GroupQueryAttention" {
					attn = n
				}
			}
			if got := strings.Join(ops, " "); got != tt.ops {
				t.Errorf("nodes %s; want %s", got, tt.ops)
			}
			if attn.Domain != "test.f32" {
				t.Errorf("attention in %q, want test.f32", attn.Domain)
			}
			if tt.ops == folded {
				want := []string{"packed", "", "", "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos", "sin", "", "", "", "", "", "q_norm", "k_norm"}
				if !slices.Equal(attn.Inputs, want) {
					t.Errorf("attention inputs %q; want %q", attn.Inputs, want)
				}
				if eps := attn.QKNormEps; eps != 1e-6 || rep.QKNormFolded != 1 {
					t.Errorf("qk_norm_epsilon %g, QKNormFolded %d; want 1e-06 and 1", attn.QKNormEps, rep.QKNormFolded)
				}
			}
			if !strings.Contains(rep.QKNormSkipped, tt.skipped) || tt.skipped == "" && rep.QKNormSkipped != "" {
				t.Errorf("QKNormSkipped %q, want it to say %q", rep.QKNormSkipped, tt.skipped)
			}
		})
	}
}

// TestQKNormInt8Copy quantizes the cache of a copy whose attention took its q/k norms: the
// scales go to inputs 12 and 13, the norms stay at 14 and 15.
func TestQKNormInt8Copy(t *testing.T) {
	out, _, err := optimize.Rewrite(qkModel(t, nil), optimize.Options{AttentionKernel: qkKernel})
	if err != nil {
		t.Fatal(err)
	}
	q, err := optimize.QuantizeKV(out, optimize.KVScales{"past_key": make([]float32, 32), "past_value": make([]float32, 32)})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := optimize.GraphNodes(q)
	if err != nil {
		t.Fatal(err)
	}
	attn := nodes[len(nodes)-1]
	want := []string{"packed", "", "", "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos", "sin", "", "", "",
		"edgechat_kv8/past_key/scale", "edgechat_kv8/past_value/scale", "q_norm", "k_norm"}
	if attn.Domain != "test.kv8" || !slices.Equal(attn.Inputs, want) {
		t.Errorf("attention in %q, inputs %q; want test.kv8, %q", attn.Domain, attn.Inputs, want)
	}
}
