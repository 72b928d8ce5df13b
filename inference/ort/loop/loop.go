// Package ortloop is the bare ONNX Runtime peer of EdgeChat's benchmarks: one session over a
// dynamic-shape decoder graph (layouts A and B) driven by a plain greedy loop over
// preallocated, ping-ponged KV buffers — what any engine on ONNX Runtime must spend at least.
package loop

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference/ort/attnop"
	"edgechat/inference/ort/env"
	"edgechat/inference/sample"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// Options configure the session.
type Options struct {
	Threads int
	// Config holds ONNX Runtime session config entries, e.g.
	// "session.intra_op.allow_spinning": "0".
	Config map[string]string
	// MaxTokens bounds the KV buffers (prompt + reply).
	MaxTokens int
	// SharedKV binds one MaxTokens-row buffer per layer as both past and present, so that
	// GroupQueryAttention appends the new rows in place (onnxruntime-genai's
	// past_present_share_buffer); without it every run copies the whole cache.
	SharedKV bool
	// Profile, when set, makes ONNX Runtime write a JSON trace of every operator's time to a
	// file whose name starts with it (written when the loop closes).
	Profile string
	// Setup, when set, is called on the session options last, before the session is made
	// (inference/ort/kernbench registers a custom-operator library there).
	Setup func(*ort.SessionOptions) error
	// QuantFlash keeps ONNX Runtime's flash attention path for a quantized (int8 or 4-bit)
	// cache; by default such a graph's session runs the plain path (env.WithoutGQAFlash).
	QuantFlash bool
	// MemPattern leaves ONNX Runtime's memory patterns on. The loop turns them off, as the
	// app's decoder does (inference/ort/decoder's newSessionOptions: a decoder's shapes
	// change every run), so that the two run alike. On a 28-layer int4 decode step they
	// made no clear difference (tools/stepbench --greedy 64 bare-mempattern against bare,
	// paired CPU time: median 0.998× over 8 runs; 1.12× over 6 in a noisier one).
	MemPattern bool
}

// Loop runs one decoder session. It is not safe for concurrent use.
type Loop struct {
	s                 *ort.DynamicAdvancedSession
	ids32             bool
	mask, pos         bool
	layers            int // KV tensors (keys and values of every layer)
	kvHeads, headDim  int
	elem              int // bytes per KV element
	kvType            ort.TensorElementDataType
	vocab, max, n     int
	bufs              [2][][]byte
	cur               int
	logits            []float32
	maskBuf, posBuf   []int64
	idBuf             []int64
	idBuf32           []int32
	nIn, nOut, nFixed int
	// rows of logits the graph returns: 0 every new row, 1 the last (an LM head pruned by
	// onnx/optimize), -1 as many as the logits_to_keep input says (Keep).
	lastOnly bool
	keepBuf  []int64
	// Keep is how many last rows get logits on a graph with a logits_to_keep input.
	Keep    int
	shared  bool
	kvNames []string // the KV inputs, in the order of bufs' tensors
}

