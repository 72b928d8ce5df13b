package decoder

import (
	"context"
	"fmt"

	"edgechat/inference"
	"edgechat/models"

	"edgechat/internal/offheap"
	"edgechat/onnx/optimize"

	ort "github.com/yalue/onnxruntime_go"
)

// prefillChunk is how many prompt tokens one dynamic-decoder run takes when the graph returns
// logits for every row: it bounds the logits buffer (chunk × vocab floats).
const prefillChunk = 64

// lastRowChunk is the longest prefill chunk of a graph that returns only the last row's
// logits (the optimized copy): larger runs use the matrix kernels better and pay the per-run
// cost fewer times. On a q4 Qwen3-width model with GroupQueryAttention, 2 threads (edgechat
// bench --seq-len N, runs of 256 and 512 alternated): 428 tokens 139–170 ms against 139–149;
// 1,024 tokens 440–448 ms against 414–433. With the export's concatenating attention and its
// mask, runs of 256 were best, 180 ms against 214: concatChunk.
const (
	lastRowChunk = 512
	concatChunk  = 256
	// scoreBytes bounds the attention scores one prefill run holds: query heads × chunk ×
	// columns floats, where the columns are the whole KV buffer (GroupQueryAttention lays
	// its scores out at the buffer's length) or the tokens so far. It shortens the chunks of
	// long conversations: Qwen3's 16 heads at a 4,096-token buffer take runs of 128, where
	// 512 would hold 134 MB of scores (at its 40,960-token context, 1.3 GB).
	scoreBytes = 32 << 20
	minChunk   = 16
)

// chunk is how many prompt tokens one prefill run takes into a cache of capTokens rows.
func (d *dynamicDecoder) chunk(capTokens int) int {
	if d.runLen > 0 {
		return d.runLen
	}
	longest := concatChunk
	switch {
	case d.outRows(2, 1) != 1:
		return prefillChunk
	case d.kv.shared:
		longest = lastRowChunk
	}
	heads := d.io.QueryHeads
	if heads <= 0 {
		heads = 4 * d.io.KVHeads // no config: as many as grouped-query models commonly have
	}
	fit := scoreBytes / (4 * max(heads, 1) * max(capTokens, 1))
	return min(max(fit, minChunk), longest)
}

// maxRows is the most ids ForwardRows takes in one run: prompt-lookup verification checks up
// to 15 drafted tokens and the one after them (lookup's MaxDraft). Its logits buffer holds
// this many rows (9.7 MB at Qwen3's vocabulary), touched only as far as runs fill it.
const maxRows = 16

// dynamicDecoder runs a decoder with dynamic shapes (layouts A and B): each run takes the new
// tokens and the past, and returns logits and the past extended by the new rows (see
// kvBuffers for the two ways the cache is kept). One goroutine at a time may use it.
type dynamicDecoder struct {
	path    string // the graph file the session runs
	io      *models.DecoderIO
	session *ort.DynamicAdvancedSession
	// prompt, when set, runs the runs of promptInt8Rows ids or more (an int8 twin of the
	// graph on the same KV buffer: inference.LoadOptions.PromptInt8).
	prompt *ort.DynamicAdvancedSession
	// float, when set, runs the runs of promptInt8Rows ids or more of an int8 cache on a
	// float32 shadow of it (floatprompt.go).
	float *floatPrompt
	run   *runner
	kv    *kvBuffers
	vocab int
	ids   []int // token ids in the cache
	// notes are what a person should know about how the decoder was opened (LoadNotes).
	notes []string

	idBuf   []int64
	idBuf32 []int32
	posBuf  []int64
	mask    []int64
	keep    []int64   // logits_to_keep's value
	branch  []bool    // use_cache_branch's value
	row     []float32 // the logits Forward returns: the last token's
	rowsBuf []byte    // off-heap logits ForwardRows returns (maxRows rows), made on first use
	inputs  []ort.Value
	outputs []ort.Value

	runLen int // when > 0, the prefill chunk instead of chunk()'s (tests)
}

func newDynamicDecoder(path string, io *models.DecoderIO, opts *ort.SessionOptions, maxTokens int) (*dynamicDecoder, error) {
	run, err := newRunner()
	if err != nil {
		return nil, err
	}
	s, nIn, nOut, err := openIO(io, path, opts)
	if err != nil {
		run.close()
		return nil, err
	}
	d := &dynamicDecoder{
		path: path, io: io, session: s, run: run, vocab: io.Vocab,
		kv:      newKVBuffers(io.Layers(), io.KVHeads, io.HeadDim, io.KVType, maxTokens, io.SharedKV),
		idBuf:   make([]int64, max(prefillChunk, lastRowChunk)),
		idBuf32: make([]int32, max(prefillChunk, lastRowChunk)),
		posBuf:  make([]int64, max(prefillChunk, lastRowChunk)),
		mask:    make([]int64, maxTokens),
		keep:    make([]int64, 1),
		branch:  make([]bool, 1),
		inputs:  make([]ort.Value, nIn),
		outputs: make([]ort.Value, nOut),
	}
	for i := range d.mask {
		d.mask[i] = 1
	}
	return d, nil
}

