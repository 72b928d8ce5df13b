package optimize_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/internal/testkit/synth"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// maxK is a kernel's shapes: every K up to its value.
type maxK int

func (m maxK) TakesMatMul(k, n int) bool { return k <= int(m) }

// matMulTest is the MatMulKernel the tests ask for: it takes every K up to 4096.
var matMulTest = optimize.MatMulKernel{Domain: "test.f32", Shapes: maxK(4096)}

// nbitsModel is a graph of MatMulNBits nodes as the app's copies have them (k inputs; n
// outputs each; bits 4, block 32, accuracy level 4, float32 scales), all reading the input x,
// edit changing each node before it is written.
func nbitsModel(t *testing.T, k, n int64, nodes int, scales proto.DataType, edit func(n *proto.Node)) []byte {
	t.Helper()
	blocks := k / 32
	g := proto.Graph{Name: "nbits", Inputs: []proto.ValueInfo{{Name: "x", Type: proto.Float, Dims: proto.Dims(1, "s", k)}}}
	for i := range nodes {
		p := string(rune('a' + i))
		s := proto.FloatTensor(p+"_scales", []int64{n * blocks}, make([]float32, n*blocks))
		if scales == proto.Float16 {
			s = proto.Float16Tensor(p+"_scales", []int64{n * blocks}, make([]float32, n*blocks))
		}
		g.Initializers = append(g.Initializers,
			&proto.Tensor{Name: p + "_q4", DataType: proto.Uint8, Dims: []int64{n, blocks, 16}, Raw: make([]byte, n*blocks*16)}, s,
			proto.FloatTensor(p+"_bias", []int64{n}, make([]float32, n)))
		g.Outputs = append(g.Outputs, proto.ValueInfo{Name: p + "_y", Type: proto.Float, Dims: proto.Dims(1, "s", n)})
		nd := proto.Node{Name: p + "_mm", OpType: "MatMulNBits", Domain: "com.microsoft",
			Inputs: []string{"x", p + "_q4", p + "_scales"}, Outputs: []string{p + "_y"},
			Attrs: []proto.Attr{proto.IntAttr("K", k), proto.IntAttr("N", n), proto.IntAttr("bits", 4),
				proto.IntAttr("block_size", 32), proto.IntAttr("accuracy_level", 4)}}
		if edit != nil {
			edit(&nd)
		}
		g.Nodes = append(g.Nodes, nd)
	}
	return optimize.MSModel(t, g, nil)
}

