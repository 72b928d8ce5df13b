// Command kvbench times one GroupQueryAttention node at Qwen3-0.6B's shapes (16 query heads,
// 8 KV heads of 128, rotary inside, one shared KV buffer) with the cache in float32, float16
// (queries, keys and values cast to float16 around the node, as a float16 KV cache on a
// float32 graph would run), int8 (ONNX Runtime's quantized cache: k_quant_type and
// v_quant_type PER_TENSOR or PER_CHANNEL, kv_cache_bit_width 8, float32 queries) and 4-bit
// (kv_cache_bit_width 4, PER_CHANNEL: uint8 tensors of head_dim / 2 bytes a row) — the
// quantized caches' semantics are checked in this package's tests — one decode step after
// --past cached tokens, the kinds alternating. It answers whether a smaller KV cache makes
// decoding at long contexts faster on this machine's CPU kernels: on x86-64 without float16
// arithmetic, ONNX Runtime converts a float16 cache to float32 on every call; and ONNX Runtime
// 1.30's quantized kernels dequantise as they go and are bound by that arithmetic, not by
// reading the cache — at 3,000 cached tokens (1 thread) the 4-bit cache costs ~1.1× the 8-bit
// one, though it reads half the bytes.
//
//	go run ./inference/ort/kvbench --past 3000 --threads 1 [--integer]
//
// --integer also times the attention's two products as ONNX MatMulInteger over an int8 cache
// (integer.go): what an attention built from standard operators could cost.
//
// It lives under inference/ort because it calls ONNX Runtime directly (one node, its own
// inputs), which only packages there may.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"edgechat/inference/ort/env"
	"edgechat/internal/cputime"
	"edgechat/onnx/proto"

	ort "github.com/yalue/onnxruntime_go"
)

var (
	past    = flag.Int("past", 3000, "cached tokens")
	rows    = flag.Int("rows", 4096, "rows of the shared KV buffer (> past + new)")
	newRows = flag.Int("new", 1, "new tokens a run (1: a decode step; more: a prompt chunk)")
	iters   = flag.Int("iters", 100, "timed runs of each kind")
	threads = flag.Int("threads", 1, "intra-op threads")
	integer = flag.Bool("integer", false, "also time the attention's two products as MatMulInteger on an int8 cache against float32 MatMul")
)

const heads, kvHeads, headDim = 16, 8, 128

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kvbench:", err)
		os.Exit(1)
	}
}

// kind is one cache type under test.
type kind struct {
	typ    proto.DataType
	quant  string // a quantized cache's k_quant_type and v_quant_type
	bits   int    // a quantized cache's kv_cache_bit_width: 8 (int8) or 4 (two values a uint8)
	elem   int    // bytes a cached value (4-bit: 1 for a pair)
	plain  bool   // a session on ONNX Runtime's plain attention path (env.WithoutGQAFlash), not its flash one
	ortTyp ort.TensorElementDataType
	sess   *ort.DynamicAdvancedSession
	pk, pv ort.Value
	spent  time.Duration // wall-clock
	cpu    time.Duration // this process's CPU time (ONNX Runtime's threads included)
}

