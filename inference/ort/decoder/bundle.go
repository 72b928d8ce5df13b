package decoder

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	ort "github.com/yalue/onnxruntime_go"

	"edgechat/inference"
	"edgechat/models"
	"edgechat/onnx/proto"
)

// bundleDecoder runs a decoder-pipeline bundle (layout D): embeddings, then ctx (one window of
// W prompt rows) or iter (one token), then lm_head. ctx and iter use GroupQueryAttention on one
// KV buffer per layer and tensor, bound as both past and present, so they write their rows in
// place: row p holds token p. Nothing slides; the cache holds at most the buffer's rows.
// One goroutine at a time may use it.
type bundleDecoder struct {
	emb, ctx, iter, head *ort.DynamicAdvancedSession
	run                  *runner
	window, pad          int
	rows                 int // KV buffer rows (total_seq_len)
	capacity             int
	hidden, vocab        int
	kvBytes              int64
	ids                  []int
	kvBufs               [][]byte // the shared KV buffers: heads × rows × rowBytes each
	kvHeads, kvRowBytes  int

	pastSeq         []int32 // past_seq_len's data, shared by ctx and iter
	prefill, decode bundlePass
	headIn, logits  []float32
	headVals        []ort.Value // lm_head's input and output
	tensors         tensorList
}

// bundlePass is the preallocated tensors of one path through the pipeline: ids → embeddings →
// ctx or iter. The embeddings' output tensor is the transformer's input.
type bundlePass struct {
	decoder       *ort.DynamicAdvancedSession // ctx or iter
	ids64         []int64
	ids32         []int32
	out           []float32 // the transformer's output_hidden_states
	embIn, embOut []ort.Value
	in, outs      []ort.Value
}

// bundleStage is one pipeline stage's file, configuration and graph interface.
type bundleStage struct {
	models.Stage
	path string
	info *proto.ModelInfo
}

