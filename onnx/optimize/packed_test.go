package optimize_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/env"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// packMember is one MatMulNBits of a hand-made graph reading X: its outputs, block size,
// accuracy level and optional inputs.
type packMember struct {
	n, block, acc  int64
	zp, gIdx, bias bool
	bits           int64
	scales2D       bool
	input          string // what it reads: X ("") or X2 (X through an Identity)
}

// packGraph writes a graph whose MatMulNBits nodes ms read X [1, rows, k], each its own output
// Y<i>, with random weights (opset as given, external data or not), and returns its path. The
// nodes are named m<i>, or as names says: "none" (unnamed) or "same" (all "mm").
func packGraph(t testing.TB, ms []packMember, k int64, opset int64, external bool, names string) string {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	g := proto.Graph{Name: "packed", Inputs: []proto.ValueInfo{{Name: "X", Type: proto.Float, Dims: proto.Dims(1, "rows", k)}},
		Nodes: []proto.Node{{Name: "copy", OpType: "Identity", Inputs: []string{"X"}, Outputs: []string{"X2"}}}}
	for i, m := range ms {
		name := "m" + strconv.Itoa(i)
		bits := cmp.Or(m.bits, 4)
		blocks := (k + m.block - 1) / m.block
		blob := m.block * bits / 8
		b := make([]byte, m.n*blocks*blob)
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		s := make([]float32, m.n*blocks)
		for j := range s {
			s[j] = 0.01 + 0.02*r.Float32()
		}
		sdims := []int64{m.n * blocks}
		if m.scales2D {
			sdims = []int64{m.n, blocks}
		}
		ins := []string{cmp.Or(m.input, "X"), name + ".B", name + ".scales"}
		inits := []*proto.Tensor{{Name: name + ".B", DataType: proto.Uint8, Dims: []int64{m.n, blocks, blob}, Raw: b}, proto.FloatTensor(name+".scales", sdims, s)}
		opt := func(present bool, tensor *proto.Tensor) {
			if !present {
				ins = append(ins, "")
				return
			}
			ins = append(ins, tensor.Name)
			inits = append(inits, tensor)
		}
		zpRow := (blocks*bits + 7) / 8
		zp := make([]byte, m.n*zpRow)
		for j := range zp {
			zp[j] = byte(r.IntN(256))
		}
		opt(m.zp, &proto.Tensor{Name: name + ".zp", DataType: proto.Uint8, Dims: []int64{m.n * zpRow}, Raw: zp})
		gIdx := make([]int32, k)
		for j := range gIdx {
			gIdx[j] = int32(j / int(m.block))
		}
		opt(m.gIdx, proto.Int32Tensor(name+".g_idx", []int64{k}, gIdx))
		bias := make([]float32, m.n)
		for j := range bias {
			bias[j] = r.Float32() - 0.5
		}
		opt(m.bias, proto.FloatTensor(name+".bias", []int64{m.n}, bias))
		for len(ins) > 3 && ins[len(ins)-1] == "" {
			ins = ins[:len(ins)-1]
		}
		nodeName := map[string]string{"": name, "same": "mm"}[names]
		g.Nodes = append(g.Nodes, proto.Node{Name: nodeName, OpType: "MatMulNBits", Domain: "com.microsoft", Inputs: ins, Outputs: []string{"Y" + strconv.Itoa(i)},
			Attrs: []proto.Attr{proto.IntAttr("K", k), proto.IntAttr("N", m.n), proto.IntAttr("bits", bits), proto.IntAttr("block_size", m.block), proto.IntAttr("accuracy_level", m.acc)}})
		g.Initializers = append(g.Initializers, inits...)
		g.Outputs = append(g.Outputs, proto.ValueInfo{Name: "Y" + strconv.Itoa(i), Type: proto.Float, Dims: proto.Dims(1, "rows", m.n)})
	}
	path := filepath.Join(t.TempDir(), "mm.onnx")
	m := &proto.Model{IRVersion: 8, Producer: "test", Opsets: []proto.Opset{{Version: opset}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
	var wo proto.WriteOptions
	if external {
		wo.ExternalData = "mm.onnx_data"
	}
	if err := m.WriteFile(path, wo); err != nil {
		t.Fatal(err)
	}
	return path
}

// runPacked runs the graph at path on x [1, rows, k] and returns its outputs.
func runPacked(t *testing.T, path string, ms []packMember, x []float32, k int64) [][]float32 {
	t.Helper()
	rows := int64(len(x)) / k
	in, err := ort.NewTensor(ort.NewShape(1, rows, k), x)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Destroy()
	var names []string
	var outs []ort.Value
	var ys []*ort.Tensor[float32]
	for i, m := range ms {
		y, err := ort.NewEmptyTensor[float32](ort.NewShape(1, rows, m.n))
		if err != nil {
			t.Fatal(err)
		}
		defer y.Destroy()
		names, outs, ys = append(names, "Y"+strconv.Itoa(i)), append(outs, y), append(ys, y)
	}
	sess, err := ort.NewAdvancedSession(path, []string{"X"}, names, []ort.Value{in}, outs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Destroy()
	if err := sess.Run(); err != nil {
		t.Fatal(err)
	}
	var res [][]float32
	for _, y := range ys {
		res = append(res, slices.Clone(y.GetData()))
	}
	return res
}

// TestPackMatMuls: three (two) MatMulNBits reading one tensor and agreeing on everything but N
// become one over their weights, scales, zero points and biases appended, and a Split on the
// last axis into their outputs, which stay the same, whether the weights are inline or in
// external data (then in the copy's own data file) and whatever the opset's Split; groups
// that disagree, have g_idx, are not two or three, or whose flag is off stay as they were.
func TestPackMatMuls(t *testing.T) {
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	q := packMember{n: 64, block: 32}
	kv := packMember{n: 32, block: 32}
	with := func(m packMember, f func(*packMember)) packMember { f(&m); return m }
	zpBias := func(m *packMember) { m.zp, m.bias = true, true }
	twice := func(m *packMember) { m.input = "X2" }
	both := optimize.Options{FusePackedQKV: true, FuseGateUp: true}
	for _, tc := range []struct {
		name        string
		ms          []packMember
		k           int64
		opset       int64
		external    bool
		o           optimize.Options
		qkv, gateUp int
		names       string
	}{
		{"qkv", []packMember{q, kv, kv}, 96, 17, false, both, 1, 0, ""},
		{"gate and up", []packMember{q, q}, 96, 17, false, both, 0, 1, ""},
		{"zero points and biases", []packMember{with(q, zpBias), with(kv, zpBias), with(kv, zpBias)}, 96, 17, false, both, 1, 0, ""},
		{"2-D scales, K not whole blocks", []packMember{with(q, func(m *packMember) { m.scales2D = true }), with(kv, func(m *packMember) { m.scales2D = true })}, 80, 17, false, both, 0, 1, ""},
		{"8 bits", []packMember{with(q, func(m *packMember) { m.bits = 8 }), with(kv, func(m *packMember) { m.bits = 8 }), with(kv, func(m *packMember) { m.bits = 8 })}, 96, 17, false, both, 1, 0, ""},
		{"external data", []packMember{with(q, zpBias), with(kv, zpBias), with(kv, zpBias)}, 96, 17, true, both, 1, 0, ""},
		{"Split's sizes an attribute (opset 11)", []packMember{q, kv, kv}, 96, 11, false, both, 1, 0, ""},
		{"qkv only", []packMember{q, q}, 96, 17, false, optimize.Options{FusePackedQKV: true}, 0, 0, ""},
		{"gate and up only", []packMember{q, kv, kv}, 96, 17, false, optimize.Options{FuseGateUp: true}, 0, 0, ""},
		{"block sizes differ", []packMember{q, with(kv, func(m *packMember) { m.block = 16 }), kv}, 96, 17, false, both, 0, 0, ""},
		{"accuracy levels differ", []packMember{q, with(kv, func(m *packMember) { m.acc = 4 }), kv}, 96, 17, false, both, 0, 0, ""},
		{"one without zero points", []packMember{with(q, zpBias), kv, with(kv, zpBias)}, 96, 17, false, both, 0, 0, ""},
		{"g_idx", []packMember{with(q, func(m *packMember) { m.gIdx = true }), with(kv, func(m *packMember) { m.gIdx = true })}, 96, 17, false, both, 0, 0, ""},
		{"four readers", []packMember{q, kv, kv, q}, 96, 17, false, both, 0, 0, ""},
		// Two groups (X and its copy X2 read by three and two nodes) without node names, or
		// all of one name: the packed tensors, named for outputs, do not collide.
		{"unnamed nodes", []packMember{q, kv, kv, with(q, twice), with(kv, twice)}, 96, 17, false, both, 1, 1, "none"},
		{"repeated node names", []packMember{q, kv, kv, with(q, twice), with(kv, twice)}, 96, 17, true, both, 1, 1, "same"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := packGraph(t, tc.ms, tc.k, tc.opset, tc.external, tc.names)
			out, rep, err := optimize.Cached(src, t.TempDir(), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.PackedQKV != tc.qkv || rep.PackedGateUp != tc.gateUp {
				t.Fatalf("packed %d groups of three and %d of two, want %d and %d", rep.PackedQKV, rep.PackedGateUp, tc.qkv, tc.gateUp)
			}
			before, err := proto.ReadInfo(src)
			if err != nil {
				t.Fatal(err)
			}
			after, err := proto.ReadInfo(out)
			if err != nil {
				t.Fatal(err)
			}
			nbits := proto.OpKey("com.microsoft", "MatMulNBits")
			packed := tc.qkv + tc.gateUp
			if want := before.Ops[nbits] - 2*tc.qkv - tc.gateUp; after.Ops[nbits] != want || after.Ops["Split"] != packed {
				t.Errorf("MatMulNBits %d → %d (want %d), %d Split (want %d)", before.Ops[nbits], after.Ops[nbits], want, after.Ops["Split"], packed)
			}
			_, err = os.Stat(filepath.Join(filepath.Dir(out), "edgechat_packed.data"))
			if dataFile := err == nil; dataFile != (tc.external && packed > 0) {
				t.Errorf("packed data file written: %v, with external data %v and %d groups packed", dataFile, tc.external, packed)
			}
			if packed == 0 {
				return
			}
			testenv.CheckONNX(t, out)
			x := make([]float32, 5*tc.k)
			r := rand.New(rand.NewPCG(5, 6))
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			ref := src
			if tc.names == "same" { // ONNX Runtime refuses the source: its named twin (same weights)
				ref = packGraph(t, tc.ms, tc.k, tc.opset, tc.external, "")
			}
			want, got := runPacked(t, ref, tc.ms, x, tc.k), runPacked(t, out, tc.ms, x, tc.k)
			for i := range want {
				var scale, diff float64
				for j := range want[i] {
					scale = max(scale, math.Abs(float64(want[i][j])))
					diff = max(diff, math.Abs(float64(want[i][j]-got[i][j])))
				}
				if !(diff <= 1e-6*scale) {
					t.Errorf("output %d differs by %.3g of the largest", i, diff/scale)
				}
			}
		})
	}
}

// TestPackMatMulsDecoder: in the Qwen3-like q4 exports (inline, external data, zero points)
// every layer's Q, K and V and its gate and up become one MatMulNBits each, with the decoder's
// other rewrites, and the logits and greedy picks stay those of the copy without it
// (float-compute twins: the check is of this rewrite alone).
func TestPackMatMulsDecoder(t *testing.T) {
	q4 := synth.Tiny()
	q4.Quant = synth.QuantQ4
	ext := q4
	ext.ExternalData = true
	zp := q4
	zp.ZeroPoints = true
	for name, so := range map[string]synth.Options{"q4": q4, "q4 external data": ext, "q4 zero points": zp} {
		t.Run(name, func(t *testing.T) {
			path := write(t, so)
			o := optimize.Options{FloatCompute: true, FuseRMSNorm: true, FuseSkipNorm: true, LastRows: true, KeepInput: true, LastLayerRows: true, SharedKVAttention: true, RotaryRows: 64}
			ref, refRep, err := optimize.Cached(path, t.TempDir(), o)
			if err != nil {
				t.Fatal(err)
			}
			o.FusePackedQKV, o.FuseGateUp = true, true
			out, rep, err := optimize.Cached(path, t.TempDir(), o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.PackedQKV != so.Layers || rep.PackedGateUp != so.Layers {
				t.Fatalf("packed %d QKV and %d gate-up groups, want %d each", rep.PackedQKV, rep.PackedGateUp, so.Layers)
			}
			if rep.SkipNorms != refRep.SkipNorms || rep.AttentionLayers != refRep.AttentionLayers || rep.LastLayerNodes != refRep.LastLayerNodes {
				t.Errorf("the other rewrites changed: %+v, without this one %+v", rep, refRep)
			}
			testenv.CheckONNX(t, out)
			rel, flips := compare(t, ref, out, append([]int(nil), prompt...), 8)
			if !(rel < 1e-5) || flips != 0 {
				t.Errorf("logits differ by %.3g of the largest, %d greedy picks differ", rel, flips)
			}
		})
	}
}
