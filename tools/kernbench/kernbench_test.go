//go:build linux && amd64 && cgo

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

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

// TestOpTwinPatchesOnlyMatMulNBits checks the graph patch of the end-to-end twin: MatMulNBits
// nodes move to kernbench.ops, other com.microsoft nodes stay, and the domain is imported.
func TestOpTwinPatchesOnlyMatMulNBits(t *testing.T) {
	dir := t.TempDir()
	s := shape{K: 512, N: 8}
	w := newWeights(s, 1)
	path := filepath.Join(dir, "m.onnx")
	if err := oneNode(path, s, []weights{w}, 1, 4); err != nil {
		t.Fatal(err)
	}
	m := &proto.Model{IRVersion: 10, Opsets: []proto.Opset{{Domain: "", Version: 21}, {Domain: "com.microsoft", Version: 1}},
		Graph: proto.Graph{Name: "g",
			Nodes: []proto.Node{
				{Name: "mm", OpType: "MatMulNBits", Domain: "com.microsoft", Inputs: []string{"A", "B", "S"}, Outputs: []string{"Y"},
					Attrs: []proto.Attr{proto.IntAttr("K", 512), proto.IntAttr("N", 8)}},
				{Name: "norm", OpType: "SimplifiedLayerNormalization", Domain: "com.microsoft", Inputs: []string{"Y", "G"}, Outputs: []string{"Z"}},
			},
			Inputs:  []proto.ValueInfo{{Name: "A", Type: proto.Float, Dims: proto.Dims(1, 512)}},
			Outputs: []proto.ValueInfo{{Name: "Z", Type: proto.Float, Dims: proto.Dims(1, 8)}}}}
	if err := m.WriteFile(path, proto.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	twin, n, err := opTwin(path)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d nodes patched, want 1", n)
	}
	info, err := proto.ReadInfo(twin)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"kernbench.ops:MatMulNBits", "com.microsoft:SimplifiedLayerNormalization"} {
		if info.Ops[op] != 1 {
			t.Errorf("twin has %d %s, want 1 (ops: %v)", info.Ops[op], op, info.OpTypes())
		}
	}
	found := false
	for _, o := range info.Opsets {
		found = found || o.Domain == "kernbench.ops"
	}
	if !found {
		t.Errorf("twin does not import kernbench.ops: %v", info.Opsets)
	}
}

// TestCustomOpLibrary builds the custom-operator library with gcc, registers it on
// onnxruntime_go's session options and runs its trivial operator and its Q4MatMul in real
// ONNX Runtime sessions.
func TestCustomOpLibrary(t *testing.T) {
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
	defer func() { ops = nil }()
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
	if h, err := optionsHandle(o); err != nil || h == nil {
		t.Errorf("optionsHandle: %v, %v", h, err)
	}
	_ = os.Remove(lib)
}