// matMulsAt says where a model's MatMulNBits run (domain: count), the domains it imports
// beside the standard one, and its product-kernel metadata.
func matMulsAt(t *testing.T, b []byte) (at map[string]int, imports []string, meta string) {
	t.Helper()
	info, err := proto.Parse(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	at = map[string]int{}
	for k, c := range info.Ops {
		if d, op, ok := strings.Cut(k, ":"); ok && op == "MatMulNBits" {
			at[d] += c
		}
	}
	for _, o := range info.Opsets {
		if o.Domain != "" {
			if o.Version != 1 && o.Domain != "com.microsoft" {
				t.Errorf("domain %s imported at version %d", o.Domain, o.Version)
			}
			imports = append(imports, o.Domain)
		}
	}
	slices.Sort(imports)
	if n := info.Metadata[optimize.MetaMatMulKernel]; n != "" {
		meta = n + " " + info.Metadata[optimize.MetaMatMulDomain]
	}
	return at, imports, meta
}

func TestMatMulKernel(t *testing.T) {
	both := []string{"com.microsoft", "test.f32"}
	ms := []string{"com.microsoft"}
	setAttr := func(name string, v int64) func(n *proto.Node) {
		return func(n *proto.Node) {
			for i, a := range n.Attrs {
				if a.Name == name {
					n.Attrs[i] = proto.IntAttr(name, v)
					return
				}
			}
			n.Attrs = append(n.Attrs, proto.IntAttr(name, v))
		}
	}
	tests := []struct {
		name    string
		o       optimize.Options
		k       int64
		scales  proto.DataType
		edit    func(n *proto.Node)
		domain  string
		imports []string
		meta    string
		skipped string // a part of Report.MatMulKernelSkipped
	}{
		{name: "moved", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			domain: "test.f32", imports: both, meta: "1 test.f32"},
		{name: "a bias", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			edit:   func(n *proto.Node) { n.Inputs = append(n.Inputs, "", "", n.Inputs[1][:1]+"_bias") },
			domain: "test.f32", imports: both, meta: "1 test.f32"},
		{name: "empty zero points and g_idx", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			edit:   func(n *proto.Node) { n.Inputs = append(n.Inputs, "", "") },
			domain: "test.f32", imports: both, meta: "1 test.f32"},
		{name: "no rule: every shape", o: optimize.Options{MatMulKernel: optimize.MatMulKernel{Domain: "test.f32"}}, k: 8192, scales: proto.Float,
			domain: "test.f32", imports: both, meta: "1 test.f32"},
		{name: "option off", k: 1024, scales: proto.Float, domain: "com.microsoft", imports: ms},
		{name: "a rule but no domain", o: optimize.Options{MatMulKernel: optimize.MatMulKernel{Shapes: matMulTest.Shapes}}, k: 1024, scales: proto.Float,
			domain: "com.microsoft", imports: ms},
		{name: "a shape the kernel does not take", o: optimize.Options{MatMulKernel: matMulTest}, k: 8192, scales: proto.Float,
			domain: "com.microsoft", imports: ms, skipped: "does not take K 8192, N 64"},
		{name: "zero points", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			edit:   func(n *proto.Node) { n.Inputs = append(n.Inputs, n.Inputs[1]) },
			domain: "com.microsoft", imports: ms, skipped: "zero points"},
		{name: "g_idx", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			edit:   func(n *proto.Node) { n.Inputs = append(n.Inputs, "", "x") },
			domain: "com.microsoft", imports: ms, skipped: "g_idx"},
		{name: "8 bits", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			edit: setAttr("bits", 8), domain: "com.microsoft", imports: ms, skipped: "bits is 8"},
		{name: "blocks of 128", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			edit: setAttr("block_size", 128), domain: "com.microsoft", imports: ms, skipped: "block_size is 128"},
		{name: "float16 activations", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float16,
			domain: "com.microsoft", imports: ms, skipped: "not a float32 initializer"},
		{name: "scales computed by a node", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			edit:   func(n *proto.Node) { n.Inputs[2] = "x" },
			domain: "com.microsoft", imports: ms, skipped: "scales x are not a float32 initializer"},
		{name: "another attribute", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			edit: setAttr("weight_prepacked", 1), domain: "com.microsoft", imports: ms, skipped: "attribute weight_prepacked"},
		{name: "no K attribute", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			edit: func(n *proto.Node) {
				n.Attrs = slices.DeleteFunc(n.Attrs, func(a proto.Attr) bool { return a.Name == "K" })
			},
			domain: "com.microsoft", imports: ms, skipped: "no K"},
		{name: "another domain's MatMulNBits", o: optimize.Options{MatMulKernel: matMulTest}, k: 1024, scales: proto.Float,
			edit: func(n *proto.Node) { n.Domain = "other.ops" }, domain: "other.ops", imports: ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, rep, err := optimize.Rewrite(nbitsModel(t, tt.k, 64, 1, tt.scales, tt.edit), tt.o)
			if err != nil {
				t.Fatal(err)
			}
			at, imports, meta := matMulsAt(t, out)
			if at[tt.domain] != 1 || !slices.Equal(imports, tt.imports) || meta != tt.meta {
				t.Errorf("MatMulNBits in %v, imports %v, metadata %q; want in %q, %v, %q", at, imports, meta, tt.domain, tt.imports, tt.meta)
			}
			if want := map[bool]int{true: 1}[tt.domain == "test.f32"]; rep.MatMulKernelNodes != want {
				t.Errorf("MatMulKernelNodes %d, want %d", rep.MatMulKernelNodes, want)
			}
			if !strings.Contains(rep.MatMulKernelSkipped, tt.skipped) || tt.skipped == "" && rep.MatMulKernelSkipped != "" {
				t.Errorf("MatMulKernelSkipped %q, want it to say %q", rep.MatMulKernelSkipped, tt.skipped)
			}
		})
	}
}

