package cli

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"edgechat/inference"
	"edgechat/inference/ort/decoder"
	"edgechat/inference/sample"
	"edgechat/internal/host"
	"edgechat/internal/rss"
	"edgechat/models"
)

// BenchOptions configure Bench.
type BenchOptions struct {
	inference.LoadOptions
	SeqLen       int // prompt length of each prefill pass
	Iterations   int
	Warmup       int
	DecodeTokens int // tokens decoded after one prefill, for decode tokens/s (0 = skip)
}

// BenchResult is the article's metric — prefill latency at a fixed length — plus decode speed.
type BenchResult struct {
	Model      string `json:"model"`
	Layout     string `json:"layout"`
	EP         string `json:"ep"`
	Threads    int    `json:"threads"`
	SeqLen     int    `json:"seq_len"`
	Iterations int    `json:"iterations"`
	Warmup     int    `json:"warmup"`
	KVType     string `json:"kv_dtype"`
	// Attention says what runs the attention of the graph that ran (decoder.AttentionOf).
	Attention string `json:"attention,omitempty"`
	// MatMul says what runs the int4 products of the graph that ran (decoder.MatMulOf).
	MatMul       string  `json:"matmul,omitempty"`
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
	// Memory (Linux; private memory also on Windows; zero elsewhere). PeakRSSBytes is the
	// peak resident size (VmHWM) from the decode run's prefill to its last token: it counts
	// mapped weight pages the kernel takes back by itself. PrivateBytes is the private memory
	// (RssAnon) after the decode run and PeakPrivateBytes its highest value sampled every
	// 5 ms from before loading to the end: what the machine cannot reclaim, held against the
	// budget of model files + KV cache + 150 MB.
	PeakRSSBytes     int64 `json:"peak_rss_bytes,omitempty"`
	PrivateBytes     int64 `json:"private_bytes,omitempty"`
	PeakPrivateBytes int64 `json:"peak_private_bytes,omitempty"`
	// LoadPeakPrivateBytes is the highest private memory sampled while loading.
	LoadPeakPrivateBytes int64     `json:"load_peak_private_bytes,omitempty"`
	ModelFileBytes       int64     `json:"model_file_bytes,omitempty"`
	KVBytes              int64     `json:"kv_bytes,omitempty"`
	RSSBudgetBytes       int64     `json:"rss_budget_bytes,omitempty"`
	Samples              []float64 `json:"samples_ms"`
	// With --compare: the memory read bandwidth measured with the run's threads, the weight
	// bytes a decode step reads (every weight but the rows-only tables such as the token
	// embedding) and the decode speed that bandwidth allows at most.
	BandwidthBytesPerS float64 `json:"bandwidth_bytes_per_s,omitempty"`
	DecodeReadBytes    int64   `json:"decode_read_bytes,omitempty"`
	DecodeLimitTPS     float64 `json:"decode_limit_tokens_per_s,omitempty"`
	// ModelFile is the decoder graph that ran and PromptIDs the prompt, for peers that run the
	// same file on the same tokens.
	ModelFile string `json:"model_file"`
	PromptIDs []int  `json:"-"`
}

