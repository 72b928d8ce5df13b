package decoder

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/optimize"
)

// benchInt4Model is the Qwen3-0.6B-width synthetic model as onnxruntime-genai builds it for
// the CPU (4 layers, int4 MatMulNBits, GroupQueryAttention), written once into the temporary
// folder, or the genai folder named by $EDGECHAT_INT4_MODEL.
func benchInt4Model(b *testing.B) string {
	b.Helper()
	initORT(b)
	if dir := os.Getenv("EDGECHAT_INT4_MODEL"); dir != "" {
		return dir
	}
	dir := filepath.Join(os.TempDir(), "edgechat-bench-qwen3shape-genai-int4")
	if _, err := os.Stat(filepath.Join(dir, "model.onnx.data")); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	o := synth.Qwen3Shape()
	o.Layout, o.Quant = synth.LayoutGenAI, synth.QuantGenAIInt4
	if err := synth.Write(dir, o); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkDecodeHistory: decode tokens/s of the int4 model at 100, 1,000 and 3,000 tokens of
// history, on the shared KV buffer that GroupQueryAttention appends to in place and on
// ping-pong buffers (what every graph ran on before: each token copies the whole cache). The
// two run alternately, each first in turn, so load on the machine hits both alike; 2 threads,
// the optimized copy of the graph as the app runs it.
func BenchmarkDecodeHistory(b *testing.B) {
	dir, cache := benchInt4Model(b), b.TempDir()
	decodeHistory(b, []historyKind{
		{"shared", openDynamic(b, dir, dynOpts{cache: cache, max: 3100, threads: 2})},
		{"pingpong", openDynamic(b, dir, dynOpts{cache: cache, max: 3100, threads: 2, pingPong: true})},
	})
}

// BenchmarkDecodeHistoryRewrite is BenchmarkDecodeHistory for an onnx-community-style q4 export
// (concatenating attention; written once into the temporary folder): the optimized copy with
// its attention rewritten to GroupQueryAttention on one shared buffer ("shared") against the
// copy without the rewrite, which concatenates past and new rows every token ("pingpong").
func BenchmarkDecodeHistoryRewrite(b *testing.B) {
	initORT(b)
	dir := filepath.Join(os.TempDir(), "edgechat-bench-qwen3shape-q4")
	if _, err := os.Stat(filepath.Join(dir, "onnx", "model_q4.onnx_data")); err != nil {
		os.RemoveAll(dir)
		o := synth.Qwen3Shape()
		o.Quant, o.TokenizerDir = synth.QuantQ4, testenv.TokenizerDir(b, "qwen3")
		if err := synth.Write(dir, o); err != nil {
			b.Fatal(err)
		}
	}
	f, err := models.Open(dir, "")
	if err != nil {
		b.Fatal(err)
	}
	base, _, err := optimize.Cached(f.Model, b.TempDir(), graphOptions)
	if err != nil {
		b.Fatal(err)
	}
	shared := openDynamic(b, dir, dynOpts{cache: b.TempDir(), max: 3100, threads: 2})
	if !shared.kv.shared {
		b.Fatal("the GroupQueryAttention copy is not running")
	}
	decodeHistory(b, []historyKind{
		{"shared", shared},
		{"pingpong", openDynamic(b, dir, dynOpts{graph: base, max: 3100, threads: 2})},
	})
}

// historyKind is one decoder decodeHistory times.
type historyKind struct {
	name string
	d    *dynamicDecoder
}

// decodeHistory times 32 greedy tokens after 100, 1,000 and 3,000 tokens of history on each
// decoder, alternately, each first in turn, and reports tokens/s and the first's speedup.
func decodeHistory(b *testing.B, kinds []historyKind) {
	const tokens = 32
	for _, history := range []int{100, 1000, 3000} {
		b.Run(fmt.Sprintf("history=%d", history), func(b *testing.B) {
			for _, k := range kinds {
				k.d.Truncate(min(history, len(k.d.Cached())))
				if n := len(k.d.Cached()); n < history {
					forward(b, k.d, vocabIDs(history-n, n, k.d.Vocab()))
				}
			}
			spent := make([]time.Duration, len(kinds))
			for iter := 0; b.Loop(); iter++ {
				for j := range kinds {
					i := (j + iter) % len(kinds) // each goes first in turn
					k := kinds[i]
					k.d.Truncate(history)
					start := time.Now()
					greedyDecode(b, k.d, []int{42}, tokens)
					spent[i] += time.Since(start)
				}
			}
			tps := func(i int) float64 { return float64(tokens*b.N) / spent[i].Seconds() }
			for i, k := range kinds {
				b.ReportMetric(tps(i), k.name+"-tok/s")
			}
			b.ReportMetric(tps(0)/tps(1), "speedup")
		})
	}
}

// BenchmarkVerifyRows: what checking k drafted tokens costs against decoding one token,
// T(k+1)/T(1) for k = 1..15 (the drafter's limit): one ForwardRows run of k+1 rows against one
// of a single row, on the int4 model (500 tokens of history) and on stories260K (200), each
// through its optimized copy on a shared buffer with 2 threads. Runs of every size alternate
// in each iteration, each size first in turn.
func BenchmarkVerifyRows(b *testing.B) {
	const sizes = 16
	for _, m := range []struct {
		name    string
		dir     func(*testing.B) string
		history int
	}{
		{"int4", benchInt4Model, 500},
		{"stories260K", func(b *testing.B) string { return testenv.SharedModel(b, "stories260K") }, 200},
	} {
		b.Run(m.name, func(b *testing.B) {
			initORT(b)
			d := openDynamic(b, m.dir(b), dynOpts{cache: b.TempDir(), max: 1024, threads: 2})
			forward(b, d, vocabIDs(m.history, 1, d.Vocab()))
			ids := vocabIDs(sizes, 2, d.Vocab())
			spent := make([]time.Duration, sizes)
			for iter := 0; b.Loop(); iter++ {
				for j := range sizes {
					rows := (j+iter)%sizes + 1
					start := time.Now()
					if _, err := d.ForwardRows(context.Background(), ids[:rows]); err != nil {
						b.Fatal(err)
					}
					spent[rows-1] += time.Since(start)
					d.Truncate(m.history)
				}
			}
			b.ReportMetric(spent[0].Seconds()*1000/float64(b.N), "ms/T1")
			for k := 1; k < sizes; k++ {
				b.ReportMetric(float64(spent[k])/float64(spent[0]), fmt.Sprintf("T%d/T1", k+1))
			}
		})
	}
}
