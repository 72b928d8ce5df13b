//go:build linux && amd64 && cgo

package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/onnx/proto"
)

// fusedGateUp times a layer's gate and up projections (1024→3072 each) as two MatMulNBits nodes
// against one 1024→6144 MatMulNBits node over their weights concatenated along N, followed by a
// Split into the same two outputs, at one row (enough layer copies to stream the weights from
// memory) and at --prefill rows, at accuracy levels 0 and 4, and checks that both give the same
// outputs.
func fusedGateUp() error {
	dir, err := os.MkdirTemp("", "kernbench-fused-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	gate, up := shape{"gate", 1024, 3072, 28, true}, shape{"up", 1024, 3072, 28, true}
	size := 2 * (len(newWeights(gate, 1).B) + 4*len(newWeights(gate, 1).S))
	fmt.Printf("gate+up (1024→2×3072): two MatMulNBits nodes against one 1024→6144 node + Split; %d threads, best of %d alternating rounds\n", *threads, *rounds)
	fmt.Printf("%5s %4s | %10s %10s | %6s | %s\n", "rows", "acc", "two nodes", "fused", "two/fused", "largest |difference| of the outputs")
	for _, rows := range []int{1, *prefill} {
		layers := 1
		if rows == 1 {
			layers = max(1, *stream/size)
		}
		var gs, us []weights
		for i := range layers {
			gs, us = append(gs, newWeights(gate, uint64(2*i+1))), append(us, newWeights(up, uint64(2*i+2)))
		}
		r := rand.New(rand.NewPCG(9, uint64(rows)))
		x := make([]float32, rows*1024)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		for _, acc := range []int64{0, 4} {
			var sides [2]*ortSide
			for i, fused := range []bool{false, true} {
				path := filepath.Join(dir, fmt.Sprintf("gateup-%d-%d-%v.onnx", rows, acc, fused))
				if err := gateUpGraph(path, gs, us, rows, acc, fused); err != nil {
					return err
				}
				if sides[i], err = newSession(path, x, rows, 1024, 3072, 2*layers); err != nil {
					return err
				}
				defer sides[i].destroy()
			}
			best := [2]float64{math.Inf(1), math.Inf(1)}
			for round := range *rounds + 1 { // round 0 warms up (ONNX Runtime packs the weights)
				for j := range 2 {
					i := (j + round) % 2
					start := time.Now()
					if err := sides[i].s.Run(); err != nil {
						return err
					}
					if round > 0 {
						best[i] = min(best[i], time.Since(start).Seconds()/float64(layers))
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			var diff float64
			for o := range sides[0].y {
				diff = max(diff, maxAbsDiff(sides[0].y[o].GetData(), sides[1].y[o].GetData()))
			}
			fmt.Printf("%5d %4d | %8.3fms %8.3fms | %6.2f× | %.3g\n", rows, acc, best[0]*1e3, best[1]*1e3, best[0]/best[1], diff)
		}
	}
	return nil
}

// gateUpGraph writes len(gs) layer copies side by side, all reading A, each giving G<i> and
// U<i>: two MatMulNBits nodes, or (fused) one over the concatenated weights and a Split.
func gateUpGraph(path string, gs, us []weights, rows int, acc int64, fused bool) error {
	const k, n = 1024, 3072
	g := proto.Graph{Name: "gateup", Inputs: []proto.ValueInfo{{Name: "A", Type: proto.Float, Dims: proto.Dims(rows, k)}}}
	mm := func(name, b, sc, y string, n int, w weights) {
		g.Nodes = append(g.Nodes, proto.Node{Name: name, OpType: "MatMulNBits", Domain: "com.microsoft",
			Inputs: []string{"A", b, sc}, Outputs: []string{y},
			Attrs: []proto.Attr{proto.IntAttr("K", k), proto.IntAttr("N", int64(n)), proto.IntAttr("bits", 4),
				proto.IntAttr("block_size", 32), proto.IntAttr("accuracy_level", acc)}})
		g.Initializers = append(g.Initializers,
			&proto.Tensor{Name: b, DataType: proto.Uint8, Dims: []int64{int64(n), k / 32, 16}, Raw: w.B},
			proto.FloatTensor(sc, []int64{int64(len(w.S))}, w.S))
	}
	if fused {
		g.Initializers = append(g.Initializers, proto.Int64Tensor("split", []int64{2}, []int64{n, n}))
	}
	for i := range gs {
		gy, uy := fmt.Sprint("G", i), fmt.Sprint("U", i)
		if fused {
			// B is [N][K/32][16] and the scales [N][K/32]: concatenating along N is appending.
			w := weights{B: slices.Concat(gs[i].B, us[i].B), S: slices.Concat(gs[i].S, us[i].S)}
			gu := fmt.Sprint("GU", i)
			mm(fmt.Sprint("gateup", i), fmt.Sprint("Bgu", i), fmt.Sprint("Sgu", i), gu, 2*n, w)
			g.Nodes = append(g.Nodes, proto.Node{Name: fmt.Sprint("split", i), OpType: "Split",
				Inputs: []string{gu, "split"}, Outputs: []string{gy, uy}, Attrs: []proto.Attr{proto.IntAttr("axis", -1)}})
		} else {
			mm(fmt.Sprint("gate", i), fmt.Sprint("Bg", i), fmt.Sprint("Sg", i), gy, n, gs[i])
			mm(fmt.Sprint("up", i), fmt.Sprint("Bu", i), fmt.Sprint("Su", i), uy, n, us[i])
		}
		g.Outputs = append(g.Outputs, proto.ValueInfo{Name: gy, Type: proto.Float, Dims: proto.Dims(rows, n)},
			proto.ValueInfo{Name: uy, Type: proto.Float, Dims: proto.Dims(rows, n)})
	}
	m := &proto.Model{IRVersion: 10, Producer: "kernbench",
		Opsets: []proto.Opset{{Domain: "", Version: 21}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
	return m.WriteFile(path, proto.WriteOptions{})
}

// newSession opens path (input A [rows][k], outputs G0, U0, G1, … [rows][n], outs of them) with
// its tensors bound, threads and spinning as the app sets them.
func newSession(path string, x []float32, rows, k, n, outs int) (*ortSide, error) {
	in, err := ort.NewTensor(ort.NewShape(int64(rows), int64(k)), x)
	if err != nil {
		return nil, err
	}
	side := &ortSide{}
	var vals []ort.Value
	var names []string
	for i := range outs {
		y, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), int64(n)))
		if err != nil {
			return nil, err
		}
		side.y = append(side.y, y)
		vals, names = append(vals, y), append(names, fmt.Sprint([]string{"G", "U"}[i%2], i/2))
	}
	o, err := benchOptions(nil)
	if err != nil {
		return nil, err
	}
	defer o.Destroy()
	if side.s, err = ort.NewAdvancedSession(path, []string{"A"}, names, []ort.Value{in}, vals, o); err != nil {
		return nil, err
	}
	return side, nil
}
