//go:build linux && amd64 && cgo

package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/attnop"
	"edgechat/inference/ort/env"
	"edgechat/internal/cputime"
	"edgechat/onnx/proto"
)

// Qwen3-0.6B's attention: 16 query heads, 8 KV heads of 128.
const attnHeads, attnKV, attnDim = 16, 8, 128

// attnSide is one attention node under test: GroupQueryAttention (com.microsoft) or the
// attnop package's operator (the same node in domain attnop.Domain, or attnop.DomainInt8 for
// an int8 cache).
type attnSide struct {
	name   string
	domain string
	heads  int  // query heads
	int8   bool // ONNX Runtime's per-channel int8 cache
	row    bool // the per-row int8 cache (attnop.DomainRow: rows of attnDim + attnop.RowExtra bytes)
	base   int  // the side printSides sets it against, plus one (0: the side before it of its pair)
	sess   *ort.DynamicAdvancedSession
	out    ort.Value
	q      ort.Value
	wall   []float64 // seconds a call, per timed round
	cpu    []float64
}

// attnModel is one attention node at Qwen3-0.6B's shapes with rotary inside (cos and sin
// caches of rows positions), the cache float32 or int8 per channel (scales kScale, vScale).
func attnModel(domain string, heads int, quant bool, rows int, kScale, vScale []float32) *proto.Model {
	t := proto.Float
	if quant {
		t = proto.Int8
	}
	g := proto.Graph{Name: "attn"}
	g.Inputs = []proto.ValueInfo{
		{Name: "q", Type: proto.Float, Dims: proto.Dims(1, "s", heads*attnDim)},
		{Name: "k", Type: proto.Float, Dims: proto.Dims(1, "s", attnKV*attnDim)},
		{Name: "v", Type: proto.Float, Dims: proto.Dims(1, "s", attnKV*attnDim)},
		{Name: "past_key", Type: t, Dims: proto.Dims(1, attnKV, "t", attnDim)},
		{Name: "past_value", Type: t, Dims: proto.Dims(1, attnKV, "t", attnDim)},
		{Name: "seqlens_k", Type: proto.Int32, Dims: proto.Dims(1)},
		{Name: "total_sequence_length", Type: proto.Int32, Dims: proto.Dims(1)},
	}
	g.Outputs = []proto.ValueInfo{
		{Name: "out", Type: proto.Float, Dims: proto.Dims(1, "s", heads*attnDim)},
		{Name: "present_key", Type: t, Dims: proto.Dims(1, attnKV, "t", attnDim)},
		{Name: "present_value", Type: t, Dims: proto.Dims(1, attnKV, "t", attnDim)},
	}
	cos, sin := make([]float32, rows*attnDim/2), make([]float32, rows*attnDim/2)
	for p := range rows {
		for i := range attnDim / 2 {
			a := float64(p) / math.Pow(1e6, float64(2*i)/attnDim)
			cos[p*attnDim/2+i], sin[p*attnDim/2+i] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
	dims := []int64{int64(rows), attnDim / 2}
	g.Initializers = append(g.Initializers, proto.FloatTensor("cos", dims, cos), proto.FloatTensor("sin", dims, sin))
	in := []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos", "sin"}
	attrs := []proto.Attr{proto.IntAttr("num_heads", int64(heads)), proto.IntAttr("kv_num_heads", attnKV),
		proto.FloatAttr("scale", float32(1/math.Sqrt(attnDim))), proto.IntAttr("do_rotary", 1)}
	if quant {
		n := []int64{attnKV * attnDim}
		g.Initializers = append(g.Initializers, proto.FloatTensor("k_scale", n, kScale), proto.FloatTensor("v_scale", n, vScale))
		in = append(in, "", "", "", "k_scale", "v_scale")
		attrs = append(attrs, proto.StringAttr("k_quant_type", "PER_CHANNEL"), proto.StringAttr("v_quant_type", "PER_CHANNEL"), proto.IntAttr("kv_cache_bit_width", 8))
	}
	g.Nodes = []proto.Node{{Name: "attention", OpType: "GroupQueryAttention", Domain: domain, Inputs: in,
		Outputs: []string{"out", "present_key", "present_value"}, Attrs: attrs}}
	return &proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}, {Domain: domain, Version: 1}}, Graph: g}
}

