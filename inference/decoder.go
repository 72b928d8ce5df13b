package inference

import (
	"context"

	"edgechat/models"
)

// Decoder is a model's forward pass with its KV cache, whatever runs it: package
// inference/ort/decoder implements it over ONNX Runtime for every folder layout, tests with a
// function of the ids. One goroutine at a time uses a Decoder (the route that owns it).
type Decoder interface {
	// Forward appends ids to the cache and returns the logits of the last one; the slice is
	// valid until the next call. Cancelling ctx stops a run in flight: Forward then returns
	// an error and the cache holds what it held before the call, or a prefix of the new ids.
	Forward(ctx context.Context, ids []int) ([]float32, error)
	// Cached lists the token ids whose keys and values the cache holds.
	Cached() []int
	// Truncate keeps the first n cached tokens.
	Truncate(n int)
	// Capacity is the most tokens the cache can hold.
	Capacity() int
	// Vocab is the width of the logits.
	Vocab() int
	// KVBytes is the memory the cache holds now.
	KVBytes() int64
	Close() error
}

// GraphFiler is a Decoder that runs one graph file, which may be an optimized copy of the
// folder's own: benchmarks run their peers on the same file.
type GraphFiler interface {
	GraphFile() string
}

// Sliding is a Decoder whose cache is a window that slides: the oldest tokens fall out, so a
// reply may run past Capacity.
type Sliding interface {
	Slides() bool
}

// Snapshotter is a Decoder whose cache can be saved and put back, so that several
// conversations keep their KV caches (an LRU of states) and switching back is fast.
type Snapshotter interface {
	// Snapshot copies the cache; its size is in bytes.
	Snapshot() (State, int64)
	// Restore replaces the cache with a snapshot taken from the same decoder.
	Restore(State)
}

// State is a decoder's saved cache; only the decoder that made it knows its shape.
type State any

// OpenFunc opens the decoder of a model folder. The engine calls it on the route's goroutine;
// o.MaxContext is already resolved (the route's cap within the model's own limit).
// decoder.Opener gives the ONNX Runtime one.
type OpenFunc func(f *models.Folder, o LoadOptions) (Decoder, error)

// RowsForwarder is a Decoder that returns the logits of every new row of one run, what
// prompt-lookup decoding needs to check drafted tokens in one forward pass (package
// inference/lookup). Dynamic-shape decoders implement it; static NPU graphs, whose runs take
// a fixed number of rows, do not.
type RowsForwarder interface {
	// MaxRows is the most ids ForwardRows takes in one run (0: this graph cannot return
	// several rows, e.g. its LM head was cut to the last row).
	MaxRows() int
	// ForwardRows appends ids (1..MaxRows of them) to the cache in one run and returns their
	// logits, len(ids) rows of Vocab floats one after another, valid until the next call.
	// On error the cache holds what it held before the call.
	ForwardRows(ctx context.Context, ids []int) ([]float32, error)
}
