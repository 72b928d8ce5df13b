package optimize_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// kernelTest is the AttentionKernel the tests ask for: Qwen3-0.6B's shape.
var kernelTest = optimize.AttentionKernel{Domain: "test.f32", DomainInt8: "test.kv8", HeadSize: 128, Heads: 16, KVHeads: 8}

// gqaModel is a one-node GroupQueryAttention graph as the app's copies write them (headSize,
// heads, kvHeads; an int8 cache with scales), edit changing the node before it is written.
func gqaModel(t *testing.T, headSize, heads, kvHeads int64, cache proto.DataType, edit func(n *proto.Node)) []byte {
	t.Helper()
	f := proto.Float
	rows := int64(64)
	g := proto.Graph{
		Name: "gqa",
		Inputs: []proto.ValueInfo{
			{Name: "q", Type: f, Dims: proto.Dims(1, "s", heads*headSize)},
			{Name: "k", Type: f, Dims: proto.Dims(1, "s", kvHeads*headSize)},
			{Name: "v", Type: f, Dims: proto.Dims(1, "s", kvHeads*headSize)},
			{Name: "past_key", Type: cache, Dims: proto.Dims(1, kvHeads, "p", headSize)},
			{Name: "past_value", Type: cache, Dims: proto.Dims(1, kvHeads, "p", headSize)},
			{Name: "seqlens_k", Type: proto.Int32, Dims: proto.Dims(1)},
			{Name: "total_sequence_length", Type: proto.Int32, Dims: proto.Dims()},
		},
		Outputs: []proto.ValueInfo{
			{Name: "out", Type: f, Dims: proto.Dims(1, "s", heads*headSize)},
			{Name: "present_key", Type: cache, Dims: proto.Dims(1, kvHeads, "t", headSize)},
			{Name: "present_value", Type: cache, Dims: proto.Dims(1, kvHeads, "t", headSize)},
		},
		Initializers: []*proto.Tensor{
			proto.FloatTensor("cos", []int64{rows, headSize / 2}, make([]float32, rows*headSize/2)),
			proto.FloatTensor("sin", []int64{rows, headSize / 2}, make([]float32, rows*headSize/2)),
		},
	}
	n := proto.Node{Name: "attention", OpType: "GroupQueryAttention", Domain: "com.microsoft",
		Inputs:  []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos", "sin"},
		Outputs: []string{"out", "present_key", "present_value"},
		Attrs: []proto.Attr{proto.IntAttr("num_heads", heads), proto.IntAttr("kv_num_heads", kvHeads),
			proto.FloatAttr("scale", 0.088), proto.IntAttr("do_rotary", 1)},
	}
	if cache == proto.Int8 {
		s := make([]float32, kvHeads*headSize)
		g.Initializers = append(g.Initializers, proto.FloatTensor("k_scale", []int64{int64(len(s))}, s), proto.FloatTensor("v_scale", []int64{int64(len(s))}, s))
		n.Inputs = append(n.Inputs, "", "", "", "k_scale", "v_scale")
		n.Attrs = append(n.Attrs, proto.StringAttr("k_quant_type", "PER_CHANNEL"), proto.StringAttr("v_quant_type", "PER_CHANNEL"), proto.IntAttr("kv_cache_bit_width", 8))
	}
	if edit != nil {
		edit(&n)
	}
	g.Nodes = []proto.Node{n}
	return optimize.MSModel(t, g, nil)
}