// Bench loads the model once (ONNX Runtime must be initialised) and times prefill passes of
// SeqLen tokens, then a decode run, on the model's decoder directly.
func Bench(ctx context.Context, path string, o BenchOptions) (*BenchResult, error) {
	if o.SeqLen <= 0 || o.Iterations <= 0 || o.Warmup < 0 {
		return nil, fmt.Errorf("seq-len and iterations must be positive")
	}
	if o.MaxContext < o.SeqLen+o.DecodeTokens {
		o.MaxContext = o.SeqLen + o.DecodeTokens
	}
	stopLoad := rss.SamplePrivate(5 * time.Millisecond)
	t0 := time.Now()
	m, err := inference.LoadModel(path, o.LoadOptions, decoder.Open)
	loadPeak := stopLoad()
	if err != nil {
		return nil, err
	}
	// The timed passes are sampled ten times less often than the load: reading the process's
	// status every 5 ms took about 6% off decode on two cores (two threads busy decoding), and
	// the memory they add (ONNX Runtime's arena, the KV cache) stays until the end, where stopRun
	// samples it once more.
	stopRun := rss.SamplePrivate(50 * time.Millisecond)
	defer stopRun()
	defer m.Close()
	dec := m.Decoder()
	r := &BenchResult{Model: m.Folder.Dir, Layout: string(m.Folder.Layout), EP: o.EP.Label(), Threads: o.EP.Threads, SeqLen: o.SeqLen,
		Iterations: o.Iterations, Warmup: o.Warmup, LoadMillis: ms(time.Since(t0))}
	if r.Threads == 0 {
		r.Threads = host.PhysicalCores()
	}
	if o.SeqLen > dec.Capacity() {
		return nil, fmt.Errorf("seq-len %d exceeds the model's context of %d tokens", o.SeqLen, dec.Capacity())
	}
	ids := benchPrompt(m, o.SeqLen)
	r.ModelFile, r.PromptIDs = m.Folder.Model, ids
	if g, ok := dec.(inference.GraphFiler); ok { // the optimized copy, not the folder's file
		r.ModelFile = g.GraphFile()
	}
	r.KVType = kvType(m.Folder, r.ModelFile)
	if r.KVType != "" {
		r.Attention = decoder.AttentionOf(r.ModelFile)
	}
	r.MatMul = decoder.MatMulOf(r.ModelFile)
	for i := 0; i < o.Warmup+o.Iterations; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dec.Truncate(0)
		start := time.Now()
		if _, err := dec.Forward(ctx, ids); err != nil {
			return nil, err
		}
		if i >= o.Warmup {
			r.Samples = append(r.Samples, ms(time.Since(start)))
		}
	}
	r.summarise()
	if o.DecodeTokens > 0 {
		if err := r.decode(ctx, m, ids, o.DecodeTokens); err != nil {
			return nil, err
		}
	}
	r.ModelFileBytes, r.KVBytes = m.Folder.FileBytes(), dec.KVBytes()
	r.RSSBudgetBytes = r.ModelFileBytes + r.KVBytes + RSSOverhead
	if rss.PrivateSupported {
		r.PeakPrivateBytes, r.LoadPeakPrivateBytes = max(loadPeak, stopRun()), loadPeak
		r.PrivateBytes, _ = rss.Private()
	}
	return r, nil
}

// kvType is the KV cache's element type of a dynamic-shape model's graph that ran (the int8
// copy's with an 8-bit cache; "" for other layouts).
func kvType(f *models.Folder, graph string) string {
	if f.Layout != models.LayoutHF && f.Layout != models.LayoutGenAI {
		return ""
	}
	info, err := models.ReadGraph(graph)
	if err != nil {
		return ""
	}
	io, err := models.DescribeDecoder(graph, info.Inputs, info.Outputs, f.GenAINames())
	if err != nil {
		return ""
	}
	return io.KVType
}

// benchPrompt is seqLen real token ids of ordinary text.
func benchPrompt(m *inference.Model, seqLen int) []int {
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

// ttftRuns is how many times decode times the first token.
const ttftRuns = 2

// decode times a prefill (TTFT, the better of ttftRuns) then greedy decoding of n tokens, and
// measures the peak resident memory over both.
func (r *BenchResult) decode(ctx context.Context, m *inference.Model, ids []int, n int) error {
	dec := m.Decoder()
	measure := rss.Supported && rss.ResetPeak() == nil
	// The first token is timed twice and the better kept, as the llama.cpp peer times its
	// own (bench.mjs --repeat 2): on a shared machine one run's figure carries others' load.
	var next int
	for i := range ttftRuns {
		dec.Truncate(0)
		start := time.Now()
		logits, err := dec.Forward(ctx, ids)
		if err != nil {
			return err
		}
		next = sample.Argmax(logits)
		if t := ms(time.Since(start)); i == 0 || t < r.TTFTMillis {
			r.TTFTMillis = t
		}
	}
	var logits []float32
	var err error
	start := time.Now()
	for range n {
		if logits, err = dec.Forward(ctx, []int{next}); err != nil {
			return err
		}
		next = sample.Argmax(logits)
	}
	r.DecodeTPS, r.DecodeTokens = float64(n)/time.Since(start).Seconds(), n
	if measure {
		peak, err := rss.Peak()
		if err != nil {
			return err
		}
		r.PeakRSSBytes = peak
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
