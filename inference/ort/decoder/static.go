package decoder

import (
	"context"
	"errors"
	"fmt"

	"edgechat/inference"
	"edgechat/models"

	ort "github.com/yalue/onnxruntime_go"
)

// staticDecoder runs a static-shape composite (layout C): a prefill graph taking S tokens and
// a gen graph taking one, both reading a cache of M rows and returning only the new rows.
// The host keeps the cache right-aligned: after each run the oldest rows fall off the front
// and the real new rows are appended at the end; positions keep counting past M.
type staticDecoder struct {
	prefill, gen *staticGraph
	run          *runner
	layers       int
	heads, hd, m int
	vocab        int
	cache        [][]float32 // [2*layer + 0 key | 1 value], each heads × M × hd
	filled       int         // valid rows at the end of the cache
	ids          []int       // every token of the sequence (the oldest may have slid out)
	mask         []int64
}

// staticGraph is one of the two sessions with its preallocated inputs and outputs.
type staticGraph struct {
	io      *models.DecoderIO
	session *ort.DynamicAdvancedSession
	ids32   []int32
	ids64   []int64
	pos     []int64
	logits  []float32
	present [][]float32
	inputs  []ort.Value
	outputs []ort.Value
}

func newStaticDecoder(prefillPath string, pio *models.DecoderIO, genPath string, gio *models.DecoderIO, opts *ort.SessionOptions) (*staticDecoder, error) {
	if pio.MaxCache == 0 || gio.MaxCache != pio.MaxCache || pio.Layers() != gio.Layers() || gio.SeqLen != 1 || pio.SeqLen < 1 {
		return nil, fmt.Errorf("the prefill and gen models do not form a static composite (prefill %d×%d cache, gen %d×%d)", pio.SeqLen, pio.MaxCache, gio.SeqLen, gio.MaxCache)
	}
	if pio.KVType != "float32" {
		return nil, fmt.Errorf("static composite KV type %s is not supported (float32 expected)", pio.KVType)
	}
	d := &staticDecoder{layers: pio.Layers(), heads: pio.KVHeads, hd: pio.HeadDim, m: pio.MaxCache, vocab: pio.Vocab, mask: make([]int64, pio.MaxCache)}
	if d.vocab == 0 || gio.Vocab != d.vocab {
		return nil, fmt.Errorf("the prefill and gen models disagree on the vocabulary (%d vs %d)", pio.Vocab, gio.Vocab)
	}
	d.cache = make([][]float32, 2*d.layers)
	for i := range d.cache {
		d.cache[i] = make([]float32, d.heads*d.m*d.hd)
	}
	var err error
	if d.run, err = newRunner(); err != nil {
		return nil, err
	}
	if d.prefill, err = d.newGraph(prefillPath, pio, opts); err != nil {
		d.run.close()
		return nil, err
	}
	if d.gen, err = d.newGraph(genPath, gio, opts); err != nil {
		destroySession(d.prefill.session)
		d.run.close()
		return nil, err
	}
	return d, nil
}

func (d *staticDecoder) newGraph(path string, io *models.DecoderIO, opts *ort.SessionOptions) (*staticGraph, error) {
	if io.AttentionMask == "" || io.PositionIDs == "" {
		return nil, fmt.Errorf("%s: a static decoder needs attention_mask and position_ids inputs", path)
	}
	s, nIn, nOut, err := openIO(io, path, opts)
	if err != nil {
		return nil, err
	}
	g := &staticGraph{io: io, session: s, ids32: make([]int32, io.SeqLen), ids64: make([]int64, io.SeqLen), pos: make([]int64, io.SeqLen),
		logits: make([]float32, io.SeqLen*io.Vocab), inputs: make([]ort.Value, nIn), outputs: make([]ort.Value, nOut)}
	g.present = make([][]float32, 2*io.Layers())
	for i := range g.present {
		g.present[i] = make([]float32, d.heads*io.SeqLen*d.hd)
	}
	return g, nil
}

var (
	_ inference.Decoder     = (*staticDecoder)(nil)
	_ inference.Sliding     = (*staticDecoder)(nil)
	_ inference.Snapshotter = (*staticDecoder)(nil)
)

func (d *staticDecoder) Runtime() string { return runtimeName() }
func (d *staticDecoder) Vocab() int      { return d.vocab }
func (d *staticDecoder) Capacity() int   { return d.m }
func (d *staticDecoder) Slides() bool    { return true }
func (d *staticDecoder) Cached() []int   { return d.ids }
func (d *staticDecoder) KVBytes() int64  { return int64(len(d.cache)) * int64(len(d.cache[0])) * 4 }

