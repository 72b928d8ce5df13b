//go:build linux && amd64 && cgo

package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/attnop"
	"edgechat/internal/cputime"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// q4opShapes are the matrix products of a Qwen3-0.6B layer as the app's copies pack them
// (q, k and v as one node, gate and up as one), and the LM head (one row only: the copies keep
// the last row).
var q4opShapes = []shape{
	{"qkv", 1024, 4096, 28, true},
	{"o", 2048, 1024, 28, true},
	{"gateup", 1024, 6144, 28, true},
	{"down", 3072, 1024, 28, true},
	{"lm_head", 1024, 151936, 1, false},
}

// q4op times com.microsoft MatMulNBits at accuracy level 4 (MLAS) against inference/ort/attnop's
// MatMulNBits on the same weights and inputs, at one row (enough copies of the weights to
// stream them from memory, as a decode step does) and at --prefill rows, alternating in one
// process, spinning off: the best wall time and the median CPU time a call, and the sums
// weighted as the 28-layer model runs them.
func q4op() error {
	if err := attnop.Available(); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "kernbench-q4op-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Printf("%d threads, spinning off, %d alternating rounds: best wall ms | median CPU ms a call (one node; one-row shapes as copies streaming %d MB) | op/MLAS\n",
		*threads, *rounds, *stream>>20)
	fmt.Printf("%-8s %5s %6s %4s | %8s %8s %8s | %8s %8s %8s | %6s %6s | %6s %6s | %8s %8s\n", "shape", "K", "N", "rows", "MLAS", "op", "op L1",
		"cpu MLAS", "cpu op", "cpu L1", "wall", "cpu", "L1wall", "L1cpu", "op-MLAS", "L1-MLAS")
	var sum [2][2][3]float64 // [one row, prefill][wall, cpu][MLAS, op, op layout 1]
	for _, s := range q4opShapes {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), s.Name) {
			continue
		}
		for p, rows := range []int{1, *prefill} {
			if (rows > 1 && !s.Prefill) || (*q4opRows != 0 && rows != *q4opRows) {
				continue
			}
			copies := 1
			if rows == 1 {
				copies = max(1, *stream/(s.N*s.K/2+s.N*s.K/8))
			}
			best, cpu, diff, err := q4opShape(dir, s, rows, copies)
			if err != nil {
				return fmt.Errorf("%s at %d rows: %w", s.Name, rows, err)
			}
			for i := range 3 {
				sum[p][0][i] += float64(s.Count) * best[i]
				sum[p][1][i] += float64(s.Count) * cpu[i]
			}
			fmt.Printf("%-8s %5d %6d %4d | %8.3f %8.3f %8.3f | %8.3f %8.3f %8.3f | %6.2f %6.2f | %6.2f %6.2f | %8.1e %8.1e\n", s.Name, s.K, s.N, rows,
				best[0]*1e3, best[1]*1e3, best[2]*1e3, cpu[0]*1e3, cpu[1]*1e3, cpu[2]*1e3, best[1]/best[0], cpu[1]/cpu[0],
				best[2]/best[0], cpu[2]/cpu[0], diff[0], diff[1])
		}
	}
	for p, what := range []string{"one row (28 layers + LM head)", fmt.Sprintf("%d rows (28 layers)", *prefill)} {
		if sum[p][0][0] == 0 { // not run (--only, --q4op-rows)
			continue
		}
		fmt.Printf("sum at %s: wall MLAS %.2f, op %.2f, op layout 1 %.2f ms (op/MLAS %.2f, L1/MLAS %.2f, L1/op %.2f); CPU %.2f, %.2f, %.2f ms (op/MLAS %.2f, L1/MLAS %.2f, L1/op %.2f)\n", what,
			sum[p][0][0]*1e3, sum[p][0][1]*1e3, sum[p][0][2]*1e3, sum[p][0][1]/sum[p][0][0], sum[p][0][2]/sum[p][0][0], sum[p][0][2]/sum[p][0][1],
			sum[p][1][0]*1e3, sum[p][1][1]*1e3, sum[p][1][2]*1e3, sum[p][1][1]/sum[p][1][0], sum[p][1][2]/sum[p][1][0], sum[p][1][2]/sum[p][1][1])
	}
	return nil
}

