package inference

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"edgechat/internal/rss"
)

// BenchOptions configure Bench.
type BenchOptions struct {
	LoadOptions
	SeqLen       int // prompt length of each prefill pass
	Iterations   int
	Warmup       int
	DecodeTokens int // tokens decoded after one prefill, for decode tokens/s (0 = skip)
}

// BenchResult is the article's metric — prefill latency at a fixed length — plus decode speed.
type BenchResult struct {
	Model        string  `json:"model"`
	Layout       string  `json:"layout"`
	EP           string  `json:"ep"`
	Threads      int     `json:"threads"`
	SeqLen       int     `json:"seq_len"`
	Iterations   int     `json:"iterations"`
	Warmup       int     `json:"warmup"`
	KVType       string  `json:"kv_dtype"`
	LoadMillis   float64 `json:"load_ms"`
	MeanMillis   float64 `json:"mean_ms"`
	StdMillis    float64 `json:"std_ms"`
	P50Millis    float64 `json:"p50_ms"`
	P95Millis    float64 `json:"p95_ms"`
	MinMillis    float64 `json:"min_ms"`
	MaxMillis    float64 `json:"max_ms"`
	SamplesPerS  float64 `json:"samples_per_s"`
	PrefillTPS   float64 `json:"prefill_tokens_per_s"`
	TTFTMillis   float64 `json:"ttft_ms"`
	DecodeTPS    float64 `json:"decode_tokens_per_s,omitempty"`
	DecodeTokens int     `json:"decode_tokens,omitempty"`
	// Memory of the decode run (Linux; zero elsewhere): the peak resident size from its
	// prefill to its last token, against the budget of model files + KV cache + 150 MB.
	PeakRSSBytes   int64     `json:"peak_rss_bytes,omitempty"`
	ModelFileBytes int64     `json:"model_file_bytes,omitempty"`
	KVBytes        int64     `json:"kv_bytes,omitempty"`
	RSSBudgetBytes int64     `json:"rss_budget_bytes,omitempty"`
	Samples        []float64 `json:"samples_ms"`
	// ModelFile is the decoder graph that ran and PromptIDs the prompt, for peers that run the
	// same file on the same tokens.
	ModelFile string `json:"model_file"`
	PromptIDs []int  `json:"-"`
}

// Bench loads the model once and times prefill passes of SeqLen tokens, then a decode run.
func Bench(ctx context.Context, path string, o BenchOptions) (*BenchResult, error) {
	if o.SeqLen <= 0 || o.Iterations <= 0 || o.Warmup < 0 {
		return nil, fmt.Errorf("seq-len and iterations must be positive")
	}
	if o.MaxContext < o.SeqLen+o.DecodeTokens {
		o.MaxContext = o.SeqLen + o.DecodeTokens
	}
	t0 := time.Now()
	m, err := LoadModel(path, o.LoadOptions)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	r := &BenchResult{Model: m.Folder.Dir, Layout: string(m.Folder.Layout), EP: o.EP.Label(), Threads: o.EP.Threads, SeqLen: o.SeqLen,
		Iterations: o.Iterations, Warmup: o.Warmup, LoadMillis: ms(time.Since(t0))}
	if r.Threads == 0 {
		r.Threads = PhysicalCores()
	}
	if d, ok := m.dec.(*dynamicDecoder); ok {
		r.KVType = d.io.KVType
	}
	if o.SeqLen > m.dec.Capacity() {
		return nil, fmt.Errorf("seq-len %d exceeds the model's context of %d tokens", o.SeqLen, m.dec.Capacity())
	}
	ids := benchPrompt(m, o.SeqLen)
	r.ModelFile, r.PromptIDs = m.Folder.Model, ids
	for i := 0; i < o.Warmup+o.Iterations; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m.dec.Truncate(0)
		start := time.Now()
		if _, err := m.forward(ids, nil); err != nil {
			return nil, err
		}
		if i >= o.Warmup {
			r.Samples = append(r.Samples, ms(time.Since(start)))
		}
	}
	r.summarise()
	if o.DecodeTokens > 0 {
		if err := r.decode(m, ids, o.DecodeTokens); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// benchPrompt is seqLen real token ids of ordinary text.
func benchPrompt(m *Model, seqLen int) []int {
	text := "The Hexagon NPU runs the transformer's matrix multiplications at low power, while the CPU handles the rest. "
	ids := m.Tokenizer.Encode(text)
	out := make([]int, seqLen)
	for i := range out {
		out[i] = ids[i%len(ids)]
	}
	return out
}

func (r *BenchResult) summarise() {
	s := slices.Clone(r.Samples)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	n := float64(len(s))
	r.MeanMillis = sum / n
	var v float64
	for _, x := range s {
		v += (x - r.MeanMillis) * (x - r.MeanMillis)
	}
	if len(s) > 1 {
		r.StdMillis = math.Sqrt(v / (n - 1))
	}
	r.P50Millis, r.P95Millis = percentile(s, 0.50), percentile(s, 0.95)
	r.MinMillis, r.MaxMillis = s[0], s[len(s)-1]
	r.SamplesPerS = 1000 / r.MeanMillis
	r.PrefillTPS = float64(r.SeqLen) * r.SamplesPerS
}

// percentile of sorted samples, linearly interpolated.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 1 {
		return sorted[0]
	}
	pos := p * float64(len(sorted)-1)
	lo := int(pos)
	if lo+1 >= len(sorted) {
		return sorted[lo]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// RSSOverhead is what the process may hold beyond its model files and KV cache (the memory
// target: runtime, tokenizer, ONNX Runtime's arena, buffers).
const RSSOverhead = 150_000_000

// decode times a prefill (TTFT) then greedy decoding of n tokens, and measures the peak
// resident memory over both.
func (r *BenchResult) decode(m *Model, ids []int, n int) error {
	m.dec.Truncate(0)
	measure := rss.Supported && rss.ResetPeak() == nil
	start := time.Now()
	logits, err := m.forward(ids, nil)
	if err != nil {
		return err
	}
	next := argmax(logits)
	r.TTFTMillis = ms(time.Since(start))
	start = time.Now()
	for range n {
		if logits, err = m.forward([]int{next}, nil); err != nil {
			return err
		}
		next = argmax(logits)
	}
	r.DecodeTPS, r.DecodeTokens = float64(n)/time.Since(start).Seconds(), n
	if measure {
		peak, err := rss.Peak()
		if err != nil {
			return err
		}
		r.PeakRSSBytes, r.ModelFileBytes, r.KVBytes = peak, m.FileBytes(), m.dec.KVBytes()
		r.RSSBudgetBytes = r.ModelFileBytes + r.KVBytes + RSSOverhead
	}
	return nil
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