// loadBundle opens a decoder-pipeline bundle's four stages. The stages that the bundle puts on
// an accelerator (ctx and iter) run on the route's EP, the others on the CPU; a stage that
// fails to load fails the whole bundle.
func loadBundle(f *models.Folder, ep inference.EP, maxCtx int) (*bundleDecoder, error) {
	cfg := f.GenAI.Model
	names := models.BundleNamesOf(cfg.Decoder)
	st, err := readStages(f, names, ep)
	if err != nil {
		return nil, err
	}
	ctxIO, err := models.DescribeGQA(st[1].path, st[1].info, names)
	if err != nil {
		return nil, err
	}
	iterIO, err := models.DescribeGQA(st[2].path, st[2].info, names)
	if err != nil {
		return nil, err
	}
	if a, b := ctxIO.KVDesc(), iterIO.KVDesc(); a != b {
		return nil, fmt.Errorf("%s and %s disagree on the KV cache (%s vs %s): they are not from one build", st[1].Filename, st[2].Filename, a, b)
	}
	d := &bundleDecoder{rows: ctxIO.Rows, hidden: ctxIO.Width, window: ctxIO.Seq}
	if d.rows <= 0 {
		d.rows = cfg.ContextLength
	}
	if sw := cfg.Decoder.SlidingWindow; sw != nil {
		// sliding_window.alignment says on which side ONNX Runtime GenAI pads a prompt's last
		// window. These graphs take no attention mask: GroupQueryAttention learns the valid
		// rows from seqlens_k (past_sequence_length) alone and attends, causally, to every row
		// up to it. Pads before the prompt ("left") would sit inside that range and be attended
		// to as if they were text; pads after it are beyond the last real row, which is the
		// row lm_head reads, and the next window or token overwrites them. So EdgeChat pads
		// after the prompt whatever the config says (Foundry's folders declare "right").
		switch sw.Alignment {
		case "", "left", "right":
		default:
			return nil, fmt.Errorf("%s: sliding_window.alignment %q is neither \"left\" nor \"right\"", filepath.Join(f.Dir, "genai_config.json"), sw.Alignment)
		}
		d.pad = sw.PadValue
		if d.window == 0 {
			d.window = sw.WindowSize
		}
		if sw.WindowSize > 0 && sw.WindowSize != d.window {
			return nil, fmt.Errorf("%s: sliding_window.window_size is %d but %s takes %d rows", filepath.Join(f.Dir, "genai_config.json"), sw.WindowSize, st[1].Filename, d.window)
		}
	} else if cfg.PadTokenID != nil {
		d.pad = *cfg.PadTokenID
	}
	if d.window <= 0 || d.rows <= d.window || (iterIO.Seq != 0 && iterIO.Seq != 1) {
		return nil, fmt.Errorf("%s: cannot work out the prefill window (%d rows) and KV buffer (%d rows); the bundle's genai_config.json needs context_length and sliding_window.window_size", f.Dir, d.window, d.rows)
	}
	d.capacity = min(d.rows, maxCtx)
	if d.run, err = newRunner(); err != nil {
		return nil, err
	}
	if err := d.open(st, ctxIO, iterIO, names, ep); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// open creates the four sessions, the shared KV buffers and every tensor the runs bind.
func (d *bundleDecoder) open(st [4]*bundleStage, cio, iio *models.GQAIO, n models.BundleNames, ep inference.EP) error {
	emb, head := st[0], st[3]
	ids, _ := emb.info.Input(n.InputIDs)
	logits, _ := head.info.Output(n.Logits)
	if len(emb.info.Outputs) != 1 || len(head.info.Inputs) != 1 {
		return fmt.Errorf("the embeddings (%s) and lm_head (%s) stages must have one hidden-state output and input", emb.Filename, head.Filename)
	}
	if ids.ElemType != "int64" && ids.ElemType != "int32" {
		return fmt.Errorf("%s: input_ids type %s is not supported (int64 or int32)", emb.path, ids.ElemType)
	}
	if nd := len(logits.Dims); nd == 0 || logits.Dims[nd-1].Value <= 0 || logits.ElemType != "float32" {
		return fmt.Errorf("%s: logits must be float32 with a fixed vocabulary size, found %s %s", head.path, logits.ElemType, models.ShapeString(logits.Dims))
	}
	d.vocab = int(logits.Dims[len(logits.Dims)-1].Value)
	decIO := func(g *models.GQAIO) [2][]string {
		in, out := []string{g.HiddenIn}, []string{g.HiddenOut}
		for i := range g.Past {
			in = append(in, g.Past[i].Key, g.Past[i].Value)
			out = append(out, g.Present[i].Key, g.Present[i].Value)
		}
		return [2][]string{append(in, n.PastSeqLen, n.TotalSeqLen), out}
	}
	ios := [4][2][]string{{{ids.Name}, {emb.info.Outputs[0].Name}}, decIO(cio), decIO(iio), {{head.info.Inputs[0].Name}, {logits.Name}}}
	share := sharedContext(st[1].info, st[2].info)
	for i, sess := range []**ort.DynamicAdvancedSession{&d.emb, &d.ctx, &d.iter, &d.head} {
		var err error
		if *sess, err = openStage(st[i], ep, share && (i == 1 || i == 2), ios[i][0], ios[i][1]); err != nil {
			return err
		}
	}
	return d.allocate(cio, ids.ElemType == "int32")
}

// allocate creates the shared KV buffers and the tensors of both passes and of lm_head.
func (d *bundleDecoder) allocate(g *models.GQAIO, ids32 bool) error {
	elem, dtype := 4, ort.TensorElementDataType(ort.TensorElementDataTypeFloat)
	if g.KVType == "float16" {
		elem, dtype = 2, ort.TensorElementDataTypeFloat16
	}
	ts := &d.tensors
	kv := make([]ort.Value, 2*len(g.Past))
	for i := range kv {
		buf := make([]byte, g.Heads*d.rows*g.HeadDim*elem)
		d.kvBufs = append(d.kvBufs, buf)
		kv[i] = ts.add(ort.NewCustomDataTensor(ort.NewShape(1, int64(g.Heads), int64(d.rows), int64(g.HeadDim)), buf, dtype))
		d.kvBytes += int64(len(buf))
	}
	d.kvHeads, d.kvRowBytes = g.Heads, g.HeadDim*elem
	d.pastSeq, d.headIn, d.logits = []int32{0}, make([]float32, d.hidden), make([]float32, d.vocab)
	seqLens := []ort.Value{ts.add(ort.NewTensor(ort.NewShape(1, 1), d.pastSeq)), ts.add(ort.NewTensor(ort.NewShape(1), []int32{int32(d.rows)}))}
	d.headVals = []ort.Value{ts.add(ort.NewTensor(ort.NewShape(1, 1, int64(d.hidden)), d.headIn)), ts.add(ort.NewTensor(ort.NewShape(1, 1, int64(d.vocab)), d.logits))}
	d.prefill = d.newPass(d.ctx, d.window, ids32, kv, seqLens, nil)
	d.decode = d.newPass(d.iter, 1, ids32, kv, seqLens, d.headVals[0]) // iter writes into lm_head's input
	return ts.err
}

// newPass creates one pass's tensors for seq rows; out, when given, receives the hidden state.
func (d *bundleDecoder) newPass(dec *ort.DynamicAdvancedSession, seq int, ids32 bool, kv, seqLens []ort.Value, out ort.Value) bundlePass {
	ts := &d.tensors
	p := bundlePass{decoder: dec}
	var ids ort.Value
	if ids32 {
		p.ids32 = make([]int32, seq)
		ids = ts.add(ort.NewTensor(ort.NewShape(1, int64(seq)), p.ids32))
	} else {
		p.ids64 = make([]int64, seq)
		ids = ts.add(ort.NewTensor(ort.NewShape(1, int64(seq)), p.ids64))
	}
	shape := ort.NewShape(1, int64(seq), int64(d.hidden))
	hidden := ts.add(ort.NewTensor(shape, make([]float32, seq*d.hidden)))
	if out == nil {
		p.out = make([]float32, seq*d.hidden)
		out = ts.add(ort.NewTensor(shape, p.out))
	}
	p.embIn, p.embOut = []ort.Value{ids}, []ort.Value{hidden}
	p.in = slices.Concat([]ort.Value{hidden}, kv, seqLens)
	p.outs = slices.Concat([]ort.Value{out}, kv) // the same buffers: present is past
	return p
}

// tensorList keeps the tensors a decoder binds, for Close; the first error sticks.
type tensorList struct {
	list []ort.Value
	err  error
}

func (ts *tensorList) add(t ort.Value, err error) ort.Value {
	if err != nil {
		ts.err = cmp.Or(ts.err, fmt.Errorf("tensor: %w", err))
		return nil
	}
	ts.list = append(ts.list, t)
	return t
}

var (
	_ inference.Decoder     = (*bundleDecoder)(nil)
	_ inference.Snapshotter = (*bundleDecoder)(nil)
)

func (d *bundleDecoder) Runtime() string { return runtimeName() }
func (d *bundleDecoder) Vocab() int      { return d.vocab }
func (d *bundleDecoder) Capacity() int   { return d.capacity }
func (d *bundleDecoder) Cached() []int   { return d.ids }
func (d *bundleDecoder) KVBytes() int64  { return d.kvBytes }

// Truncate keeps the first n cached tokens. Rows from n on stay in the buffer until the next
// run overwrites them; the sequence length passed to the graph keeps them out of attention.
func (d *bundleDecoder) Truncate(n int) { d.ids = d.ids[:min(max(n, 0), len(d.ids))] }

// Forward runs one token through iter, or several through ctx in windows of W rows starting at
// the current length, the last window padded at its end; lm_head then runs on the last real
// row only. A window that would pass the buffer's end starts earlier and recomputes cached
// rows instead.
func (d *bundleDecoder) Forward(ctx context.Context, ids []int) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("forward: no tokens")
	}
	n := len(d.ids)
	if n+len(ids) > d.capacity {
		return nil, fmt.Errorf("the conversation needs %d tokens but the context holds %d", n+len(ids), d.capacity)
	}
	defer d.run.watch(ctx)()
	all := append(slices.Clip(d.ids), ids...)
	if len(ids) == 1 {
		if err := d.runPass(&d.decode, ids, n); err != nil {
			return nil, d.run.err(ctx, err)
		}
	} else {
		ws := n
		for start := n; start < len(all); start += d.window {
			ws = min(start, d.rows-d.window)
			if err := d.runPass(&d.prefill, all[ws:min(ws+d.window, len(all))], ws+d.window-1); err != nil {
				return nil, d.run.err(ctx, err)
			}
		}
		last := len(all) - 1 - ws
		copy(d.headIn, d.prefill.out[last*d.hidden:(last+1)*d.hidden])
	}
	if err := d.head.RunWithOptions(d.headVals[:1], d.headVals[1:], d.run.opts); err != nil {
		return nil, d.run.err(ctx, err)
	}
	d.ids = all
	return d.logits, nil
}

