//go:build linux && amd64 && cgo

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/attnop"
	"edgechat/inference/ort/env"
	"edgechat/onnx/proto"
)

// TestKernelMatchesReference runs the kernel on both instruction sets this CPU has, for one
// row and for a few, against the float64 reference: int8 activations cost about 1–2% of the
// outputs' rms, a wrong nibble order or zero point costs far more.
func TestKernelMatchesReference(t *testing.T) {
	s := shape{Name: "t", K: 1024, N: 64}
	w := newWeights(s, 3)
	for _, isa := range []int{1, 2} {
		if got := kbInit(2, isa); got != isa {
			t.Logf("instruction set %d not on this CPU", isa)
			continue
		}
		for _, rows := range []int{1, 5} {
			x := make([]float32, rows*s.K)
			for i := range x {
				x[i] = float32(i%37) - 18
			}
			k := &kernel{s: s, ws: []weights{w}, x: x, rows: rows, q: make([]int8, rows*s.K), d: make([]float32, rows*s.K/32),
				de: make([]float32, rows*s.K/8), init: make([]int32, rows*s.K/8), y: make([]float32, rows*s.N)}
			k.run()
			if e := relErr(s, w, x, rows, k.y); e > 0.05 {
				t.Errorf("instruction set %d, %d rows: largest error %.3g of the reference's rms", isa, rows, e)
			}
		}
	}
	kbInit(2, 0)
}

