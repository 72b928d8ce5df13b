//go:build linux && amd64 && cgo

package main

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ort "github.com/yalue/onnxruntime_go"
	"google.golang.org/protobuf/encoding/protowire"

	"edgechat/inference/ort/attnop"
	"edgechat/inference/ort/loop"
	"edgechat/inference/sample"
	"edgechat/internal/cputime"
)

// opTwin writes beside graph (an int4 decoder, weights in a data file beside it) a copy whose
// nodes of the types in ops run custom operators: MatMulNBits on this folder's q4.c (domain
// "kernbench.ops", from the --ops library), GroupQueryAttention on inference/ort/attnop's
// (attnop.Domain, or attnop.DomainInt8 for nodes over an int8 cache: their k_scale and v_scale
// make more than 9 inputs), or both. Their domain "com.microsoft" changes (the lengths around
// it re-encoded), and the model imports those domains. It returns the copy's path and how many
// nodes of each type changed; a type with none is an error.
func opTwin(graph string, ops ...string) (string, map[string]int, error) {
	b, err := os.ReadFile(graph)
	if err != nil {
		return "", nil, err
	}
	const from = "com.microsoft"
	n := map[string]int{}
	used := map[string]bool{}
	// NodeProto.input (1), op_type (4), domain (7).
	b, err = rewriteNodes(b, func(node []byte) ([]byte, error) {
		var typ, dom string
		inputs := 0
		err := eachField(node, 0, func(num protowire.Number, v []byte, off int) error {
			switch num {
			case 1:
				inputs++
			case 4:
				typ = string(v)
			case 7:
				dom = string(v)
			}
			return nil
		})
		if err != nil || !slices.Contains(ops, typ) || dom != from {
			return node, err
		}
		to := "kernbench.ops"
		if typ == "MatMulNBits" && *q4opFlag { // attnop's int4 product instead of q4.c's
			to = attnop.Domain
		}
		if typ == "GroupQueryAttention" {
			to = attnop.Domain
			if inputs > 9 {
				to = attnop.DomainInt8
			}
		}
		used[to] = true
		n[typ]++
		return rewriteField(node, 7, func([]byte) ([]byte, error) { return []byte(to), nil })
	})
	if err != nil {
		return "", nil, err
	}
	for _, op := range ops {
		if n[op] == 0 {
			return "", nil, fmt.Errorf("no %s node of domain com.microsoft in %s", op, graph)
		}
	}
	for _, to := range slices.Sorted(maps.Keys(used)) {
		var opset []byte
		opset = protowire.AppendTag(opset, 1, protowire.BytesType)
		opset = protowire.AppendString(opset, to)
		opset = protowire.AppendTag(opset, 2, protowire.VarintType)
		opset = protowire.AppendVarint(opset, 1)
		b = protowire.AppendTag(b, 8, protowire.BytesType) // ModelProto.opset_import
		b = protowire.AppendBytes(b, opset)
	}
	out := filepath.Join(filepath.Dir(graph), "kernbench-ops-"+strings.ToLower(strings.Join(ops, "-"))+"-"+filepath.Base(graph))
	return out, n, os.WriteFile(out, b, 0o644)
}

// rewriteNodes returns the model b with every node (ModelProto.graph (7) → GraphProto.node
// (1)) replaced by what edit returns for it, the graph's length re-encoded.
func rewriteNodes(b []byte, edit func(node []byte) ([]byte, error)) ([]byte, error) {
	return rewriteField(b, 7, func(g []byte) ([]byte, error) { return rewriteField(g, 1, edit) })
}

// rewriteField returns the message b with the value of every length-delimited field num
// replaced by fn's result; every other field is copied as it is.
func rewriteField(b []byte, num protowire.Number, fn func([]byte) ([]byte, error)) ([]byte, error) {
	out := make([]byte, 0, len(b)+64)
	for i := 0; i < len(b); {
		n, typ, m := protowire.ConsumeTag(b[i:])
		if m < 0 {
			return nil, protowire.ParseError(m)
		}
		l := protowire.ConsumeFieldValue(n, typ, b[i+m:])
		if l < 0 {
			return nil, protowire.ParseError(l)
		}
		if n != num || typ != protowire.BytesType {
			out = append(out, b[i:i+m+l]...)
		} else {
			v, _ := protowire.ConsumeBytes(b[i+m:])
			nv, err := fn(v)
			if err != nil {
				return nil, err
			}
			out = protowire.AppendBytes(protowire.AppendTag(out, num, protowire.BytesType), nv)
		}
		i += m + l
	}
	return out, nil
}

