package decoder

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime"
	"sync"

	"edgechat/inference"
	"edgechat/internal/offheap"
	"edgechat/models"
	"edgechat/onnx/optimize"

	ort "github.com/yalue/onnxruntime_go"
)

// Prompts of the int8 KV cache on a float32 one, when 8-bit prompts are on too (inference.KV8
// where the kernels do not run, and PromptInt8). ONNX Runtime's quantized GroupQueryAttention
// has no flash path for prompts: on the 28-layer Qwen3-0.6B-shaped int4 model a 428-token
// prompt took 1.35–1.43× llama.cpp's time with the int8 cache against 1.07–1.17× with the
// float32 one, and with both options on, the int8 cache used to run its prompts itself and the
// 8-bit prompts were dropped. Now the int8-cache decoder keeps a float32 shadow of its cache for
// the int8 prompt twin's session (promptint8.go): a run of promptInt8Rows ids or more runs
// there, on the shadow, after the rows the decoding steps wrote since the last prompt are
// dequantized into it; its new rows are then quantized into the int8 cache with the copy's own
// scales, as GroupQueryAttention stores them (round(x / scale) clamped to [-128, 127]).
// Decoding steps stay on the int8 cache, whose reads are a quarter of the float32 ones.
//
// The shadow costs the float32 cache's memory (4× the int8 one), touched as far as prompts
// reach. With the 8-bit cache alone the int8 copy runs its own prompts: a second session on the
// int4 graph would hold the model's weights twice (+0.52 GB private for a Qwen3-0.6B, measured
// with edgechat bench).

// floatPrompt is an int8-cache decoder's prompt path on a float32 cache.
type floatPrompt struct {
	// d runs the prompts; its cache is the shadow, holding the first d.kv.n of the int8
	// decoder's rows; its runner is the int8 decoder's, so cancelling a Forward stops it.
	d *dynamicDecoder
	// scales are the int8 cache's scales per cache tensor (2·layer for a key, 2·layer+1
	// for a value): kv_heads × head_dim values each, head by head.
	scales [][]float32
}

// attachFloatPrompt gives q, the int8-cache decoder of the copy kv8, its prompt path on twin,
// the int8 prompt twin of the optimized copy kv8 was made from (int8PromptTwin; "" for none).
// It logs and leaves q as it is when it cannot.
func attachFloatPrompt(q *dynamicDecoder, f *models.Folder, twin, kv8 string, ep inference.EP) {
	if twin == "" {
		return
	}
	p, err := openFloatPrompt(q, f, twin, kv8, ep)
	if err != nil {
		slog.Warn("prompts run on the int8 cache's graph: no int8 prompt session", "graph", f.Model, "reason", err)
		return
	}
	q.float = p
	slog.Info("prompts run on an int8 twin of the graph on a float32 cache, decoding on the int8 cache", "twin", twin, "rows_from", promptInt8Rows)
}

// openFloatPrompt opens the prompt path of q, the int8-cache decoder of the copy kv8, on
// graph, a graph of the same model with a float32 cache.
func openFloatPrompt(q *dynamicDecoder, f *models.Folder, graph, kv8 string, ep inference.EP) (*floatPrompt, error) {
	if !q.kv.shared || q.kv.dtype != ort.TensorElementDataTypeInt8 {
		return nil, fmt.Errorf("the decoder's cache is not GroupQueryAttention's shared int8 one")
	}
	src, err := os.ReadFile(kv8)
	if err != nil {
		return nil, err
	}
	byName, err := optimize.ReadKVScales(src)
	if err != nil {
		return nil, err
	}
	width := q.kv.heads * q.kv.headDim
	scales := make([][]float32, 2*len(q.io.Past))
	for i, p := range q.io.Past {
		for j, name := range []string{p.Key, p.Value} {
			s := byName[name]
			if len(s) != width {
				return nil, fmt.Errorf("the int8 copy has %d scales for %s, not %d", len(s), name, width)
			}
			scales[2*i+j] = s
		}
	}
	g := *f
	g.Model = graph
	d, err := loadDynamic(&g, ep, q.kv.maxTokens)
	if err != nil {
		return nil, err
	}
	if err := sameInterface(q, d); err != nil {
		d.Close()
		return nil, err
	}
	d.run.close()
	d.run = q.run
	return &floatPrompt{d: d, scales: scales}, nil
}