// TestOpTwinPatchesOnlyTheOpsAsked checks the graph patch of the end-to-end twins: the node
// types asked for move to kernbench.ops (attention over an int8 cache, more than 9 inputs, to
// kernbench.kv8), other com.microsoft nodes stay, and the domains used are imported.
func TestOpTwinPatchesOnlyTheOpsAsked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.onnx")
	gqa := func(name string, inputs int) proto.Node {
		n := proto.Node{Name: name, OpType: "GroupQueryAttention", Domain: "com.microsoft", Outputs: []string{name + "_y"}}
		for i := range inputs {
			n.Inputs = append(n.Inputs, fmt.Sprint(name, "_in", i))
		}
		return n
	}
	m := &proto.Model{IRVersion: 10, Opsets: []proto.Opset{{Domain: "", Version: 21}, {Domain: "com.microsoft", Version: 1}},
		Graph: proto.Graph{Name: "g",
			Nodes: []proto.Node{
				{Name: "mm", OpType: "MatMulNBits", Domain: "com.microsoft", Inputs: []string{"A", "B", "S"}, Outputs: []string{"Y"},
					Attrs: []proto.Attr{proto.IntAttr("K", 512), proto.IntAttr("N", 8)}},
				{Name: "norm", OpType: "SimplifiedLayerNormalization", Domain: "com.microsoft", Inputs: []string{"Y", "G"}, Outputs: []string{"Z"}},
				gqa("attn", 9),
				gqa("attn8", 11),
			},
			Inputs:  []proto.ValueInfo{{Name: "A", Type: proto.Float, Dims: proto.Dims(1, 512)}},
			Outputs: []proto.ValueInfo{{Name: "Z", Type: proto.Float, Dims: proto.Dims(1, 8)}}}}
	if err := m.WriteFile(path, proto.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ops     []string
		n       map[string]int
		want    map[string]int // op counts of the twin, domain:type
		domains []string
	}{
		{[]string{"MatMulNBits"}, map[string]int{"MatMulNBits": 1},
			map[string]int{"kernbench.ops:MatMulNBits": 1, "com.microsoft:GroupQueryAttention": 2, "com.microsoft:SimplifiedLayerNormalization": 1},
			[]string{"kernbench.ops"}},
		{[]string{"GroupQueryAttention"}, map[string]int{"GroupQueryAttention": 2},
			map[string]int{"com.microsoft:MatMulNBits": 1, "ai.edgechat.cpu:GroupQueryAttention": 1, "ai.edgechat.kv8:GroupQueryAttention": 1, "com.microsoft:SimplifiedLayerNormalization": 1},
			[]string{"ai.edgechat.cpu", "ai.edgechat.kv8"}},
		{[]string{"MatMulNBits", "GroupQueryAttention"}, map[string]int{"MatMulNBits": 1, "GroupQueryAttention": 2},
			map[string]int{"kernbench.ops:MatMulNBits": 1, "ai.edgechat.cpu:GroupQueryAttention": 1, "ai.edgechat.kv8:GroupQueryAttention": 1, "com.microsoft:SimplifiedLayerNormalization": 1},
			[]string{"ai.edgechat.cpu", "ai.edgechat.kv8", "kernbench.ops"}},
	} {
		t.Run(strings.Join(tc.ops, "+"), func(t *testing.T) {
			twin, n, err := opTwin(path, tc.ops...)
			if err != nil {
				t.Fatal(err)
			}
			defer os.Remove(twin)
			if diff := cmp.Diff(tc.n, n); diff != "" {
				t.Errorf("nodes patched (-want +got):\n%s", diff)
			}
			info, err := proto.ReadInfo(twin)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, info.Ops); diff != "" {
				t.Errorf("twin's ops (-want +got):\n%s", diff)
			}
			var domains []string
			for _, o := range info.Opsets {
				if strings.HasPrefix(o.Domain, "kernbench") || strings.HasPrefix(o.Domain, "ai.edgechat") {
					domains = append(domains, o.Domain)
				}
			}
			slices.Sort(domains)
			if diff := cmp.Diff(tc.domains, domains); diff != "" {
				t.Errorf("twin's custom-domain imports (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := opTwin(path, "RotaryEmbedding"); err == nil {
		t.Error("a twin of an op the graph does not hold: no error")
	}
}

// TestCustomOpLibrary builds the custom-operator library with gcc, registers it on
// onnxruntime_go's session options and runs its trivial operator and its Q4MatMul in real
// ONNX Runtime sessions.
func TestCustomOpLibrary(t *testing.T) {
	dir := withCustomOps(t)
	if err := ops.checkAffine(dir); err != nil {
		t.Fatal(err)
	}
	s := shape{Name: "t", K: 1024, N: 256}
	w := newWeights(s, 2)
	x := make([]float32, 3*s.K)
	for i := range x {
		x[i] = float32(i%11) - 5
	}
	side, err := newORT(dir, s, []weights{w}, x, 3, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer side.destroy()
	if err := side.s.Run(); err != nil {
		t.Fatal(err)
	}
	if e := relErr(s, w, x, 3, side.y[0].GetData()); e > 0.05 {
		t.Errorf("Q4MatMul: largest error %.3g of the reference's rms", e)
	}
	// The unexported-field read must refuse a SessionOptions that is not one pointer; here it is.
	o, err := ort.NewSessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Destroy()
	if h, err := attnop.OptionsHandle(o); err != nil || h == nil {
		t.Errorf("attnop.OptionsHandle: %v, %v", h, err)
	}
}

// TestMixedCopyPatchesOnlyTheShapesAsked runs a graph of a 1024→64 and a 1024→32 MatMulNBits
// node at accuracy level 4, its --acc0 1024x64 copy, and the same graph written at level 0:
// the copy's first output must be level 0's bit for bit and its second level 4's.
func TestMixedCopyPatchesOnlyTheShapesAsked(t *testing.T) {
	if _, err := env.Init(""); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const rows = 3
	shapes := []shape{{K: 1024, N: 64}, {K: 1024, N: 32}}
	write := func(path string, acc int64) {
		g := proto.Graph{Name: "g", Inputs: []proto.ValueInfo{{Name: "A", Type: proto.Float, Dims: proto.Dims(rows, 1024)}}}
		for i, s := range shapes {
			w := newWeights(s, uint64(i+1))
			b, sc, y := fmt.Sprint("B", i), fmt.Sprint("S", i), fmt.Sprint("Y", i)
			g.Nodes = append(g.Nodes, proto.Node{Name: y, OpType: "MatMulNBits", Domain: "com.microsoft", Inputs: []string{"A", b, sc}, Outputs: []string{y},
				Attrs: []proto.Attr{proto.IntAttr("K", int64(s.K)), proto.IntAttr("N", int64(s.N)), proto.IntAttr("bits", 4),
					proto.IntAttr("block_size", 32), proto.IntAttr("accuracy_level", acc)}})
			g.Outputs = append(g.Outputs, proto.ValueInfo{Name: y, Type: proto.Float, Dims: proto.Dims(rows, s.N)})
			g.Initializers = append(g.Initializers, &proto.Tensor{Name: b, DataType: proto.Uint8, Dims: []int64{int64(s.N), int64(s.K / 32), 16}, Raw: w.B},
				proto.FloatTensor(sc, []int64{int64(len(w.S))}, w.S))
		}
		m := &proto.Model{IRVersion: 10, Opsets: []proto.Opset{{Domain: "", Version: 21}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
		if err := m.WriteFile(path, proto.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	acc4, acc0 := filepath.Join(dir, "acc4.onnx"), filepath.Join(dir, "acc0.onnx")
	write(acc4, 4)
	write(acc0, 0)
	mixed, n, err := mixedCopy(acc4, []string{"1024x64"})
	if err != nil || n != 1 {
		t.Fatalf("mixedCopy: %d nodes, %v", n, err)
	}
	x := make([]float32, rows*1024)
	for i := range x {
		x[i] = float32(i%29)/7 - 2
	}
	run := func(path string) [2][]float32 {
		in, err := ort.NewTensor(ort.NewShape(rows, 1024), x)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Destroy()
		var ys []*ort.Tensor[float32]
		var vals []ort.Value
		for _, s := range shapes {
			y, err := ort.NewEmptyTensor[float32](ort.NewShape(rows, int64(s.N)))
			if err != nil {
				t.Fatal(err)
			}
			defer y.Destroy()
			ys, vals = append(ys, y), append(vals, y)
		}
		s, err := ort.NewAdvancedSession(path, []string{"A"}, []string{"Y0", "Y1"}, []ort.Value{in}, vals, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Destroy()
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		return [2][]float32{slices.Clone(ys[0].GetData()), slices.Clone(ys[1].GetData())}
	}
	got, want0, want4 := run(mixed), run(acc0), run(acc4)
	if slices.Equal(want0[0], want4[0]) {
		t.Fatal("accuracy levels 0 and 4 give the same outputs: the test cannot tell them apart")
	}
	if !slices.Equal(got[0], want0[0]) {
		t.Error("the 1024x64 node of the copy does not run at accuracy level 0")
	}
	if !slices.Equal(got[1], want4[1]) {
		t.Error("the 1024x32 node of the copy does not run at accuracy level 4")
	}
}

// TestAttentionMatchesGQA runs --attn's check (attnCompare: inference/ort/attnop's operator
// against ONNX Runtime's GroupQueryAttention on the same inputs) on a decode step of several
// chunks and a prompt after cached rows, float32 and int8 caches. The package's own tests cover
// the shapes; this covers kernbench's use of it.
func TestAttentionMatchesGQA(t *testing.T) {
	if _, err := env.Init(""); err != nil {
		t.Skipf("no ONNX Runtime: %v", err)
	}
	if err := attnop.Available(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		past, newRows int
		quant         bool
	}{
		{600, 1, false}, // three chunks of rows, merged
		{40, 3, false},  // a prompt chunk after cached rows
		{300, 1, true},
		{10, 4, true},
	} {
		t.Run(fmt.Sprintf("past %d new %d int8 %v", tc.past, tc.newRows, tc.quant), func(t *testing.T) {
			d, err := attnCompare(dir, tc.past, tc.newRows, tc.quant, 2)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-4
			if tc.quant && tc.newRows == 1 {
				// An int8 cache's decode step runs decode8.c's integer loops where the CPU has
				// AVX-512 VNNI: the query and the weights rounded to int16 move outputs by up to
				// ~5e-4 of their rms here, ~100 times under the cache's own rounding (attnop's
				// TestInt8DecodeUnderCacheError).
				tol = 1e-3
			}
			if d.out > tol*max(1, d.rms) || d.rows != 0 {
				t.Errorf("output differs by %.3g (rms %.3g), appended rows by %.3g", d.out, d.rms, d.rows)
			}
		})
	}
}

// withCustomOps builds the custom-operator library with gcc into a temporary folder, which
// it returns, and registers it as ops for the test; it skips the test without gcc or ONNX
// Runtime.
func withCustomOps(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	if _, err := env.Init(""); err != nil {
		t.Skipf("no ONNX Runtime: %v", err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "ops.so")
	if out, err := exec.Command("customop/build.sh", lib).CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, out)
	}
	var err error
	if ops, err = loadCustomOps(lib); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ops = nil })
	return dir
}