// runPass embeds ids (padded at the end to the pass's rows) and runs ctx or iter with
// past_seq_len = pastSeqLen, GroupQueryAttention's seqlens_k: the index of the pass's last
// row, so the pass writes rows pastSeqLen+1-rows … pastSeqLen.
func (d *bundleDecoder) runPass(p *bundlePass, ids []int, pastSeqLen int) error {
	for i := range max(len(p.ids64), len(p.ids32)) {
		id := d.pad
		if i < len(ids) {
			id = ids[i]
		}
		if p.ids32 != nil {
			p.ids32[i] = int32(id)
		} else {
			p.ids64[i] = int64(id)
		}
	}
	d.pastSeq[0] = int32(pastSeqLen)
	if err := d.emb.RunWithOptions(p.embIn, p.embOut, d.run.opts); err != nil {
		return err
	}
	return p.decoder.RunWithOptions(p.in, p.outs, d.run.opts)
}

func (d *bundleDecoder) Close() error {
	var errs []error
	for _, s := range []**ort.DynamicAdvancedSession{&d.emb, &d.ctx, &d.iter, &d.head} {
		if *s != nil {
			errs = append(errs, destroySession(*s))
			*s = nil
		}
	}
	for _, v := range d.tensors.list {
		v.Destroy()
	}
	d.tensors.list = nil
	d.run.close()
	return errors.Join(errs...)
}