// q4opShape times the three sides of one shape (MLAS, the op, the op over its layout 1 of the
// same weights, optimize.Cols16Weights): copies nodes side by side, each with its own weights,
// all reading one A. It returns the best wall and median CPU seconds a call of one node and the
// largest differences of the op's outputs (both layouts) from MLAS's over their rms.
func q4opShape(dir string, s shape, rows, copies int) (best, cpu [3]float64, diff [2]float64, err error) {
	ws := make([]weights, copies)
	for i := range ws {
		ws[i] = newWeights(s, uint64(i+1))
	}
	r := rand.New(rand.NewPCG(11, uint64(rows)))
	x := make([]float32, rows*s.K)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	var sides [3]*ortSide
	for i, domain := range []string{"com.microsoft", attnop.Domain, attnop.Domain} {
		path := filepath.Join(dir, fmt.Sprintf("%s-%d-%d.onnx", s.Name, rows, i))
		if err := q4opGraph(path, s, ws, rows, domain, i == 2); err != nil {
			return best, cpu, diff, err
		}
		if sides[i], err = q4opSession(path, x, rows, s, copies); err != nil {
			return best, cpu, diff, err
		}
		defer sides[i].destroy()
		if err := sides[i].s.Run(); err != nil { // MLAS packs its weights on the first run
			return best, cpu, diff, err
		}
	}
	best = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	var cpus [3][]float64
	for round := range *rounds {
		for j := range 3 {
			i := (j + round) % 3
			c0, t0 := cputime.Used(), time.Now()
			if err := sides[i].s.Run(); err != nil {
				return best, cpu, diff, err
			}
			best[i] = min(best[i], time.Since(t0).Seconds()/float64(copies))
			cpus[i] = append(cpus[i], (cputime.Used()-c0).Seconds()/float64(copies))
		}
		time.Sleep(2 * time.Millisecond)
	}
	for i := range 3 {
		cpu[i] = median(cpus[i])
	}
	want := sides[0].y[0].GetData()
	for j := range 2 {
		got := sides[1+j].y[0].GetData()
		var worst, sq float64
		for i := range want {
			worst = max(worst, math.Abs(float64(got[i])-float64(want[i])))
			sq += float64(want[i]) * float64(want[i])
		}
		diff[j] = worst / math.Sqrt(sq/float64(len(want)))
	}
	return best, cpu, diff, nil
}

// q4opGraph writes len(ws) MatMulNBits nodes (accuracy level 4) of domain side by side, all
// reading A [rows, K]; cols16: their weights in the op's layout 1 (attribute layout 1).
func q4opGraph(path string, s shape, ws []weights, rows int, domain string, cols16 bool) error {
	g := proto.Graph{Name: "q4op", Inputs: []proto.ValueInfo{{Name: "A", Type: proto.Float, Dims: proto.Dims(rows, s.K)}}}
	for i, w := range ws {
		b, sc, y := fmt.Sprint("B", i), fmt.Sprint("scales", i), fmt.Sprint("Y", i)
		attrs := []proto.Attr{proto.IntAttr("K", int64(s.K)), proto.IntAttr("N", int64(s.N)), proto.IntAttr("bits", 4),
			proto.IntAttr("block_size", 32), proto.IntAttr("accuracy_level", 4)}
		if cols16 {
			attrs = append(attrs, proto.IntAttr("layout", 1))
			sb := optimize.Cols16Scales(unsafe.Slice((*byte)(unsafe.Pointer(&w.S[0])), 4*len(w.S)), s.N, s.K)
			w = weights{B: optimize.Cols16Weights(w.B, s.N, s.K), S: unsafe.Slice((*float32)(unsafe.Pointer(&sb[0])), len(w.S))}
		}
		g.Nodes = append(g.Nodes, proto.Node{Name: fmt.Sprint("mm", i), OpType: "MatMulNBits", Domain: domain,
			Inputs: []string{"A", b, sc}, Outputs: []string{y}, Attrs: attrs})
		g.Outputs = append(g.Outputs, proto.ValueInfo{Name: y, Type: proto.Float, Dims: proto.Dims(rows, s.N)})
		g.Initializers = append(g.Initializers,
			&proto.Tensor{Name: b, DataType: proto.Uint8, Dims: []int64{int64(s.N), int64(s.K / 32), 16}, Raw: w.B},
			proto.FloatTensor(sc, []int64{int64(len(w.S))}, w.S))
	}
	m := &proto.Model{IRVersion: 10, Producer: "kernbench",
		Opsets: []proto.Opset{{Domain: "", Version: 21}, {Domain: domain, Version: 1}}, Graph: g}
	return m.WriteFile(path, proto.WriteOptions{})
}

// q4opSession opens path with A bound to x and fresh outputs, spinning off, the kernels
// registered.
func q4opSession(path string, x []float32, rows int, s shape, outs int) (*ortSide, error) {
	in, err := ort.NewTensor(ort.NewShape(int64(rows), int64(s.K)), x)
	if err != nil {
		return nil, err
	}
	side := &ortSide{}
	var vals []ort.Value
	var names []string
	for i := range outs {
		y, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), int64(s.N)))
		if err != nil {
			return nil, err
		}
		side.y = append(side.y, y)
		vals, names = append(vals, y), append(names, fmt.Sprint("Y", i))
	}
	o, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer o.Destroy()
	err = o.SetIntraOpNumThreads(*threads)
	if err == nil {
		err = o.AddSessionConfigEntry("session.intra_op.allow_spinning", "0")
	}
	if err == nil {
		err = attnop.Register(o)
	}
	if err != nil {
		return nil, err
	}
	if side.s, err = ort.NewAdvancedSession(path, []string{"A"}, names, []ort.Value{in}, vals, o); err != nil {
		return nil, err
	}
	return side, nil
}