// sameInterface refuses a prompt decoder d whose runs would not fit the int8 decoder q's: other
// layers, heads, vocabulary, capacity or logits rows, or a cache that is not a shared float32
// one.
func sameInterface(q, d *dynamicDecoder) error {
	a, b := q.kv, d.kv
	switch {
	case !b.shared || b.dtype != ort.TensorElementDataTypeFloat:
		return fmt.Errorf("the prompt graph's cache is not a shared float32 one")
	case a.layers != b.layers || a.heads != b.heads || a.headDim != b.headDim || a.maxTokens != b.maxTokens:
		return fmt.Errorf("the prompt graph's cache (%d layers × %d heads × %d, %d tokens) is not the int8 one's (%d × %d × %d, %d)",
			b.layers, b.heads, b.headDim, b.maxTokens, a.layers, a.heads, a.headDim, a.maxTokens)
	case q.vocab != d.vocab || q.io.LastRow != d.io.LastRow || (q.io.LogitsToKeep == "") != (d.io.LogitsToKeep == "") || q.io.KeepNone != d.io.KeepNone:
		return fmt.Errorf("the prompt graph's logits are not the int8 graph's")
	}
	return nil
}

// step runs a prompt chunk of q's on the float32 cache: the rows q cached since the shadow
// last caught up are dequantized into it, the chunk runs there, and its new rows are
// quantized into q's cache. On error q's cache is unchanged.
func (p *floatPrompt) step(q *dynamicDecoder, ids []int, logits []float32, keep int) error {
	past, L := q.kv.n, len(ids)
	if err := q.kv.ensure(past + L); err != nil {
		return err
	}
	d := p.d
	d.Truncate(past)
	if err := d.kv.ensure(past + L); err != nil {
		return err
	}
	if from := d.kv.n; from < past {
		p.convert(q.kv, d.kv, from, past, dequantizeRow)
		d.kv.n = past
		d.kv.touched = max(d.kv.touched, past)
		d.ids = append(d.ids[:from], q.ids[from:past]...)
	}
	if err := d.step(ids, logits, keep); err != nil {
		return err
	}
	p.convert(d.kv, q.kv, past, past+L, quantizeRow)
	q.kv.advance(L)
	q.ids = append(q.ids, ids...)
	return nil
}

// convert writes rows [from, to) of every head of every tensor of src into dst through row
// (src's bytes, dst's bytes, the row's scales), the tensors shared out among the CPUs.
func (p *floatPrompt) convert(src, dst *kvBuffers, from, to int, row func(s, d []byte, scales []float32)) {
	tensors := len(src.bufs[0])
	var wg sync.WaitGroup
	next := make(chan int, tensors)
	for i := range tensors {
		next <- i
	}
	close(next)
	for range min(runtime.GOMAXPROCS(0), tensors) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s, d := src.bufs[0][i], dst.bufs[0][i]
				for h := range src.heads {
					sc := p.scales[i][h*src.headDim : (h+1)*src.headDim]
					for r := from; r < to; r++ {
						so, do := (h*src.capTokens+r)*src.rowBytes(), (h*dst.capTokens+r)*dst.rowBytes()
						row(s[so:so+src.rowBytes()], d[do:do+dst.rowBytes()], sc)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// quantizeRow stores a float32 row as int8: round(x / scale) clamped to [-128, 127], as
// GroupQueryAttention stores its quantized cache.
func quantizeRow(src, dst []byte, scales []float32) {
	x := offheap.Floats(src)
	for c, s := range scales {
		v := math.Round(float64(x[c] / s))
		dst[c] = byte(int8(min(max(v, -128), 127)))
	}
}

// dequantizeRow reads an int8 row back as float32: q × scale.
func dequantizeRow(src, dst []byte, scales []float32) {
	y := offheap.Floats(dst)
	for c, s := range scales {
		y[c] = float32(int8(src[c])) * s
	}
}

// detachFloat closes d's float32 prompt path: its prompts run on the int8 copy itself.
func detachFloat(d *dynamicDecoder) {
	if d.float != nil {
		d.float.d.run = nil // d's own
		d.float.d.Close()
		d.float = nil
	}
}