// attnCache is a set of layer caches (keys and values, [1, KV, rows, D]) that the calls take
// in turn, so that the cached rows come from memory as a decode step's 28 layers do.
type attnCache struct {
	k, v []ort.Value
}

func newAttnCache(quant bool, rows, copies int, seed uint64) (*attnCache, error) {
	c := &attnCache{}
	shape := ort.NewShape(1, attnKV, int64(rows), attnDim)
	n := attnKV * rows * attnDim
	for i := range copies {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		for range 2 {
			var t ort.Value
			var err error
			if quant {
				b := make([]int8, n)
				for j := range b {
					b[j] = int8(r.IntN(255) - 127)
				}
				t, err = ort.NewTensor(shape, b)
			} else {
				b := make([]float32, n)
				for j := range b {
					b[j] = float32(r.NormFloat64())
				}
				t, err = ort.NewTensor(shape, b)
			}
			if err != nil {
				return nil, err
			}
			if len(c.k) == i {
				c.k = append(c.k, t)
			} else {
				c.v = append(c.v, t)
			}
		}
	}
	return c, nil
}

// kind is the side's cache: 0 float32, 1 per-channel int8, 2 per-row int8.
func (s *attnSide) kind() int {
	switch {
	case s.row:
		return 2
	case s.int8:
		return 1
	}
	return 0
}

// rowModel is m (attnModel's, float32 cache) with the per-row int8 cache: past and present
// int8 [1, KV, t, attnDim + attnop.RowExtra].
func rowModel(m *proto.Model) *proto.Model {
	for _, vs := range [][]proto.ValueInfo{m.Graph.Inputs, m.Graph.Outputs} {
		for i := range vs {
			if strings.HasPrefix(vs[i].Name, "past_") || strings.HasPrefix(vs[i].Name, "present_") {
				vs[i].Type = proto.Int8
				vs[i].Dims = proto.Dims(1, attnKV, "t", attnDim+attnop.RowExtra)
			}
		}
	}
	return m
}

// newRowCache is newAttnCache for the per-row cache: random values, each row's scale
// 0.01 to 0.03 in its last bytes.
func newRowCache(rows, copies int, seed uint64) (*attnCache, error) {
	c := &attnCache{}
	w := attnDim + attnop.RowExtra
	for i := range copies {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		for j := range 2 {
			b := make([]int8, attnKV*rows*w)
			for o := 0; o < len(b); o += w {
				for d := range attnDim {
					b[o+d] = int8(r.IntN(255) - 127)
				}
				bits := math.Float32bits(0.01 + 0.02*r.Float32())
				for x := range 4 {
					b[o+attnDim+x] = int8(bits >> (8 * x))
				}
			}
			t, err := ort.NewTensor(ort.NewShape(1, attnKV, int64(rows), int64(w)), b)
			if err != nil {
				return nil, err
			}
			if j == 0 {
				c.k = append(c.k, t)
			} else {
				c.v = append(c.v, t)
			}
		}
	}
	return c, nil
}

func (c *attnCache) destroy() {
	for _, t := range slices.Concat(c.k, c.v) {
		t.Destroy()
	}
}

// attnCap is the KV buffer's rows when the app's decoder holds tokens: doubling from 256 until
// they fit (decoder's kvBuffers.grow).
func attnCap(tokens int) int {
	c := 256
	for c < tokens {
		c *= 2
	}
	return c
}

// attnChunk is how many prompt rows the app's decoder gives one run into a buffer of capRows at
// Qwen3-0.6B's 16 query heads (decoder's dynamicDecoder.chunk for the optimized copy:
// scoreBytes / (4 · heads · capacity), from 16 to 512 rows).
func attnChunk(capRows int) int {
	return min(max((32<<20)/(4*attnHeads*capRows), 16), 512)
}

