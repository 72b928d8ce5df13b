package inference

import (
	"fmt"

	ort "github.com/yalue/onnxruntime_go"
)

// prefillChunk is how many prompt tokens one dynamic-decoder run takes. It bounds the logits
// buffer (chunk × vocab floats) and is where a long prefill can be stopped between runs.
const prefillChunk = 64

// dynamicDecoder runs a decoder with dynamic shapes (layouts A and B): each run takes the new
// tokens and the whole past, and returns logits and the past extended by the new rows.
// One goroutine at a time may use it.
type dynamicDecoder struct {
	io      *decoderIO
	session *ort.DynamicAdvancedSession
	kv      *kvBuffers
	vocab   int
	ids     []int // token ids in the cache

	idBuf   []int64
	idBuf32 []int32
	posBuf  []int64
	mask    []int64
	logits  []float32
	inputs  []ort.Value
	outputs []ort.Value
}

func newDynamicDecoder(path string, io *decoderIO, opts *ort.SessionOptions, maxTokens int) (*dynamicDecoder, error) {
	s, nIn, nOut, err := io.open(path, opts)
	if err != nil {
		return nil, err
	}
	d := &dynamicDecoder{
		io: io, session: s, vocab: io.Vocab,
		kv:      newKVBuffers(io.Layers(), io.KVHeads, io.HeadDim, io.KVType, maxTokens),
		idBuf:   make([]int64, prefillChunk),
		idBuf32: make([]int32, prefillChunk),
		posBuf:  make([]int64, prefillChunk),
		mask:    make([]int64, maxTokens),
		inputs:  make([]ort.Value, nIn),
		outputs: make([]ort.Value, nOut),
	}
	for i := range d.mask {
		d.mask[i] = 1
	}
	return d, nil
}

func (d *dynamicDecoder) Vocab() int    { return d.vocab }
func (d *dynamicDecoder) Capacity() int { return d.kv.maxTokens }
func (d *dynamicDecoder) Cached() []int { return d.ids }
func (d *dynamicDecoder) KVBytes() int64 {
	return int64(d.kv.capTokens) * int64(d.kv.bytesPerToken()) * 2
}

// Truncate keeps the first n cached tokens.
func (d *dynamicDecoder) Truncate(n int) {
	d.kv.truncate(n)
	d.ids = d.ids[:min(n, len(d.ids))]
}

// Forward appends ids to the cache and returns the logits of the last one. The slice is valid
// until the next call. run may be nil; terminating it stops the run in flight.
func (d *dynamicDecoder) Forward(ids []int, run *ort.RunOptions) ([]float32, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("forward: no tokens")
	}
	if d.kv.n+len(ids) > d.kv.maxTokens {
		return nil, fmt.Errorf("the conversation needs %d tokens but the context holds %d", d.kv.n+len(ids), d.kv.maxTokens)
	}
	var last []float32
	for start := 0; start < len(ids); start += prefillChunk {
		chunk := ids[start:min(start+prefillChunk, len(ids))]
		l, err := d.step(chunk, run)
		if err != nil {
			return nil, err
		}
		last = l
	}
	return last, nil
}

// step runs one chunk of at most prefillChunk tokens.
func (d *dynamicDecoder) step(ids []int, run *ort.RunOptions) ([]float32, error) {
	past, L := d.kv.n, len(ids)
	if err := d.kv.ensure(past + L); err != nil {
		return nil, err
	}
	if d.vocab == 0 {
		return nil, fmt.Errorf("the model's vocabulary size is unknown")
	}
	if need := L * d.vocab; cap(d.logits) < need {
		d.logits = make([]float32, need)
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
		return nil, err
	}
	k++
	if d.io.AttentionMask != "" {
		if d.inputs[k], err = ort.NewTensor(ort.NewShape(1, int64(past+L)), d.mask[:past+L]); err != nil {
			return nil, err
		}
		k++
	}
	if d.io.PositionIDs != "" {
		for i := range L {
			d.posBuf[i] = int64(past + i)
		}
		if d.inputs[k], err = ort.NewTensor(seq, d.posBuf[:L]); err != nil {
			return nil, err
		}
		k++
	}
	if err := d.kv.tensors(d.kv.cur, past, d.inputs[k:]); err != nil {
		return nil, err
	}
	if d.outputs[0], err = ort.NewTensor(ort.NewShape(1, int64(L), int64(d.vocab)), d.logits[:L*d.vocab]); err != nil {
		return nil, err
	}
	if err := d.kv.tensors(1-d.kv.cur, past+L, d.outputs[1:]); err != nil {
		return nil, err
	}
	if err := d.session.RunWithOptions(d.inputs, d.outputs, run); err != nil {
		return nil, err
	}
	d.kv.cur = 1 - d.kv.cur
	d.kv.n = past + L
	d.ids = append(d.ids, ids...)
	return d.logits[(L-1)*d.vocab : L*d.vocab], nil
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
	return d.session.Destroy()
}