// Open reads the graph's interface and creates the session.
func Open(path string, o Options) (*Loop, error) {
	info, err := proto.ReadInfo(path)
	if err != nil {
		return nil, err
	}
	l := &Loop{max: o.MaxTokens, shared: o.SharedKV}
	if o.SharedKV && attnop.AttentionNodes(info) == 0 {
		return nil, fmt.Errorf("%s: a shared KV buffer needs GroupQueryAttention, which this graph does not use", path)
	}
	if l.max <= 0 {
		l.max = 4096
	}
	var in, out []string
	var kvIn proto.IO
	l.kvNames = nil
	for _, x := range info.Inputs {
		switch {
		case x.Name == "input_ids":
			l.ids32 = x.ElemType == "int32"
		case x.Name == "attention_mask":
			l.mask = true
		case x.Name == "position_ids":
			l.pos = true
		case x.Name == optimize.KeepInputName:
			l.keepBuf = []int64{1}
		case len(x.Dims) == 4:
			kvIn = x
			l.layers++
			continue
		default:
			return nil, fmt.Errorf("%s: input %s is not one a dynamic decoder takes", path, x.Name)
		}
	}
	for _, name := range []string{"input_ids", "attention_mask", "position_ids", optimize.KeepInputName} {
		if name == "input_ids" || name == "attention_mask" && l.mask || name == "position_ids" && l.pos || name == optimize.KeepInputName && l.keepBuf != nil {
			in = append(in, name)
		}
	}
	l.lastOnly = info.Metadata[optimize.MetaLogitsRows] == "last"
	l.Keep = 1
	l.nFixed = len(in)
	for _, x := range info.Inputs {
		if len(x.Dims) == 4 {
			in = append(in, x.Name)
			l.kvNames = append(l.kvNames, x.Name)
		}
	}
	for _, x := range info.Outputs {
		switch {
		case x.Name == "logits":
			out = append([]string{x.Name}, out...)
			l.vocab = int(x.Dims[len(x.Dims)-1].Value)
		case len(x.Dims) == 4:
			out = append(out, x.Name)
		}
	}
	if l.layers == 0 || len(out) != l.layers+1 || l.vocab <= 0 {
		return nil, fmt.Errorf("%s is not a dynamic decoder with a KV cache and fixed vocabulary", path)
	}
	l.kvHeads, l.headDim = int(kvIn.Dims[1].Value), int(kvIn.Dims[3].Value)
	switch kvIn.ElemType {
	case "float16":
		l.elem, l.kvType = 2, ort.TensorElementDataTypeFloat16
	case "int8": // GroupQueryAttention's quantized cache (onnx/optimize.QuantizeKV)
		l.elem, l.kvType = 1, ort.TensorElementDataTypeInt8
	case "uint8": // its 4-bit cache: two values a byte, head_dim / 2 bytes a row (QuantizeKVBits)
		l.elem, l.kvType = 1, ort.TensorElementDataTypeUint8
	default:
		l.elem, l.kvType = 4, ort.TensorElementDataTypeFloat
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	if o.Threads > 0 {
		if err := opts.SetIntraOpNumThreads(o.Threads); err != nil {
			return nil, err
		}
	}
	if !o.MemPattern {
		if err := opts.SetMemPattern(false); err != nil {
			return nil, err
		}
	}
	if o.Profile != "" {
		if err := opts.EnableProfiling(o.Profile); err != nil {
			return nil, err
		}
	}
	for k, v := range o.Config {
		if err := opts.AddSessionConfigEntry(k, v); err != nil {
			return nil, fmt.Errorf("session option %s=%s: %w", k, v, err)
		}
	}
	if o.Setup != nil {
		if err := o.Setup(opts); err != nil {
			return nil, err
		}
	}
	create := func() (err error) {
		l.s, err = ort.NewDynamicAdvancedSession(path, in, out, opts)
		return err
	}
	if (l.kvType == ort.TensorElementDataTypeInt8 || l.kvType == ort.TensorElementDataTypeUint8) && !o.QuantFlash {
		err = env.WithoutGQAFlash(create)
	} else {
		err = create()
	}
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	l.nIn, l.nOut = len(in), len(out)
	size := l.kvHeads * l.max * l.headDim * l.elem
	for b := range l.bufs {
		for range l.layers {
			l.bufs[b] = append(l.bufs[b], make([]byte, size))
		}
	}
	l.maskBuf, l.posBuf = make([]int64, l.max), make([]int64, l.max)
	for i := range l.maskBuf {
		l.maskBuf[i] = 1
	}
	return l, nil
}

// CopyKV makes l's cache a copy of src's: the same rows, and Len. Both loops must keep their
// cache in a shared buffer (Options.SharedKV) of one geometry (layers, heads, rows, element
// type): two graphs of one model, so that the second can continue from the first's prompt
// without running it (inference/ort/kernbench times decode steps that way).
func (l *Loop) CopyKV(src *Loop) error {
	if !l.shared || !src.shared {
		return fmt.Errorf("copying a cache needs shared KV buffers on both loops")
	}
	if l.layers != src.layers || l.kvHeads != src.kvHeads || l.headDim != src.headDim || l.max != src.max || l.kvType != src.kvType {
		return fmt.Errorf("the caches differ: %d tensors of %d heads × %d rows × %d (type %v) against %d of %d × %d × %d (type %v)",
			l.layers, l.kvHeads, l.max, l.headDim, l.kvType, src.layers, src.kvHeads, src.max, src.headDim, src.kvType)
	}
	for i, b := range src.bufs[0] {
		copy(l.bufs[0][i], b)
	}
	l.n = src.n
	return nil
}

// Close destroys the session.
func (l *Loop) Close() error { return l.s.Destroy() }

// Len is the number of tokens in the cache.
func (l *Loop) Len() int { return l.n }

// Vocab is the logits width.
func (l *Loop) Vocab() int { return l.vocab }

// Step appends ids to the cache in one run and returns the logits of its new rows
// ([rows·vocab], valid until the next call): every row, or the last one or last Keep ones on
// graphs whose LM head onnx/optimize pruned.
func (l *Loop) Step(ids []int) ([]float32, error) {
	L, P := len(ids), l.n
	if P+L > l.max {
		return nil, fmt.Errorf("%d tokens exceed the loop's %d", P+L, l.max)
	}
	rows := L
	switch {
	case l.lastOnly:
		rows = 1
	case l.keepBuf != nil:
		rows = min(L, max(1, l.Keep))
		l.keepBuf[0] = int64(rows)
	}
	if need := rows * l.vocab; cap(l.logits) < need {
		l.logits = make([]float32, need)
	}
	logits := l.logits[:rows*l.vocab]
	in := make([]ort.Value, 0, l.nIn)
	out := make([]ort.Value, 0, l.nOut)
	defer func() {
		for _, v := range append(in, out...) {
			v.Destroy()
		}
	}()
	seq := ort.NewShape(1, int64(L))
	var v ort.Value
	var err error
	if l.ids32 {
		l.idBuf32 = l.idBuf32[:0]
		for _, id := range ids {
			l.idBuf32 = append(l.idBuf32, int32(id))
		}
		v, err = ort.NewTensor(seq, l.idBuf32)
	} else {
		l.idBuf = l.idBuf[:0]
		for _, id := range ids {
			l.idBuf = append(l.idBuf, int64(id))
		}
		v, err = ort.NewTensor(seq, l.idBuf)
	}
	if err != nil {
		return nil, err
	}
	in = append(in, v)
	if l.mask {
		if v, err = ort.NewTensor(ort.NewShape(1, int64(P+L)), l.maskBuf[:P+L]); err != nil {
			return nil, err
		}
		in = append(in, v)
	}
	if l.pos {
		for i := range L {
			l.posBuf[i] = int64(P + i)
		}
		if v, err = ort.NewTensor(seq, l.posBuf[:L]); err != nil {
			return nil, err
		}
		in = append(in, v)
	}
	if l.keepBuf != nil {
		if v, err = ort.NewTensor(ort.NewShape(1), l.keepBuf); err != nil {
			return nil, err
		}
		in = append(in, v)
	}
	for i := range l.layers {
		if v, err = l.kv(l.cur, i, P); err != nil {
			return nil, err
		}
		in = append(in, v)
	}
	if v, err = ort.NewTensor(ort.NewShape(1, int64(rows), int64(l.vocab)), logits); err != nil {
		return nil, err
	}
	out = append(out, v)
	for i := range l.layers {
		if v, err = l.kv(1-l.cur, i, P+L); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := l.s.Run(in, out); err != nil {
		return nil, err
	}
	if !l.shared {
		l.cur = 1 - l.cur
	}
	l.n = P + L
	return logits, nil
}

// kv wraps the first rows of buffer b's tensor i as a [1, heads, rows, head_dim] tensor (with
// a shared buffer: the whole of buffer 0).
func (l *Loop) kv(b, i, rows int) (ort.Value, error) {
	if l.shared {
		b, rows = 0, l.max
	}
	n := l.kvHeads * rows * l.headDim * l.elem
	data := l.bufs[b][i][:max(n, 1)] // an empty past still needs one byte (onnxruntime_go)
	return ort.NewCustomDataTensor(ort.NewShape(1, int64(l.kvHeads), int64(rows), int64(l.headDim)), data, l.kvType)
}

// Truncate keeps the first n cached tokens, compacting each head's rows in place.
func (l *Loop) Truncate(n int) {
	if n >= l.n {
		return
	}
	if l.shared { // rows sit at fixed places: GQA reads only the first n
		l.n = n
		return
	}
	row := l.headDim * l.elem
	for _, buf := range l.bufs[l.cur] {
		for h := 1; h < l.kvHeads; h++ {
			copy(buf[h*n*row:(h+1)*n*row], buf[h*l.n*row:h*l.n*row+n*row])
		}
	}
	l.n = n
}

// EachKVRow calls fn with every cached row of a float32 cache: the KV input's name, the head
// and the row's head_dim values (valid during the call). Calibrating an int8 cache reads them
// (onnx/optimize.KVMax).
func (l *Loop) EachKVRow(fn func(name string, head int, row []float32)) error {
	if l.kvType != ort.TensorElementDataTypeFloat {
		return fmt.Errorf("reading the cache's rows needs a float32 cache")
	}
	stride := l.n // heads lie l.n rows apart in a ping-pong buffer, l.max in a shared one
	if l.shared {
		stride = l.max
	}
	row := make([]float32, l.headDim)
	for i, name := range l.kvNames {
		buf := l.bufs[l.cur][i]
		for h := range l.kvHeads {
			for r := range l.n {
				off := (h*stride + r) * l.headDim * 4
				for d := range row {
					row[d] = math.Float32frombits(binary.LittleEndian.Uint32(buf[off+4*d:]))
				}
				fn(name, h, row)
			}
		}
	}
	return nil
}

// Result is one greedy run.
type Result struct {
	PromptTokens int
	DecodeTokens int
	TTFT         time.Duration
	DecodeTPS    float64
	IDs          []int // the first token (from the prompt) and the decoded ones
}

// Greedy empties the cache, runs prompt in one pass (TTFT: to the first token), then decodes
// n tokens one by one.
func (l *Loop) Greedy(prompt []int, n int) (Result, error) {
	l.n = 0
	r := Result{PromptTokens: len(prompt), DecodeTokens: n}
	start := time.Now()
	logits, err := l.Step(prompt)
	if err != nil {
		return r, err
	}
	next := sample.Argmax(logits[len(logits)-l.vocab:])
	r.TTFT = time.Since(start)
	r.IDs = append(r.IDs, next)
	start = time.Now()
	for range n {
		if logits, err = l.Step([]int{next}); err != nil {
			return r, err
		}
		next = sample.Argmax(logits)
		r.IDs = append(r.IDs, next)
	}
	r.DecodeTPS = float64(n) / time.Since(start).Seconds()
	return r, nil
}

// Forward appends ids and returns the argmax of each of the last rows positions' logits: the
// decoder interface of prompt-lookup decoding (inference/lookup.Model). On a graph with a
// logits_to_keep input only those rows get logits.
func (l *Loop) Forward(ids []int, rows int) ([]int, error) {
	l.Keep = rows
	logits, err := l.Step(ids)
	if err != nil {
		return nil, err
	}
	have := len(logits) / l.vocab
	if have < rows {
		return nil, fmt.Errorf("the graph returned %d rows of logits, %d wanted", have, rows)
	}
	picks := make([]int, rows)
	for i := range picks {
		r := have - rows + i
		picks[i] = sample.Argmax(logits[r*l.vocab : (r+1)*l.vocab])
	}
	return picks, nil
}

// Warm reads a graph file and its external data files once, into the page cache.
func Warm(path string) error {
	info, err := proto.ReadInfo(path)
	if err != nil {
		return err
	}
	files := []string{path}
	for _, x := range info.ExternalFiles {
		files = append(files, filepath.Join(filepath.Dir(path), x))
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