// Truncate keeps the first n tokens when they are all still in the window; otherwise the
// cache starts over.
func (d *staticDecoder) Truncate(n int) {
	total := len(d.ids)
	if n >= total {
		return
	}
	drop := total - n
	if n < total-d.filled {
		drop, n = d.filled, 0
	}
	// Move the kept rows right by drop, so the cache stays right-aligned.
	row := d.hd
	for _, c := range d.cache {
		for h := 0; h < d.heads; h++ {
			head := c[h*d.m*row : (h+1)*d.m*row]
			copy(head[drop*row:], head[:(d.m-drop)*row])
			clear(head[:drop*row])
		}
	}
	d.filled -= drop
	d.ids = d.ids[:n]
}

// Forward prefills ids in chunks of the prefill length (the first chunk takes the remainder,
// left-padded), or runs the gen graph for a single token.
func (d *staticDecoder) Forward(ctx context.Context, ids []int) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("forward: no tokens")
	}
	defer d.run.watch(ctx)()
	if len(ids) == 1 {
		logits, err := d.step(d.gen, ids)
		return logits, d.run.err(ctx, err)
	}
	S := d.prefill.io.SeqLen
	first := len(ids) % S
	if first == 0 {
		first = S
	}
	var logits []float32
	var err error
	for start, end := 0, first; start < len(ids); start, end = end, end+S {
		if logits, err = d.step(d.prefill, ids[start:end]); err != nil {
			return nil, d.run.err(ctx, err)
		}
	}
	return logits, nil
}

// step runs one graph on L ≤ S real tokens, left-padded to S.
func (d *staticDecoder) step(g *staticGraph, ids []int) ([]float32, error) {
	S, L, pos0 := g.io.SeqLen, len(ids), len(d.ids)
	pad := S - L
	for i := range S {
		id, p := 0, int64(0)
		if i >= pad {
			id, p = ids[i-pad], int64(pos0+i-pad)
		}
		g.ids32[i], g.ids64[i], g.pos[i] = int32(id), int64(id), p
	}
	// The graph attends over the cache shifted left by S with its S new rows appended:
	// valid old rows sit just before the new ones, pad rows are masked.
	clear(d.mask)
	old := min(d.filled, d.m-S)
	for i := d.m - S - old; i < d.m-S; i++ {
		d.mask[i] = 1
	}
	for i := d.m - L; i < d.m; i++ {
		d.mask[i] = 1
	}
	defer g.release()
	var err error
	seq := ort.NewShape(1, int64(S))
	if g.io.InputIDsType == "int32" {
		g.inputs[0], err = ort.NewTensor(seq, g.ids32)
	} else {
		g.inputs[0], err = ort.NewTensor(seq, g.ids64)
	}
	if err != nil {
		return nil, err
	}
	if g.inputs[1], err = ort.NewTensor(ort.NewShape(1, int64(d.m)), d.mask); err != nil {
		return nil, err
	}
	if g.inputs[2], err = ort.NewTensor(seq, g.pos); err != nil {
		return nil, err
	}
	cacheShape := ort.NewShape(1, int64(d.heads), int64(d.m), int64(d.hd))
	newShape := ort.NewShape(1, int64(d.heads), int64(S), int64(d.hd))
	for i := range d.cache {
		if g.inputs[3+i], err = ort.NewTensor(cacheShape, d.cache[i]); err != nil {
			return nil, err
		}
		if g.outputs[1+i], err = ort.NewTensor(newShape, g.present[i]); err != nil {
			return nil, err
		}
	}
	if g.outputs[0], err = ort.NewTensor(ort.NewShape(1, int64(S), int64(d.vocab)), g.logits); err != nil {
		return nil, err
	}
	if err := g.session.RunWithOptions(g.inputs, g.outputs, d.run.opts); err != nil {
		return nil, err
	}
	d.append(g, L)
	d.ids = append(d.ids, ids...)
	return g.logits[(S-1)*d.vocab : S*d.vocab], nil
}

// append shifts every cache head left by L rows and copies in the last L rows of present.
func (d *staticDecoder) append(g *staticGraph, L int) {
	S, row := g.io.SeqLen, d.hd
	for i, c := range d.cache {
		for h := 0; h < d.heads; h++ {
			head := c[h*d.m*row : (h+1)*d.m*row]
			copy(head, head[L*row:])
			src := g.present[i][(h*S+S-L)*row : (h*S+S)*row]
			copy(head[(d.m-L)*row:], src)
		}
	}
	d.filled = min(d.filled+L, d.m)
}

func (g *staticGraph) release() { destroyAll(g.inputs, g.outputs) }

func (d *staticDecoder) Close() error {
	d.prefill.release()
	d.gen.release()
	defer d.run.close()
	return errors.Join(destroySession(d.prefill.session), destroySession(d.gen.session))
}