func run() error {
	if *past < 1 || *newRows < 1 || *rows < *past+*newRows {
		return fmt.Errorf("need 0 < --past, 0 < --new and --past + --new <= --rows")
	}
	if _, err := env.Init(""); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "kvbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	kinds := []*kind{
		{typ: proto.Float, elem: 4, ortTyp: ort.TensorElementDataTypeFloat},
		{typ: proto.Float16, elem: 2, ortTyp: ort.TensorElementDataTypeFloat16},
		{typ: proto.Int8, quant: "PER_TENSOR", bits: 8, elem: 1, ortTyp: ort.TensorElementDataTypeInt8},
		{typ: proto.Int8, quant: "PER_CHANNEL", bits: 8, elem: 1, ortTyp: ort.TensorElementDataTypeInt8},
		{typ: proto.Int8, quant: "PER_CHANNEL", bits: 8, plain: true, elem: 1, ortTyp: ort.TensorElementDataTypeInt8},
		{typ: proto.Uint8, quant: "PER_CHANNEL", bits: 4, elem: 1, ortTyp: ort.TensorElementDataTypeUint8},
		{typ: proto.Uint8, quant: "PER_CHANNEL", bits: 4, plain: true, elem: 1, ortTyp: ort.TensorElementDataTypeUint8},
	}
	names := []string{"q", "k", "v", "past_key", "past_value", "seqlens_k", "total_sequence_length"}
	outs := []string{"out", "present_key", "present_value"}
	for _, k := range kinds {
		path := filepath.Join(dir, strings.ReplaceAll(k.name(), ",", "")+".onnx")
		if err := attentionModel(k.typ, k.quant, k.bits).WriteFile(path, proto.WriteOptions{}); err != nil {
			return err
		}
		o, err := ort.NewSessionOptions()
		if err != nil {
			return err
		}
		o.SetIntraOpNumThreads(*threads)
		o.SetInterOpNumThreads(1)
		// No spin-waiting: a waiting thread's spinning would count as CPU time.
		if err := o.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
			return err
		}
		create := func() (err error) {
			k.sess, err = ort.NewDynamicAdvancedSession(path, names, outs, o)
			return err
		}
		if k.plain {
			err = env.WithoutGQAFlash(create)
		} else {
			err = create()
		}
		o.Destroy()
		if err != nil {
			return fmt.Errorf("%s cache: %w", k.name(), err)
		}
		defer k.sess.Destroy()
		last := int64(headDim)
		if k.bits == 4 {
			last = headDim / 2
		}
		shape := ort.NewShape(1, kvHeads, int64(*rows), last)
		n := kvHeads * *rows * int(last) * k.elem
		if k.pk, err = ort.NewCustomDataTensor(shape, cacheBytes(k.typ, n), k.ortTyp); err != nil {
			return err
		}
		if k.pv, err = ort.NewCustomDataTensor(shape, cacheBytes(k.typ, n), k.ortTyp); err != nil {
			return err
		}
	}
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(math.Sin(float64(i))) * 0.5
		}
		return v
	}
	S := int64(*newRows)
	q, _ := ort.NewTensor(ort.NewShape(1, S, heads*headDim), vec(int(S)*heads*headDim))
	k, _ := ort.NewTensor(ort.NewShape(1, S, kvHeads*headDim), vec(int(S)*kvHeads*headDim))
	v, _ := ort.NewTensor(ort.NewShape(1, S, kvHeads*headDim), vec(int(S)*kvHeads*headDim))
	seqlens, _ := ort.NewTensor(ort.NewShape(1), []int32{int32(*past + *newRows - 1)})
	total, _ := ort.NewTensor(ort.NewShape(1), []int32{int32(*past + *newRows)})
	out, err := ort.NewEmptyTensor[float32](ort.NewShape(1, S, heads*headDim))
	if err != nil {
		return err
	}
	const warmup = 5
	for it := range *iters + warmup {
		for j := range kinds {
			c := kinds[(j+it)%len(kinds)] // each first in turn
			start, c0 := time.Now(), cputime.Used()
			if err := c.sess.Run([]ort.Value{q, k, v, c.pk, c.pv, seqlens, total}, []ort.Value{out, c.pk, c.pv}); err != nil {
				return fmt.Errorf("%s cache: %w", c.name(), err)
			}
			if it >= warmup {
				c.spent += time.Since(start)
				c.cpu += cputime.Used() - c0
			}
		}
	}
	base := kinds[0]
	fmt.Printf("GroupQueryAttention, %d new tokens after %d cached, %d threads, %d runs each:\n", *newRows, *past, *threads, *iters)
	for _, c := range kinds {
		us := float64(c.spent.Microseconds()) / float64(*iters)
		cu := float64(c.cpu.Microseconds()) / float64(*iters)
		fmt.Printf("  %-25s cache: wall %7.0f µs a call (%5.1f ms for 28 layers, %.2f× float32's); CPU %7.0f µs (%.2f×)\n",
			c.name(), us, us*28/1000, float64(c.spent)/float64(base.spent), cu, float64(c.cpu)/float64(base.cpu))
	}
	if *integer {
		return integerProducts(dir)
	}
	return nil
}

// name says the cache type (and a quantized cache's quantization).
func (k *kind) name() string {
	if k.quant == "" {
		return k.typ.String()
	}
	t := k.typ.String()
	if k.bits == 4 {
		t = "4-bit"
	}
	t += " " + strings.ToLower(strings.ReplaceAll(k.quant, "_", " "))
	if k.plain {
		t += ", plain"
	}
	return t
}

// cacheBytes is a cache buffer of n bytes holding small non-zero values of type t.
func cacheBytes(t proto.DataType, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		switch t {
		case proto.Float:
			if i%4 == 3 {
				b[i] = 0x3e // 0.125
			}
		case proto.Float16:
			if i%2 == 1 {
				b[i] = 0x30 // 0.125
			}
		default:
			b[i] = byte(i % 17)
		}
	}
	return b
}