// attentionAt says where a model's GroupQueryAttention runs: its domain, the domains it
// imports beside the standard one, and its kernel metadata.
func attentionAt(t *testing.T, b []byte) (domain string, imports []string, meta string) {
	t.Helper()
	info, err := proto.Parse(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for k := range info.Ops {
		if d, op, ok := strings.Cut(k, ":"); ok && op == "GroupQueryAttention" {
			domain = d
		}
	}
	for _, o := range info.Opsets {
		if o.Domain != "" {
			if o.Version != 1 {
				t.Errorf("domain %s imported at version %d", o.Domain, o.Version)
			}
			imports = append(imports, o.Domain)
		}
	}
	slices.Sort(imports)
	if n := info.Metadata[optimize.MetaAttentionKernel]; n != "" {
		meta = n + " " + info.Metadata[optimize.MetaAttentionDomain] + " " + info.Metadata[optimize.MetaAttentionDomainInt8]
	}
	return domain, imports, meta
}

func TestAttentionKernel(t *testing.T) {
	both := []string{"com.microsoft", "test.f32", "test.kv8"}
	ms := []string{"com.microsoft"}
	setAttr := func(a proto.Attr) func(n *proto.Node) {
		return func(n *proto.Node) { n.Attrs = append(n.Attrs, a) }
	}
	tests := []struct {
		name                     string
		kernel                   optimize.AttentionKernel
		headSize, heads, kvHeads int64
		cache                    proto.DataType
		edit                     func(n *proto.Node)
		domain                   string
		imports                  []string
		meta                     string
		skipped                  string // a part of Report.AttentionKernelSkipped
	}{
		{name: "float32 cache", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 8, cache: proto.Float,
			domain: "test.f32", imports: both, meta: "1 test.f32 test.kv8"},
		{name: "int8 cache", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 8, cache: proto.Int8,
			domain: "test.kv8", imports: both, meta: "1 test.f32 test.kv8"},
		{name: "option off", headSize: 128, heads: 16, kvHeads: 8, cache: proto.Float, domain: "com.microsoft", imports: ms},
		{name: "no int8 domain", kernel: optimize.AttentionKernel{Domain: "test.f32", HeadSize: 128, Heads: 16, KVHeads: 8},
			headSize: 128, heads: 16, kvHeads: 8, cache: proto.Int8, domain: "com.microsoft", imports: ms, skipped: "no kernel domain"},
		{name: "another head size (stories260K's 8)", kernel: kernelTest, headSize: 8, heads: 16, kvHeads: 8, cache: proto.Float,
			domain: "com.microsoft", imports: ms, skipped: "head size 8"},
		{name: "another grouping", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 4, cache: proto.Float,
			domain: "com.microsoft", imports: ms, skipped: "4 KV heads"},
		{name: "float16 cache", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 8, cache: proto.Float16,
			domain: "com.microsoft", imports: ms, skipped: "cache is float16"},
		{name: "rotary outside", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 8, cache: proto.Float,
			edit: func(n *proto.Node) {
				n.Inputs = n.Inputs[:7]
				n.Attrs = slices.DeleteFunc(n.Attrs, func(a proto.Attr) bool { return a.Name == "do_rotary" })
			},
			domain: "com.microsoft", imports: ms, skipped: "input 7 is missing"},
		{name: "packed QKV", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 8, cache: proto.Float,
			edit:   func(n *proto.Node) { n.Inputs[1], n.Inputs[2] = "", "" },
			domain: "com.microsoft", imports: ms, skipped: "input 1 is missing"},
		{name: "sliding window", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 8, cache: proto.Float,
			edit: setAttr(proto.IntAttr("local_window_size", 256)), domain: "com.microsoft", imports: ms, skipped: "attribute local_window_size"},
		{name: "interleaved rotary", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 8, cache: proto.Float,
			edit: setAttr(proto.IntAttr("rotary_interleaved", 1)), domain: "com.microsoft", imports: ms, skipped: "rotary_interleaved is 1"},
		{name: "attention bias", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 8, cache: proto.Float,
			edit:   func(n *proto.Node) { n.Inputs = append(n.Inputs, "", "bias") },
			domain: "com.microsoft", imports: ms, skipped: "input 10"},
		{name: "per-tensor int8 cache", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 8, cache: proto.Int8,
			edit: func(n *proto.Node) {
				for i, a := range n.Attrs {
					if a.Name == "k_quant_type" {
						n.Attrs[i] = proto.StringAttr("k_quant_type", "PER_TENSOR")
					}
				}
			},
			domain: "com.microsoft", imports: ms, skipped: `k_quant_type is "PER_TENSOR"`},
		{name: "4-bit cache", kernel: kernelTest, headSize: 128, heads: 16, kvHeads: 8, cache: proto.Int8,
			edit: func(n *proto.Node) {
				n.Attrs = slices.DeleteFunc(n.Attrs, func(a proto.Attr) bool { return a.Name == "kv_cache_bit_width" })
				n.Attrs = append(n.Attrs, proto.IntAttr("kv_cache_bit_width", 4))
			},
			domain: "com.microsoft", imports: ms, skipped: "kv_cache_bit_width is 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := gqaModel(t, tt.headSize, tt.heads, tt.kvHeads, tt.cache, tt.edit)
			out, rep, err := optimize.Rewrite(src, optimize.Options{AttentionKernel: tt.kernel})
			if err != nil {
				t.Fatal(err)
			}
			domain, imports, meta := attentionAt(t, out)
			if domain != tt.domain || !slices.Equal(imports, tt.imports) || meta != tt.meta {
				t.Errorf("attention in %q, imports %v, metadata %q; want %q, %v, %q", domain, imports, meta, tt.domain, tt.imports, tt.meta)
			}
			if want := 0; domain != "com.microsoft" {
				want = 1
				if rep.AttentionKernelNodes != want {
					t.Errorf("AttentionKernelNodes %d, want %d", rep.AttentionKernelNodes, want)
				}
			}
			if !strings.Contains(rep.AttentionKernelSkipped, tt.skipped) || tt.skipped == "" && rep.AttentionKernelSkipped != "" {
				t.Errorf("AttentionKernelSkipped %q, want it to say %q", rep.AttentionKernelSkipped, tt.skipped)
			}
		})
	}
}

