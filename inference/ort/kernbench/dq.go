//go:build linux && amd64 && cgo

package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/internal/cputime"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// dqSides are what --dq times at --prefill rows: the app's MatMulNBits (4 bits, accuracy level
// 4), the same weights re-encoded to 8 bits (the int8 twin, exact), and ONNX Runtime's fused
// dynamic-quantized op com.microsoft.DynamicQuantizeMatMul over int8 weights with one scale a
// column (MLAS's u8s8 QGEMM with B packed once; per-tensor uint8 activations), and the app's
// int8 prompt twin of side 0 (optimize.DQTwin: uint8 activations with a scale a row,
// MatMulIntegerToFloat; PREFILL.md §5).
var dqSides = []string{"nbits4", "nbits8", "dqmm", "rowq"}

// dynQuant times the four sides of dqSides at every prefill shape, alternating, and prints
// the best wall-clock time, the CPU time a call (this process's, so spinning off counts work
// only) and each side's largest error over the float64 reference of the int4 weights.
func dynQuant() error {
	dir, err := os.MkdirTemp("", "kernbench-dq-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Printf("%d rows, %d threads, spinning %v, %d alternating rounds: best wall-clock ms | median CPU ms a call | max error / rms\n", *prefill, *threads, *spin, *rounds)
	fmt.Printf("%-6s %5s %6s | %8s %8s %8s %8s | %8s %8s %8s %8s | %6s %6s %6s | %7s %7s %7s %7s\n", "shape", "K", "N",
		"nbits4", "nbits8", "dqmm", "rowq", "cpu n4", "cpu n8", "cpu dq", "cpu rq", "n4/dq", "n4/n8", "n4/rq", "err n4", "err n8", "err dq", "err rq")
	var sum [2][4]float64
	for _, s := range shapes {
		if !s.Prefill {
			continue
		}
		w := newWeights(s, 1)
		r := rand.New(rand.NewPCG(7, uint64(*prefill)))
		x := make([]float32, *prefill*s.K)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		var sess []*ortSide
		for i := range dqSides {
			path := filepath.Join(dir, fmt.Sprintf("%s-%s.onnx", s.Name, dqSides[i]))
			if i == 3 { // the twin of side 0's graph
				src := filepath.Join(dir, fmt.Sprintf("%s-%s.onnx", s.Name, dqSides[0]))
				if _, _, err := optimize.DQTwin(src, filepath.Join(dir, s.Name+"-rowq"), optimize.DQOptions{MaxN: 1 << 16}); err != nil {
					return err
				}
				path = filepath.Join(dir, s.Name+"-rowq", filepath.Base(src))
			} else if err := dqGraph(path, s, w, *prefill, i); err != nil {
				return err
			}
			o, err := dqSession(path, x, *prefill, s)
			if err != nil {
				return fmt.Errorf("%s %s: %w", s.Name, dqSides[i], err)
			}
			defer o.destroy()
			sess = append(sess, o)
			if err := o.s.Run(); err != nil { // packs the weights
				return err
			}
		}
		best := [4]float64{math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)}
		cpus := [4][]float64{}
		for round := range *rounds {
			for j := range sess {
				i := (j + round) % len(sess)
				c0, t0 := cputime.Used(), time.Now()
				if err := sess[i].s.Run(); err != nil {
					return err
				}
				best[i] = min(best[i], time.Since(t0).Seconds())
				cpus[i] = append(cpus[i], (cputime.Used() - c0).Seconds())
				time.Sleep(5 * time.Millisecond)
			}
		}
		var e, c [4]float64
		for i := range sess {
			e[i] = relErr(s, w, x, *prefill, sess[i].y[0].GetData())
			c[i] = median(cpus[i])
			sum[0][i] += float64(s.Count) * best[i]
			sum[1][i] += float64(s.Count) * c[i]
		}
		fmt.Printf("%-6s %5d %6d | %8.3f %8.3f %8.3f %8.3f | %8.3f %8.3f %8.3f %8.3f | %6.2f %6.2f %6.2f | %7.1e %7.1e %7.1e %7.1e\n", s.Name, s.K, s.N,
			best[0]*1e3, best[1]*1e3, best[2]*1e3, best[3]*1e3, c[0]*1e3, c[1]*1e3, c[2]*1e3, c[3]*1e3, c[0]/c[2], c[0]/c[1], c[0]/c[3], e[0], e[1], e[2], e[3])
	}
	fmt.Printf("28 layers: wall %.0f / %.0f / %.0f / %.0f ms, CPU %.0f / %.0f / %.0f / %.0f ms (nbits4 / nbits8 / dqmm / rowq); nbits4/dqmm CPU %.2f×, nbits4/rowq %.2f×\n",
		sum[0][0]*1e3, sum[0][1]*1e3, sum[0][2]*1e3, sum[0][3]*1e3, sum[1][0]*1e3, sum[1][1]*1e3, sum[1][2]*1e3, sum[1][3]*1e3, sum[1][0]/sum[1][2], sum[1][0]/sum[1][3])
	return nil
}