var (
	_ inference.Decoder       = (*dynamicDecoder)(nil)
	_ inference.Snapshotter   = (*dynamicDecoder)(nil)
	_ inference.RowsForwarder = (*dynamicDecoder)(nil)
	_ inference.GraphFiler    = (*dynamicDecoder)(nil)
)

// GraphFile is the graph the session runs: the optimized copy where one was made.
func (d *dynamicDecoder) GraphFile() string { return d.path }

func (d *dynamicDecoder) Vocab() int      { return d.vocab }
func (d *dynamicDecoder) Runtime() string { return runtimeName() }
func (d *dynamicDecoder) Capacity() int   { return d.kv.maxTokens }
func (d *dynamicDecoder) Cached() []int   { return d.ids }
func (d *dynamicDecoder) KVBytes() int64 {
	if d.float != nil {
		return d.kv.held() + d.float.d.kv.held()
	}
	return d.kv.held()
}

// Truncate keeps the first n cached tokens.
func (d *dynamicDecoder) Truncate(n int) {
	d.kv.truncate(n)
	d.ids = d.ids[:min(n, len(d.ids))]
	if d.float != nil {
		d.float.d.Truncate(n)
	}
}

// MaxRows is the most ids ForwardRows takes; 0 for a graph whose LM head was cut to the last
// row without a logits_to_keep input.
func (d *dynamicDecoder) MaxRows() int {
	if d.io.LastRow {
		return 0
	}
	return maxRows
}

// outRows is how many rows of logits a run of L ids returns when the caller needs the last
// want: one for an LM head cut to the last row, want where logits_to_keep chooses, else L.
func (d *dynamicDecoder) outRows(L, want int) int {
	switch {
	case d.io.LastRow:
		return 1
	case d.io.LogitsToKeep != "":
		return want
	}
	return L
}

// check refuses a forward pass that cannot run.
func (d *dynamicDecoder) check(ctx context.Context, ids []int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(ids) == 0 {
		return fmt.Errorf("forward: no tokens")
	}
	if d.kv.n+len(ids) > d.kv.maxTokens {
		return fmt.Errorf("the conversation needs %d tokens but the context holds %d", d.kv.n+len(ids), d.kv.maxTokens)
	}
	if d.vocab == 0 {
		return fmt.Errorf("the model's vocabulary size is unknown")
	}
	return nil
}

// Forward appends ids to the cache and returns the logits of the last one. The slice is valid
// until the next call. Cancelling ctx stops the run in flight; the chunks before it stay.
func (d *dynamicDecoder) Forward(ctx context.Context, ids []int) ([]float32, error) {
	if err := d.check(ctx, ids); err != nil {
		return nil, err
	}
	if len(d.row) != d.vocab {
		d.row = make([]float32, d.vocab)
	}
	defer d.run.watch(ctx)()
	if len(ids) == 1 {
		return d.row, d.run.err(ctx, d.step(ids, d.row, 1))
	}
	// A prefill's logits (a chunk × the vocabulary: 39 MB for Qwen3 at 64 rows, unless the
	// graph computes the last row only) live off the heap for the length of the call; only
	// the last row is kept.
	size := d.chunk(d.kv.grown(d.kv.n + len(ids)))
	buf := offheap.Alloc(d.outRows(min(len(ids), size), 1) * d.vocab * 4)
	defer offheap.Free(buf)
	logits := offheap.Floats(buf)
	for start := 0; start < len(ids); start += size {
		chunk := ids[start:min(start+size, len(ids))]
		// Only the prompt's last row is read: the chunks before it need no logits where
		// the graph can skip them.
		keep := 1
		if d.io.KeepNone && start+len(chunk) < len(ids) {
			keep = 0
		}
		if err := d.run.err(ctx, d.step(chunk, logits, keep)); err != nil {
			return nil, err
		}
		if rows := d.outRows(len(chunk), keep); rows > 0 {
			copy(d.row, logits[(rows-1)*d.vocab:rows*d.vocab])
		}
	}
	return d.row, nil
}

