//go:build linux && amd64 && cgo

package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	ort "github.com/yalue/onnxruntime_go"
	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/inference/ort/loop"
)

// opTwin writes beside graph (an int4 decoder, weights in a data file beside it) a copy whose
// MatMulNBits nodes run kernbench.ops.MatMulNBits, this folder's kernel: their domain
// "com.microsoft" becomes "kernbench.ops" (the same length, so the graph is patched in place)
// and the model imports that domain. It returns the copy's path and how many nodes changed.
func opTwin(graph string) (string, int, error) {
	b, err := os.ReadFile(graph)
	if err != nil {
		return "", 0, err
	}
	const from, to = "com.microsoft", "kernbench.ops"
	n := 0
	// ModelProto.graph (7) → GraphProto.node (1) → NodeProto.op_type (4), domain (7).
	err = eachField(b, 0, func(num protowire.Number, g []byte, gOff int) error {
		if num != 7 {
			return nil
		}
		return eachField(g, gOff, func(num protowire.Number, node []byte, nOff int) error {
			if num != 1 {
				return nil
			}
			var op string
			domOff := -1
			err := eachField(node, nOff, func(num protowire.Number, v []byte, off int) error {
				switch num {
				case 4:
					op = string(v)
				case 7:
					if string(v) == from {
						domOff = off
					}
				}
				return nil
			})
			if err == nil && op == "MatMulNBits" && domOff >= 0 {
				copy(b[domOff:], to)
				n++
			}
			return err
		})
	})
	if err != nil {
		return "", 0, err
	}
	if n == 0 {
		return "", 0, errors.New("no MatMulNBits node of domain com.microsoft in " + graph)
	}
	var opset []byte
	opset = protowire.AppendTag(opset, 1, protowire.BytesType)
	opset = protowire.AppendString(opset, to)
	opset = protowire.AppendTag(opset, 2, protowire.VarintType)
	opset = protowire.AppendVarint(opset, 1)
	b = protowire.AppendTag(b, 8, protowire.BytesType) // ModelProto.opset_import
	b = protowire.AppendBytes(b, opset)
	out := filepath.Join(filepath.Dir(graph), "kernbench-ops-"+filepath.Base(graph))
	return out, n, os.WriteFile(out, b, 0o644)
}

// eachField calls fn with every length-delimited field of the message b (which starts at
// offset base of the whole buffer) and the offset of its contents.
func eachField(b []byte, base int, fn func(num protowire.Number, v []byte, off int) error) error {
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return protowire.ParseError(n)
		}
		i += n
		if typ != protowire.BytesType {
			m := protowire.ConsumeFieldValue(num, typ, b[i:])
			if m < 0 {
				return protowire.ParseError(m)
			}
			i += m
			continue
		}
		v, m := protowire.ConsumeBytes(b[i:])
		if m < 0 {
			return protowire.ParseError(m)
		}
		if err := fn(num, v, base+i+m-len(v)); err != nil {
			return err
		}
		i += m
	}
	return nil
}

// endToEnd runs the app's optimized copy and its custom-operator twin in turn: a prefill of
// --prefill tokens and --decode greedy tokens, --rounds times, each first in turn.
func endToEnd(graph string, decode int) error {
	twin, n, err := opTwin(graph)
	if err != nil {
		return err
	}
	defer os.Remove(twin)
	fmt.Printf("%s: %d MatMulNBits nodes on kernbench.ops in the twin\n", graph, n)
	cfg := map[string]string{"session.intra_op.allow_spinning": "1", "session.force_spinning_stop": "1"}
	base := loop.Options{Threads: *threads, MaxTokens: *prefill + decode + 1, SharedKV: true, Config: cfg}
	withOps := base
	withOps.Setup = func(o *ort.SessionOptions) error { return ops.register(o) }
	var loops [2]*loop.Loop
	for i, p := range []string{graph, twin} {
		o := base
		if i == 1 {
			o = withOps
		}
		if loops[i], err = loop.Open(p, o); err != nil {
			return fmt.Errorf("open %s: %w", p, err)
		}
		defer loops[i].Close()
	}
	ids := make([]int, *prefill)
	for i := range ids {
		ids[i] = 100 + i%1000
	}
	if *refGraph != "" {
		ref, err := loop.Open(*refGraph, base)
		if err != nil {
			return fmt.Errorf("open %s: %w", *refGraph, err)
		}
		for i, name := range []string{"MatMulNBits acc 4", "kernbench.ops kernel"} {
			fmt.Printf("  %s against the float-compute twin:", name)
			if err := compareLogits([2]*loop.Loop{ref, loops[i]}, ids); err != nil {
				ref.Close()
				return err
			}
		}
		ref.Close()
	}
	fmt.Printf("  kernel against MatMulNBits acc 4:")
	if err := compareLogits(loops, ids); err != nil {
		return err
	}
	names := [2]string{"MatMulNBits (acc 4)", "kernbench.ops kernel"}
	ttft := [2][]float64{}
	tps := [2][]float64{}
	var tokens [2][]int
	rounds := max(3, *rounds/5)
	for r := range rounds + 1 { // round 0 warms up
		for j := range 2 {
			i := (j + r) % 2
			res, err := loops[i].Greedy(ids, decode)
			if err != nil {
				return fmt.Errorf("%s: %w", names[i], err)
			}
			tokens[i] = res.IDs
			if r > 0 {
				ttft[i] = append(ttft[i], res.TTFT.Seconds())
				tps[i] = append(tps[i], res.DecodeTPS)
			}
		}
	}
	for i := range 2 {
		fmt.Printf("  %-22s first token %.3f s (best of %d; median %.3f)  decode %.1f tokens/s (best; median %.1f)\n",
			names[i], slices.Min(ttft[i]), rounds, median(ttft[i]), slices.Max(tps[i]), median(tps[i]))
	}
	fmt.Printf("  kernel/ort: first token %.2f× (best), %.2f× (median); decode %.2f× (best), %.2f× (median)\n",
		slices.Min(ttft[1])/slices.Min(ttft[0]), median(ttft[1])/median(ttft[0]), slices.Max(tps[1])/slices.Max(tps[0]), median(tps[1])/median(tps[0]))
	same := 0
	for same < min(len(tokens[0]), len(tokens[1])) && tokens[0][same] == tokens[1][same] {
		same++
	}
	fmt.Printf("  greedy tokens: the first %d of %d agree\n", same, len(tokens[0]))
	return nil
}

// compareLogits says how far the two graphs' logits after the prompt are apart, against how
// far apart the top two logits are: a greedy token flips where the first exceeds the second.
func compareLogits(loops [2]*loop.Loop, ids []int) error {
	var got [2][]float32
	for i, l := range loops {
		l.Truncate(0)
		lg, err := l.Step(ids)
		if err != nil {
			return err
		}
		got[i] = slices.Clone(lg[len(lg)-l.Vocab():])
	}
	var maxd, sum, sq float64
	for i, v := range got[0] {
		maxd = max(maxd, math.Abs(float64(v-got[1][i])))
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	n := float64(len(got[0]))
	sd := math.Sqrt(sq/n - (sum/n)*(sum/n))
	top := slices.Clone(got[0])
	slices.Sort(top)
	fmt.Printf(" logits after the prompt: largest difference %.3g (%.2g of their standard deviation %.3g); gap between the top two %.3g\n",
		maxd, maxd/sd, sd, float64(top[len(top)-1]-top[len(top)-2]))
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	return s[len(s)/2]
}