// dqGraph writes a one-node graph Y = A·W for side i of dqSides, W being w's int4 weights
// (exactly for sides 0 and 1, requantized to int8 with one scale a column for side 2).
func dqGraph(path string, s shape, w weights, rows, side int) error {
	g := proto.Graph{Name: "dq", Inputs: []proto.ValueInfo{{Name: "A", Type: proto.Float, Dims: proto.Dims(rows, s.K)}},
		Outputs: []proto.ValueInfo{{Name: "Y0", Type: proto.Float, Dims: proto.Dims(rows, s.N)}}}
	nb := s.K / 32
	switch side {
	case 0, 1:
		bits, raw, blob := int64(4), w.B, int64(16)
		if side == 1 {
			bits, blob, raw = 8, 32, make([]byte, 2*len(w.B))
			for i, b := range w.B {
				raw[2*i], raw[2*i+1] = b&15+120, b>>4+120 // zero point 128 for 8 bits
			}
		}
		g.Nodes = append(g.Nodes, proto.Node{Name: "mm", OpType: "MatMulNBits", Domain: "com.microsoft",
			Inputs: []string{"A", "B", "S"}, Outputs: []string{"Y0"},
			Attrs: []proto.Attr{proto.IntAttr("K", int64(s.K)), proto.IntAttr("N", int64(s.N)), proto.IntAttr("bits", bits),
				proto.IntAttr("block_size", 32), proto.IntAttr("accuracy_level", 4)}})
		g.Initializers = append(g.Initializers,
			&proto.Tensor{Name: "B", DataType: proto.Uint8, Dims: []int64{int64(s.N), int64(nb), blob}, Raw: raw},
			proto.FloatTensor("S", []int64{int64(len(w.S))}, w.S))
	case 2:
		q, sc := optimize.PerColumnInt8(s.K, s.N, w.B, w.S)
		g.Nodes = append(g.Nodes, proto.Node{Name: "mm", OpType: "DynamicQuantizeMatMul", Domain: "com.microsoft",
			Inputs: []string{"A", "B", "S"}, Outputs: []string{"Y0"}})
		g.Initializers = append(g.Initializers,
			&proto.Tensor{Name: "B", DataType: proto.Int8, Dims: []int64{int64(s.K), int64(s.N)}, Raw: q},
			proto.FloatTensor("S", []int64{int64(s.N)}, sc))
	}
	m := &proto.Model{IRVersion: 10, Producer: "kernbench",
		Opsets: []proto.Opset{{Domain: "", Version: 21}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
	return m.WriteFile(path, proto.WriteOptions{})
}

// dqSession opens a one-node graph with A bound to x and Y0 to a fresh output; spinning as
// --spin says.
func dqSession(path string, x []float32, rows int, s shape) (*ortSide, error) {
	in, err := ort.NewTensor(ort.NewShape(int64(rows), int64(s.K)), x)
	if err != nil {
		return nil, err
	}
	y, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), int64(s.N)))
	if err != nil {
		return nil, err
	}
	o, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer o.Destroy()
	err = o.SetIntraOpNumThreads(*threads)
	spinning := map[bool]string{true: "1", false: "0"}[*spin]
	for k, v := range map[string]string{"session.intra_op.allow_spinning": spinning, "session.force_spinning_stop": "1"} {
		if err == nil {
			err = o.AddSessionConfigEntry(k, v)
		}
	}
	if err != nil {
		return nil, err
	}
	side := &ortSide{y: []*ort.Tensor[float32]{y}}
	if side.s, err = ort.NewAdvancedSession(path, []string{"A"}, []string{"Y0"}, []ort.Value{in}, []ort.Value{y}, o); err != nil {
		return nil, err
	}
	return side, nil
}