// eachNode calls fn with every node of the model b (ModelProto.graph (7) → GraphProto.node
// (1)) and the node's offset in b, for patching it in place.
func eachNode(b []byte, fn func(node []byte, off int) error) error {
	return eachField(b, 0, func(num protowire.Number, g []byte, gOff int) error {
		if num != 7 {
			return nil
		}
		return eachField(g, gOff, func(num protowire.Number, node []byte, nOff int) error {
			if num != 1 {
				return nil
			}
			return fn(node, nOff)
		})
	})
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

// endToEnd runs the app's optimized copy and its custom-operator twin (or, with --vs, a second
// graph) in turn: a prefill of --prefill tokens and --decode greedy tokens, --rounds times,
// each first in turn.
func endToEnd(graph string, decode int) error {
	names := [2]string{"MatMulNBits (acc 4)", "kernbench.ops kernel"}
	if *q4opFlag {
		names[1] = "attnop MatMulNBits"
	}
	twin := *vsGraph
	if twin == "" {
		t, n, err := opTwin(graph, "MatMulNBits")
		if err != nil {
			return err
		}
		defer os.Remove(t)
		twin = t
		fmt.Printf("%s: %d MatMulNBits nodes on %s in the twin\n", graph, n["MatMulNBits"], names[1])
	} else {
		names = [2]string{"--model", "--vs"}
		fmt.Printf("--model %s\n--vs    %s\n", graph, twin)
	}
	base, withOps := twinOptions(decode)
	var loops [2]*loop.Loop
	var err error
	fmt.Printf("  memory before the sessions: %s\n", memory())
	for i, p := range []string{graph, twin} {
		o := base
		if i == 1 && *vsGraph == "" {
			o = withOps
		}
		if loops[i], err = loop.Open(p, o); err != nil {
			return fmt.Errorf("open %s: %w", p, err)
		}
		defer loops[i].Close()
		fmt.Printf("  memory with %s open: %s\n", names[i], memory())
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
		for i, name := range names {
			fmt.Printf("  %s against the float-compute twin:", name)
			if err := compareLogits([2]*loop.Loop{ref, loops[i]}, ids); err != nil {
				ref.Close()
				return err
			}
		}
		ref.Close()
	}
	fmt.Printf("  %s against %s:", names[1], names[0])
	if err := compareLogits(loops, ids); err != nil {
		return err
	}
	// [side][prefill, decode step] seconds of wall-clock and of CPU time (user and system, all
	// threads: with --spin=false it counts work, not waiting, which on a shared machine is
	// the steadier measure).
	fmt.Printf("  memory after both ran the prompt: %s\n", memory())
	var wall, cpuT [2][2][]float64
	var tokens [2][]int
	rounds := max(3, *rounds/5)
	for r := range rounds + 1 { // round 0 warms up
		for j := range 2 {
			i := (j + r) % 2
			w, c, ids, err := greedyTimed(loops[i], ids, decode)
			if err != nil {
				return fmt.Errorf("%s: %w", names[i], err)
			}
			tokens[i] = ids
			if r > 0 {
				for ph := range 2 {
					wall[i][ph] = append(wall[i][ph], w[ph])
					cpuT[i][ph] = append(cpuT[i][ph], c[ph])
				}
			}
		}
	}
	for i := range 2 {
		fmt.Printf("  %-22s prefill %7.3f s wall (best of %d; median %7.3f), %7.3f s CPU (median) | decode step %6.2f ms wall (best; median %6.2f), %6.2f ms CPU (median)\n",
			names[i], slices.Min(wall[i][0]), rounds, median(wall[i][0]), median(cpuT[i][0]),
			1e3*slices.Min(wall[i][1]), 1e3*median(wall[i][1]), 1e3*median(cpuT[i][1]))
	}
	fmt.Printf("  %s/%s time: prefill %.2f× wall (best), %.2f× CPU (median); decode step %.2f× wall (best), %.2f× CPU (median)\n", names[1], names[0],
		slices.Min(wall[1][0])/slices.Min(wall[0][0]), median(cpuT[1][0])/median(cpuT[0][0]),
		slices.Min(wall[1][1])/slices.Min(wall[0][1]), median(cpuT[1][1])/median(cpuT[0][1]))
	same := 0
	for same < min(len(tokens[0]), len(tokens[1])) && tokens[0][same] == tokens[1][same] {
		same++
	}
	fmt.Printf("  greedy tokens: the first %d of %d agree\n", same, len(tokens[0]))
	return nil
}

// greedyTimed runs the prompt and n greedy steps, returning the wall-clock and CPU seconds of
// the prefill and of one decode step (their mean) and the tokens.
func greedyTimed(l *loop.Loop, prompt []int, n int) (wall, cpuS [2]float64, ids []int, err error) {
	l.Truncate(0)
	w0, c0 := time.Now(), cputime.Used()
	logits, err := l.Step(prompt)
	if err != nil {
		return wall, cpuS, nil, err
	}
	next := sample.Argmax(logits[len(logits)-l.Vocab():])
	wall[0], cpuS[0] = time.Since(w0).Seconds(), (cputime.Used() - c0).Seconds()
	ids = append(ids, next)
	w0, c0 = time.Now(), cputime.Used()
	for range n {
		if logits, err = l.Step([]int{next}); err != nil {
			return wall, cpuS, ids, err
		}
		next = sample.Argmax(logits)
		ids = append(ids, next)
	}
	wall[1], cpuS[1] = time.Since(w0).Seconds()/float64(n), (cputime.Used()-c0).Seconds()/float64(n)
	return wall, cpuS, ids, nil
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
	maxd, sd := maxAbsDiff(got[0], got[1]), spread(got[0])
	fmt.Printf(" logits after the prompt: largest difference %.3g (%.2g of their standard deviation %.3g); gap between the top two %.3g\n",
		maxd, maxd/sd, sd, topGap(got[0]))
	return nil
}

// memory is this process's private memory (pages no other process maps: what a second
// session really costs, unlike RSS, which also counts the shared file pages of mapped weights)
// and RSS, from /proc/self/smaps_rollup.
func memory() string {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return err.Error()
	}
	kb := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		var k string
		var v int
		if n, _ := fmt.Sscanf(line, "%s %d kB", &k, &v); n == 2 {
			kb[strings.TrimSuffix(k, ":")] = v
		}
	}
	return fmt.Sprintf("private %d MB (dirty %d MB), RSS %d MB", (kb["Private_Clean"]+kb["Private_Dirty"])>>10, kb["Private_Dirty"]>>10, kb["Rss"]>>10)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	return s[len(s)/2]
}