// attnOpen opens the sessions of the sides: GroupQueryAttention opened as the app opens it (an
// int8 cache's with ONNX Runtime's flash path off, env.WithoutGQAFlash), the package's
// operators registered on every session.
func attnOpen(dir string, sides []*attnSide, rows int, kScale, vScale []float32) error {
	names := []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length"}
	outs := []string{"out", "present_key", "present_value"}
	for i, s := range sides {
		path := filepath.Join(dir, fmt.Sprintf("attn%d.onnx", i))
		m := attnModel(s.domain, s.heads, s.int8, rows, kScale, vScale)
		if s.row {
			m = rowModel(m)
		}
		if err := m.WriteFile(path, proto.WriteOptions{}); err != nil {
			return err
		}
		o, err := ort.NewSessionOptions()
		if err != nil {
			return err
		}
		o.SetIntraOpNumThreads(*threads)
		o.SetInterOpNumThreads(1)
		if err := o.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
			return err
		}
		if err := attnop.Register(o); err != nil {
			return err
		}
		open := func() error {
			s.sess, err = ort.NewDynamicAdvancedSession(path, names, outs, o)
			return err
		}
		if s.int8 && s.domain == "com.microsoft" {
			err = env.WithoutGQAFlash(open)
		} else {
			err = open()
		}
		o.Destroy()
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// attnSides are the four sides timed: GroupQueryAttention and the package's operator, float32
// and int8 caches (the bases first).
func attnSides4() []*attnSide {
	return []*attnSide{
		{name: "GQA f32", domain: "com.microsoft", heads: attnHeads},
		{name: "op f32", domain: attnop.Domain, heads: attnHeads},
		{name: "GQA int8", domain: "com.microsoft", heads: attnHeads, int8: true},
		{name: "op int8", domain: attnop.DomainInt8, heads: attnHeads, int8: true},
	}
}

// attnScales are the int8 cache's per-channel scales of the benchmarks.
func attnScales() (k, v []float32) {
	k, v = make([]float32, attnKV*attnDim), make([]float32, attnKV*attnDim)
	for i := range k {
		k[i], v[i] = 0.02+0.01*float32(i%7), 0.015+0.005*float32(i%5)
	}
	return k, v
}

// attnBench checks the package's operators (inference/ort/attnop) against GroupQueryAttention
// at every --attn context length and times both, one call each in turn, float32 and int8
// caches, in buffers of the app's capacity; then the prompts of --attn-prompt.
func attnBench(dir string, pasts []int) error {
	if err := attnop.Available(); err != nil {
		return err
	}
	kScale, vScale := attnScales()
	rows := attnCap(slices.Max(pasts) + 1)
	sides := append(attnSides4(), &attnSide{name: "op row", domain: attnop.DomainRow, heads: attnHeads, row: true, base: 4})
	if err := attnOpen(dir, sides, rows, kScale, vScale); err != nil {
		return err
	}
	defer func() {
		for _, s := range sides {
			s.sess.Destroy()
		}
	}()
	r := rand.New(rand.NewPCG(7, 7))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	qAll := vec(attnHeads * attnDim)
	k, _ := ort.NewTensor(ort.NewShape(1, 1, attnKV*attnDim), vec(attnKV*attnDim))
	v, _ := ort.NewTensor(ort.NewShape(1, 1, attnKV*attnDim), vec(attnKV*attnDim))
	defer k.Destroy()
	defer v.Destroy()
	for _, s := range sides {
		var err error
		if s.q, err = ort.NewTensor(ort.NewShape(1, 1, int64(s.heads*attnDim)), qAll[:s.heads*attnDim]); err != nil {
			return err
		}
		defer s.q.Destroy()
		if s.out, err = ort.NewEmptyTensor[float32](ort.NewShape(1, 1, int64(s.heads*attnDim))); err != nil {
			return err
		}
		defer s.out.Destroy()
	}
	call := func(s *attnSide, c *attnCache, i, past int) error {
		seq, _ := ort.NewTensor(ort.NewShape(1), []int32{int32(past)})
		tot, _ := ort.NewTensor(ort.NewShape(1), []int32{int32(past + 1)})
		defer seq.Destroy()
		defer tot.Destroy()
		return s.sess.Run([]ort.Value{s.q, k, v, c.k[i], c.v[i], seq, tot}, []ort.Value{s.out, c.k[i], c.v[i]})
	}
	// Correctness: each side on its own copy of one cache, outputs and appended rows compared.
	fmt.Printf("attention, one decode step, %d threads: the attnop operator against GroupQueryAttention on the same inputs\n", *threads)
	for _, past := range pasts {
		for _, quant := range []bool{false, true} {
			d, err := attnCompare(dir, past, 1, quant, *threads)
			if err != nil {
				return err
			}
			fmt.Printf("  past %5d  %-5s cache: output max |diff| %.2e (output rms %.3f); new cache row max |diff| %.2g\n",
				past, map[bool]string{false: "f32", true: "int8"}[quant], d.out, d.rms, d.rows)
		}
	}
	// Timing.
	for _, past := range pasts {
		capRows := attnCap(past + 1)
		caches := map[int]*attnCache{}
		for kind, rowBytes := range []int{4 * attnDim, attnDim, attnDim + attnop.RowExtra} {
			bytes := 2 * attnKV * capRows * rowBytes
			copies := max(2, (*stream+bytes-1)/bytes)
			var c *attnCache
			var err error
			if kind == 2 {
				c, err = newRowCache(capRows, copies, 1)
			} else {
				c, err = newAttnCache(kind == 1, capRows, copies, 1)
			}
			if err != nil {
				return err
			}
			caches[kind] = c
		}
		for _, s := range sides {
			s.wall, s.cpu = s.wall[:0], s.cpu[:0]
		}
		const warmup = 3
		for it := range *rounds + warmup {
			for j := range sides {
				s := sides[(j+it)%len(sides)] // each first in turn
				c := caches[s.kind()]
				n := len(c.k)
				start, c0 := time.Now(), cputime.Used()
				for i := range n {
					if err := call(s, c, i, past); err != nil {
						return fmt.Errorf("%s: %w", s.name, err)
					}
				}
				if it >= warmup {
					s.wall = append(s.wall, time.Since(start).Seconds()/float64(n))
					s.cpu = append(s.cpu, (cputime.Used()-c0).Seconds()/float64(n))
				}
			}
		}
		fmt.Printf("\ndecode at past %d (buffer %d rows), %d threads, %d rounds (each a call on every one of the cache copies, %d f32 / %d int8 / %d per-row; spinning off): ms a call\n",
			past, capRows, *threads, *rounds, len(caches[0].k), len(caches[1].k), len(caches[2].k))
		printSides(sides)
		for _, s := range sides {
			if s.row { // the bytes a call reads: keys and values of past+1 rows
				gb := float64(2*attnKV*(past+1)*(attnDim+attnop.RowExtra)) / median(s.wall) / 1e9
				fmt.Printf("  %-9s reads %.1f GB/s (wall median)\n", s.name, gb)
			}
		}
		for _, c := range caches {
			c.destroy()
		}
	}
	if *attnPrompt != "" {
		return promptBench(dir, kScale, vScale)
	}
	return nil
}

// printSides prints each side's times against its base (the GroupQueryAttention side of its
// cache type).
func printSides(sides []*attnSide) {
	for i, s := range sides {
		base := sides[i&^1]
		if s.base > 0 {
			base = sides[s.base-1]
		}
		fmt.Printf("  %-9s wall median %7.3f best %7.3f | CPU median %7.3f | ÷ %s: wall %.3f, CPU %.3f (medians of the paired rounds' ratios)\n",
			s.name, 1e3*median(s.wall), 1e3*slices.Min(s.wall), 1e3*median(s.cpu), base.name, pairedRatio(s.wall, base.wall), pairedRatio(s.cpu, base.cpu))
	}
}

// pairedRatio is the median of a[i]/b[i].
func pairedRatio(a, b []float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	return median(r)
}

// appendedRowErr is the largest difference between two caches' rows at past (the row each
// side appended), over keys and values.
func appendedRowErr(a, b *attnCache, quant bool, rows, past int) float64 {
	e := 0.0
	for _, pair := range [][2]ort.Value{{a.k[0], b.k[0]}, {a.v[0], b.v[0]}} {
		for h := range attnKV {
			off := (h*rows + past) * attnDim
			for i := range attnDim {
				var x, y float64
				if quant {
					x, y = float64(pair[0].(*ort.Tensor[int8]).GetData()[off+i]), float64(pair[1].(*ort.Tensor[int8]).GetData()[off+i])
				} else {
					x, y = float64(pair[0].(*ort.Tensor[float32]).GetData()[off+i]), float64(pair[1].(*ort.Tensor[float32]).GetData()[off+i])
				}
				e = max(e, math.Abs(x-y))
			}
		}
	}
	return e
}

// parsePasts reads --attn's comma-separated context lengths.
func parsePasts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--attn %q: want positive context lengths, comma-separated", s)
		}
		out = append(out, n)
	}
	return out, nil
}