// TestMatMulKernelWithOtherRewrites: packed products move (their scales are new initializers),
// a float-compute twin's nodes keep accuracy level 0, and a copy whose attention and products
// run in one domain imports it once.
func TestMatMulKernelWithOtherRewrites(t *testing.T) {
	t.Run("packed gate and up", func(t *testing.T) {
		out, rep, err := optimize.Rewrite(nbitsModel(t, 1024, 64, 2, proto.Float, nil), optimize.Options{FuseGateUp: true, MatMulKernel: matMulTest})
		if err != nil {
			t.Fatal(err)
		}
		if at, _, _ := matMulsAt(t, out); rep.PackedGateUp != 1 || rep.MatMulKernelNodes != 1 || at["test.f32"] != 1 || at["com.microsoft"] != 0 {
			t.Errorf("packed %d, moved %d, MatMulNBits in %v: want the packed node moved", rep.PackedGateUp, rep.MatMulKernelNodes, at)
		}
	})
	t.Run("float compute", func(t *testing.T) {
		out, _, err := optimize.Rewrite(nbitsModel(t, 1024, 64, 1, proto.Float, nil), optimize.Options{FloatCompute: true, MatMulKernel: matMulTest})
		if err != nil {
			t.Fatal(err)
		}
		info, err := proto.Parse(bytes.NewReader(out), int64(len(out)))
		if err != nil {
			t.Fatal(err)
		}
		if at, _, _ := matMulsAt(t, out); at["test.f32"] != 1 {
			t.Errorf("MatMulNBits in %v, want test.f32", at)
		}
		for nb := range info.NBits {
			if nb.AccuracyLevel != 0 {
				t.Errorf("accuracy level %d, want 0 (float compute)", nb.AccuracyLevel)
			}
		}
	})
	t.Run("attention and products in one domain", func(t *testing.T) {
		out, rep, err := optimize.Rewrite(gqaModel(t, 128, 16, 8, proto.Float, nil), optimize.Options{AttentionKernel: kernelTest, MatMulKernel: matMulTest})
		if err != nil {
			t.Fatal(err)
		}
		if _, imports, _ := attentionAt(t, out); rep.AttentionKernelNodes != 1 || !slices.Equal(imports, []string{"com.microsoft", "test.f32", "test.kv8"}) {
			t.Errorf("%d attention nodes moved, imports %v: want 1 and each domain once", rep.AttentionKernelNodes, imports)
		}
	})
}

// TestMatMulKernelDQTwin: the int8 prompt twin of a copy whose products moved rewrites them as
// it does com.microsoft's (the LM head, above MaxN, stays on the kernel).
func TestMatMulKernelDQTwin(t *testing.T) {
	o := synth.Tiny()
	o.Quant = synth.QuantQ4
	o.Vocab = 2048
	dir := t.TempDir()
	if err := synth.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "onnx", o.Quant.File())
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	moved, rep, err := optimize.Rewrite(b, optimize.Options{MatMulKernel: optimize.MatMulKernel{Domain: "test.f32"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.MatMulKernelNodes != 2*7+1 {
		t.Fatalf("%d nodes moved, want %d (%s)", rep.MatMulKernelNodes, 2*7+1, rep.MatMulKernelSkipped)
	}
	copyPath := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(copyPath, moved, 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	n, _, err := optimize.DQTwin(copyPath, out, optimize.DQOptions{MaxN: 1024})
	if err != nil {
		t.Fatal(err)
	}
	info, err := proto.ReadInfo(filepath.Join(out, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if dq, left := info.Ops[proto.OpKey("com.microsoft", "MatMulIntegerToFloat")], info.Ops[proto.OpKey("test.f32", "MatMulNBits")]; n != 2*7 || dq != 2*7 || left != 1 {
		t.Errorf("%d nodes rewritten, %d MatMulIntegerToFloat, %d MatMulNBits left on the kernel; want 14, 14, 1", n, dq, left)
	}
}

// TestMatMulKernelCacheKey: a copy with the product kernel is another copy than the one
// without, and its key does not depend on the shapes' value.
func TestMatMulKernelCacheKey(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(src, nbitsModel(t, 1024, 64, 1, proto.Float, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	other := optimize.MatMulKernel{Domain: "test.f32", Shapes: maxK(1 << 20)}
	off := mustCachedPath(t, src, dir, optimize.Options{AccuracyLevel: 4})
	on := mustCachedPath(t, src, dir, optimize.Options{AccuracyLevel: 4, MatMulKernel: matMulTest})
	same := mustCachedPath(t, src, dir, optimize.Options{AccuracyLevel: 4, MatMulKernel: other})
	if off == on || on != same {
		t.Errorf("copies without %s, with %s, with other shapes %s: want the last two the same, the first another", off, on, same)
	}
}
