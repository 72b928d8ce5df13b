package inference

import ort "github.com/yalue/onnxruntime_go"

// decoder is a model with its KV cache, whatever its layout. One goroutine uses it at a time.
type decoder interface {
	// Forward appends ids to the cache and returns the logits of the last one; the slice is
	// valid until the next call. Terminating run stops a run in flight.
	Forward(ids []int, run *ort.RunOptions) ([]float32, error)
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