// ForwardRows appends ids (at most MaxRows) in one run and returns the logits of every one of
// them, row after row, valid until the next call. On error the cache is unchanged.
func (d *dynamicDecoder) ForwardRows(ctx context.Context, ids []int) ([]float32, error) {
	if err := d.check(ctx, ids); err != nil {
		return nil, err
	}
	switch m := d.MaxRows(); {
	case m == 0:
		return nil, fmt.Errorf("forward rows: this graph's LM head returns the last row only (an optimized copy without the %s input); it cannot check drafted tokens", optimize.KeepInputName)
	case len(ids) > m:
		return nil, fmt.Errorf("forward rows: %d tokens in one run; this decoder takes at most %d", len(ids), m)
	}
	if d.rowsBuf == nil {
		d.rowsBuf = offheap.Alloc(maxRows * d.vocab * 4)
	}
	logits := offheap.Floats(d.rowsBuf)[:len(ids)*d.vocab]
	defer d.run.watch(ctx)()
	if err := d.run.err(ctx, d.step(ids, logits, len(ids))); err != nil {
		return nil, err
	}
	return logits, nil
}

// step runs one chunk of at most d.chunk() tokens, writing the logits of its last keep
// rows (or of all of them on a graph that cannot choose; see outRows) to logits. On error
// the cache is unchanged.
func (d *dynamicDecoder) step(ids []int, logits []float32, keep int) error {
	if d.float != nil && len(ids) >= promptInt8Rows {
		return d.float.step(d, ids, logits, keep)
	}
	past, L := d.kv.n, len(ids)
	if err := d.kv.ensure(past + L); err != nil {
		return err
	}
	defer d.release()
	k := 0
	var err error
	seq := ort.NewShape(1, int64(L))
	if d.io.InputIDsType == "int32" {
		for i, id := range ids {
			d.idBuf32[i] = int32(id)
		}
		d.inputs[k], err = ort.NewTensor(seq, d.idBuf32[:L])
	} else {
		for i, id := range ids {
			d.idBuf[i] = int64(id)
		}
		d.inputs[k], err = ort.NewTensor(seq, d.idBuf[:L])
	}
	if err != nil {
		return err
	}
	k++
	if d.io.AttentionMask != "" {
		if d.inputs[k], err = ort.NewTensor(ort.NewShape(1, int64(past+L)), d.mask[:past+L]); err != nil {
			return err
		}
		k++
	}
	if d.io.PositionIDs != "" {
		for i := range L {
			d.posBuf[i] = int64(past + i)
		}
		if d.inputs[k], err = ort.NewTensor(seq, d.posBuf[:L]); err != nil {
			return err
		}
		k++
	}
	rows := d.outRows(L, keep)
	if d.io.LogitsToKeep != "" {
		d.keep[0] = int64(rows)
		if d.inputs[k], err = ort.NewTensor(ort.NewShape(1), d.keep); err != nil {
			return err
		}
		k++
	}
	if d.io.UseCacheBranch != "" {
		// As transformers.js and Optimum run a merged decoder: the branch without past for
		// the first run, the one with past after it.
		d.branch[0] = past > 0
		if d.inputs[k], err = ort.NewTensor(ort.NewShape(1), d.branch); err != nil {
			return err
		}
		k++
	}
	if err := d.kv.past(d.inputs[k:]); err != nil {
		return err
	}
	if d.outputs[0], err = ort.NewTensor(ort.NewShape(1, int64(rows), int64(d.vocab)), logits[:rows*d.vocab]); err != nil {
		return err
	}
	if err := d.kv.present(L, d.outputs[1:]); err != nil {
		return err
	}
	s := d.session
	if d.prompt != nil && L >= promptInt8Rows {
		s = d.prompt
	}
	if err := s.RunWithOptions(d.inputs, d.outputs, d.run.opts); err != nil {
		return err
	}
	d.kv.advance(L)
	d.ids = append(d.ids, ids...)
	return nil
}

// release destroys the per-run tensor wrappers (the buffers they wrap are kept).
func (d *dynamicDecoder) release() { destroyAll(d.inputs, d.outputs) }

// destroyAll destroys the tensor wrappers in the lists and clears them.
func destroyAll(lists ...[]ort.Value) {
	for _, list := range lists {
		for i, v := range list {
			if v != nil {
				v.Destroy()
				list[i] = nil
			}
		}
	}
}

func (d *dynamicDecoder) Close() error {
	d.release()
	d.kv.free()
	offheap.Free(d.rowsBuf)
	d.rowsBuf = nil
	defer d.run.close()
	detachFloat(d)
	destroySession(d.prompt)
	return destroySession(d.session)
}