// attentionModel is one GroupQueryAttention node with a cache of type t on float32 queries,
// keys and values: cast to float16 around the node for a float16 cache, quantized by the node
// itself to bits bits for an int8 one (8) or a 4-bit one (4: type uint8, two values a byte).
func attentionModel(t proto.DataType, quant string, bits int) *proto.Model {
	f := proto.Float
	last := int64(headDim)
	if bits == 4 {
		last = headDim / 2
	}
	g := proto.Graph{Name: "kvbench"}
	g.Inputs = []proto.ValueInfo{
		{Name: "q", Type: f, Dims: proto.Dims(1, "s", heads*headDim)},
		{Name: "k", Type: f, Dims: proto.Dims(1, "s", kvHeads*headDim)},
		{Name: "v", Type: f, Dims: proto.Dims(1, "s", kvHeads*headDim)},
		{Name: "past_key", Type: t, Dims: proto.Dims(1, kvHeads, "t", last)},
		{Name: "past_value", Type: t, Dims: proto.Dims(1, kvHeads, "t", last)},
		{Name: "seqlens_k", Type: proto.Int32, Dims: proto.Dims(1)},
		{Name: "total_sequence_length", Type: proto.Int32, Dims: proto.Dims(1)},
	}
	g.Outputs = []proto.ValueInfo{
		{Name: "out", Type: f, Dims: proto.Dims(1, "s", heads*headDim)},
		{Name: "present_key", Type: t, Dims: proto.Dims(1, kvHeads, "t", last)},
		{Name: "present_value", Type: t, Dims: proto.Dims(1, kvHeads, "t", last)},
	}
	q, k, v, out := "q", "k", "v", "out"
	rotary := proto.Float
	if t == proto.Float16 {
		for _, n := range []string{"q", "k", "v"} {
			g.Nodes = append(g.Nodes, proto.Node{Name: "cast_" + n, OpType: "Cast", Inputs: []string{n}, Outputs: []string{n + "16"}, Attrs: []proto.Attr{proto.IntAttr("to", int64(proto.Float16))}})
		}
		q, k, v, out, rotary = "q16", "k16", "v16", "out16", proto.Float16
	}
	cos, sin := make([]float32, *rows*headDim/2), make([]float32, *rows*headDim/2)
	for p := range *rows {
		for i := range headDim / 2 {
			a := float64(p) / math.Pow(1e6, float64(2*i)/headDim)
			cos[p*headDim/2+i], sin[p*headDim/2+i] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
	dims := []int64{int64(*rows), headDim / 2}
	if rotary == proto.Float16 {
		g.Initializers = append(g.Initializers, proto.Float16Tensor("cos", dims, cos), proto.Float16Tensor("sin", dims, sin))
	} else {
		g.Initializers = append(g.Initializers, proto.FloatTensor("cos", dims, cos), proto.FloatTensor("sin", dims, sin))
	}
	in := []string{q, k, v, "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos", "sin"}
	attrs := []proto.Attr{proto.IntAttr("num_heads", heads), proto.IntAttr("kv_num_heads", kvHeads),
		proto.FloatAttr("scale", float32(1/math.Sqrt(headDim))), proto.IntAttr("do_rotary", 1)}
	if bits != 0 {
		scales := []float32{0.05}
		if quant == "PER_CHANNEL" { // kv_heads × head_dim scales
			scales = make([]float32, kvHeads*headDim)
			for i := range scales {
				scales[i] = 0.05
			}
		}
		g.Initializers = append(g.Initializers, proto.FloatTensor("k_scale", []int64{int64(len(scales))}, scales), proto.FloatTensor("v_scale", []int64{int64(len(scales))}, scales))
		in = append(in, "", "", "", "k_scale", "v_scale") // position_ids, attention_bias, head_sink omitted
		attrs = append(attrs, proto.StringAttr("k_quant_type", quant), proto.StringAttr("v_quant_type", quant), proto.IntAttr("kv_cache_bit_width", int64(bits)))
	}
	g.Nodes = append(g.Nodes, proto.Node{Name: "attention", OpType: "GroupQueryAttention", Domain: "com.microsoft", Inputs: in, Outputs: []string{out, "present_key", "present_value"}, Attrs: attrs})
	if t == proto.Float16 {
		g.Nodes = append(g.Nodes, proto.Node{Name: "cast_out", OpType: "Cast", Inputs: []string{"out16"}, Outputs: []string{"out"}, Attrs: []proto.Attr{proto.IntAttr("to", int64(f))}})
	}
	return &proto.Model{IRVersion: 8, Opsets: []proto.Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
}