// TestAttentionKernelInt8Copy quantizes the cache of copies whose attention moved: a float32
// kernel's nodes go to the int8 kernel's domain, or back to com.microsoft for a 4-bit cache
// or a copy without an int8 domain.
func TestAttentionKernelInt8Copy(t *testing.T) {
	tests := []struct {
		name   string
		kernel optimize.AttentionKernel
		bits   int
		domain string
	}{
		{"int8 kernel", kernelTest, 8, "test.kv8"},
		{"4-bit cache", kernelTest, 4, "com.microsoft"},
		{"no int8 kernel", optimize.AttentionKernel{Domain: "test.f32", HeadSize: 128, Heads: 16, KVHeads: 8}, 8, "com.microsoft"},
		{"plain copy", optimize.AttentionKernel{}, 8, "com.microsoft"},
	}
	scales := optimize.KVScales{"past_key": make([]float32, 8*128), "past_value": make([]float32, 8*128)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			copied, _, err := optimize.Rewrite(gqaModel(t, 128, 16, 8, proto.Float, nil), optimize.Options{AttentionKernel: tt.kernel})
			if err != nil {
				t.Fatal(err)
			}
			keys, err := optimize.KVKeys(copied)
			if err != nil || !keys["past_key"] {
				t.Errorf("KVKeys %v, %v: want past_key", keys, err)
			}
			q, err := optimize.QuantizeKVBits(copied, scales, tt.bits)
			if err != nil {
				t.Fatal(err)
			}
			if domain, _, _ := attentionAt(t, q); domain != tt.domain {
				t.Errorf("the %d-bit cache's attention is in %q, want %q", tt.bits, domain, tt.domain)
			}
			info, err := proto.Parse(bytes.NewReader(q), int64(len(q)))
			if err != nil {
				t.Fatal(err)
			}
			in, _ := info.Input("past_key")
			if want := map[int]string{8: "int8", 4: "uint8"}[tt.bits]; in.ElemType != want {
				t.Errorf("past_key is %s, want %s", in.ElemType, want)
			}
		})
	}
}

// TestAttentionKernelCacheKey: a copy with the kernels' domains is another copy than the one
// without, and another shape another again.
func TestAttentionKernelCacheKey(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(src, gqaModel(t, 128, 16, 8, proto.Float, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	other := kernelTest
	other.HeadSize = 64
	var paths []string
	for _, o := range []optimize.Options{{SharedKVAttention: true}, {SharedKVAttention: true, AttentionKernel: kernelTest}, {SharedKVAttention: true, AttentionKernel: other}} {
		p, err := optimize.CachedPath(src, dir, o)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if seen := map[string]bool{paths[0]: true, paths[1]: true, paths[2]: true}; len(seen) != 3 {
		t.Errorf("copies %v: want three different paths", paths)
	}
	if diff := cmp.Diff(paths[1], mustCachedPath(t, src, dir, optimize.Options{SharedKVAttention: true, AttentionKernel: kernelTest})); diff != "" {
		t.Errorf("the same options, another path (-want +got):\n%s", diff)
	}
}

func mustCachedPath(t *testing.T, src, dir string, o optimize.Options) string {
	t.Helper()
	p, err := optimize.CachedPath(src, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