// mixedCopy writes beside graph (an acc-4 copy, see --copy) a copy whose MatMulNBits nodes of
// the shapes in ks ("KxN") run at accuracy level 0: their accuracy_level varint 4 becomes 0 (one
// byte either way, so the graph is patched in place). It returns the copy's path and how many
// nodes changed.
func mixedCopy(graph string, ks []string) (string, int, error) {
	b, err := os.ReadFile(graph)
	if err != nil {
		return "", 0, err
	}
	n := 0
	// NodeProto.op_type (4), attribute (5) → AttributeProto.name (1), i (3).
	err = eachNode(b, func(node []byte, nOff int) error {
		var op string
		ints := map[string]int64{}
		accOff := -1
		err := eachField(node, nOff, func(num protowire.Number, v []byte, off int) error {
			switch num {
			case 4:
				op = string(v)
			case 5:
				name, i, iOff, err := intAttr(v, off)
				if err != nil {
					return err
				}
				ints[name] = i
				if name == "accuracy_level" {
					accOff = iOff
				}
			}
			return nil
		})
		if err != nil || op != "MatMulNBits" || !slices.Contains(ks, fmt.Sprintf("%dx%d", ints["K"], ints["N"])) {
			return err
		}
		if accOff < 0 || ints["accuracy_level"] != 4 {
			return fmt.Errorf("a %dx%d MatMulNBits node is not at accuracy level 4: not an acc-4 copy", ints["K"], ints["N"])
		}
		b[accOff] = 0
		n++
		return nil
	})
	if err != nil {
		return "", 0, err
	}
	out := filepath.Join(filepath.Dir(graph), "acc0-"+strings.ReplaceAll(strings.Join(ks, "-"), "x", "_")+"-"+filepath.Base(graph))
	return out, n, os.WriteFile(out, b, 0o644)
}

// intAttr reads an AttributeProto (at offset base of the whole buffer): its name, its int
// value and that value's offset.
func intAttr(a []byte, base int) (name string, v int64, off int, err error) {
	off = -1
	for i := 0; i < len(a); {
		num, typ, n := protowire.ConsumeTag(a[i:])
		if n < 0 {
			return "", 0, -1, protowire.ParseError(n)
		}
		i += n
		switch {
		case num == 1 && typ == protowire.BytesType:
			s, m := protowire.ConsumeBytes(a[i:])
			if m < 0 {
				return "", 0, -1, protowire.ParseError(m)
			}
			name = string(s)
			i += m
		case num == 3 && typ == protowire.VarintType:
			x, m := protowire.ConsumeVarint(a[i:])
			if m < 0 {
				return "", 0, -1, protowire.ParseError(m)
			}
			v, off = int64(x), base+i
			i += m
		default:
			m := protowire.ConsumeFieldValue(num, typ, a[i:])
			if m < 0 {
				return "", 0, -1, protowire.ParseError(m)
			}
			i += m
		}
	}
	return name, v, off, nil
}

// twinOptions are the loop options of a graph (base) and of its twin, whose sessions have
// the custom operators registered (withOps), for a prompt of --prefill tokens and decode
// steps after it.
func twinOptions(decode int) (base, withOps loop.Options) {
	spinning := map[bool]string{true: "1", false: "0"}[*spin]
	cfg := map[string]string{"session.intra_op.allow_spinning": spinning, "session.force_spinning_stop": "1"}
	base = loop.Options{Threads: *threads, MaxTokens: *prefill + decode + 1, SharedKV: true, Config: cfg}
	withOps = base
	withOps.Setup = func(o *ort.SessionOptions) error {
		if ops != nil { // q4.c's MatMulNBits, from the --ops library
			if err := ops.register(o); err != nil {
				return err
			}
		}
		return attnop.Register(o)
	}
	return base, withOps
}
