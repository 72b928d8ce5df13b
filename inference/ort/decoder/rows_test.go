package decoder

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/inference/sample"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/optimize"
)

// dynOpts open a dynamic decoder for a test.
type dynOpts struct {
	cache    string // graph cache folder: run the optimized copy made there
	graph    string // run this graph instead of the folder's (cache is then ignored)
	max      int    // KV capacity in tokens (0: 512)
	pingPong bool   // keep two buffer sets even on a GroupQueryAttention graph
	threads  int    // intra-op threads (0: 1)
	// kern runs the copy's attention and products on these kernels (attnKernel, matMulKernel;
	// cache set).
	kern kernels
}

// openDynamic opens the dynamic decoder of the model folder dir on the CPU.
func openDynamic(t testing.TB, dir string, o dynOpts) *dynamicDecoder {
	t.Helper()
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if o.max == 0 {
		o.max = 512
	}
	g := *f
	g.Model = optimizedGraph(f, o.cache, inference.EP{Name: "cpu", Threads: max(o.threads, 1)}, o.max, o.kern, nil)
	if o.graph != "" {
		g.Model = o.graph
	}
	d, err := loadDynamic(&g, inference.EP{Name: "cpu", Threads: max(o.threads, 1)}, o.max)
	if err != nil {
		t.Fatal(err)
	}
	if o.pingPong {
		d.kv = newKVBuffers(d.io.Layers(), d.io.KVHeads, d.io.HeadDim, d.io.KVType, o.max, false)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func tinyGenAIInt4(t testing.TB) string {
	return synthModel(t, "tiny-genai-int4", func(o *synth.Options) {
		o.Layout, o.Quant = synth.LayoutGenAI, synth.QuantGenAIInt4
	})
}

// vocabIDs is idsOfLength(n, seed) within a vocabulary of v tokens.
func vocabIDs(n, seed, v int) []int {
	ids := idsOfLength(n, seed)
	for i := range ids {
		ids[i] %= v
	}
	return ids
}

// maxDiff is the largest absolute difference between a and b.
func maxDiff(a, b []float32) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(float64(a[i]-b[i])))
	}
	return m
}

// forward is d.Forward that fails the test on error and returns a copy of the logits.
func forward(t testing.TB, d inference.Decoder, ids []int) []float32 {
	t.Helper()
	logits, err := d.Forward(context.Background(), ids)
	if err != nil {
		t.Fatalf("forward %d ids after %d: %v", len(ids), len(d.Cached()), err)
	}
	return slices.Clone(logits)
}

// rowsCases are the graphs ForwardRows must serve: every row as published, the optimized copy
// with logits_to_keep, the real stories model both ways, and a GroupQueryAttention graph on
// its shared buffer. tol bounds the logit difference between one run of several rows and the
// same rows fed one at a time: the same arithmetic in another order (a matrix product over 9
// rows against 9 vector products), a few float32 roundings of logits of magnitude ≲ 10
// (measured: 0 on the tiny model, 1.1e-5 on stories260K). int4 MatMulNBits at accuracy level
// 4 quantizes each row's activations to int8 alike both ways but sums its blocks in another
// order (measured 1.7e-5): 5e-4 leaves room for other CPUs' kernels. Greedy ids must agree
// exactly on top of that.
func rowsCases(t *testing.T) []struct {
	name, model string
	cache       bool
	tol         float64
} {
	return []struct {
		name, model string
		cache       bool
		tol         float64
	}{
		{"fp32 as published", tinyModel(t), false, 1e-4},
		{"fp32 optimized copy", tinyModel(t), true, 1e-4},
		{"stories260K as published", testenv.SharedModel(t, "stories260K"), false, 1e-4},
		{"stories260K optimized copy", testenv.SharedModel(t, "stories260K"), true, 1e-4},
		{"genai-int4 shared buffer", tinyGenAIInt4(t), false, 5e-4},
		{"genai-int4 optimized copy", tinyGenAIInt4(t), true, 5e-4},
	}
}

// ForwardRows returns, for every id of one run, the logits that feeding the ids one by one
// with Forward gives; the optimized copy really takes the logits_to_keep input.
func TestForwardRowsMatchesOneByOne(t *testing.T) {
	for _, tc := range rowsCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			o := dynOpts{}
			if tc.cache {
				o.cache = t.TempDir()
			}
			d, ref := openDynamic(t, tc.model, o), openDynamic(t, tc.model, dynOpts{})
			if tc.cache && d.io.LogitsToKeep != optimize.KeepInputName {
				t.Fatalf("the optimized copy has no %s input", optimize.KeepInputName)
			}
			v := d.Vocab()
			ids := vocabIDs(29, 1, v)
			forward(t, d, ids[:20])
			forward(t, ref, ids[:20])
			rows, err := d.ForwardRows(context.Background(), ids[20:])
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 9*v {
				t.Fatalf("ForwardRows returned %d floats, want 9 rows of %d", len(rows), v)
			}
			worst := 0.0
			for i, id := range ids[20:] {
				want := forward(t, ref, []int{id})
				got := rows[i*v : (i+1)*v]
				worst = max(worst, maxDiff(want, got))
				if sample.Argmax(got) != sample.Argmax(want) {
					t.Errorf("row %d: argmax %d, one by one %d", i, sample.Argmax(got), sample.Argmax(want))
				}
			}
			if !(worst <= tc.tol) {
				t.Errorf("rows differ from one-by-one logits by %g (tolerance %g)", worst, tc.tol)
			}
			t.Logf("largest difference %g", worst)
			if !slices.Equal(d.Cached(), ids) {
				t.Errorf("cached %v, want %v", d.Cached(), ids)
			}
		})
	}
}

// After a verification run, rolling the cache back to the accepted tokens (Truncate) and
// going on gives what a fresh cache fed the accepted tokens gives: the rollback of
// prompt-lookup decoding.
func TestForwardRowsRollback(t *testing.T) {
	for _, tc := range rowsCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			o := dynOpts{}
			if tc.cache {
				o.cache = t.TempDir()
			}
			d := openDynamic(t, tc.model, o)
			v := d.Vocab()
			prompt, drafts := vocabIDs(30, 2, v), vocabIDs(8, 3, v)
			last := forward(t, d, prompt)
			// Verify [next, drafts...]; keep next and the first three drafts.
			verify := append([]int{sample.Argmax(last)}, drafts...)
			if _, err := d.ForwardRows(context.Background(), verify); err != nil {
				t.Fatal(err)
			}
			accepted := append(slices.Clone(prompt), verify[:4]...)
			d.Truncate(len(accepted))
			if !slices.Equal(d.Cached(), accepted) {
				t.Fatalf("cached after rollback %v, want %v", d.Cached(), accepted)
			}
			fresh := openDynamic(t, tc.model, o)
			forward(t, fresh, accepted)
			got, want := greedyDecode(t, d, []int{drafts[5]}, 12), greedyDecode(t, fresh, []int{drafts[5]}, 12)
			if !slices.Equal(got, want) {
				t.Errorf("after rollback %v, fresh cache %v", got, want)
			}
			a, b := forward(t, d, []int{got[len(got)-1]}), forward(t, fresh, []int{want[len(want)-1]})
			if diff := maxDiff(a, b); !(diff <= tc.tol) {
				t.Errorf("after rollback the logits differ from a fresh cache's by %g (tolerance %g)", diff, tc.tol)
			}
		})
	}
}

// ForwardRows refuses what it cannot do with an error that says why, and leaves the cache as
// it was.
func TestForwardRowsErrors(t *testing.T) {
	model := tinyModel(t)
	f, err := models.Open(model, "")
	if err != nil {
		t.Fatal(err)
	}
	lastOnly, _, err := optimize.Cached(f.Model, t.TempDir(), optimize.Options{LastRows: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		o       dynOpts
		rows    int
		maxRows int
		want    string
	}{
		{"too many rows", dynOpts{}, maxRows + 1, maxRows, "17 tokens in one run; this decoder takes at most 16"},
		{"past the context", dynOpts{max: 24}, 9, maxRows, "needs 29 tokens but the context holds 24"},
		{"LM head cut to the last row", dynOpts{graph: lastOnly}, 2, 0, "returns the last row only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := openDynamic(t, model, tc.o)
			if got := d.MaxRows(); got != tc.maxRows {
				t.Errorf("MaxRows = %d, want %d", got, tc.maxRows)
			}
			prompt := vocabIDs(20, 4, d.Vocab())
			forward(t, d, prompt)
			_, err := d.ForwardRows(context.Background(), vocabIDs(tc.rows, 5, d.Vocab()))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !slices.Equal(d.Cached(), prompt) || d.kv.n != len(prompt) {
				t.Errorf("the failed run changed the cache: %d ids, %d rows", len(d.Cached()), d.kv.n)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		d := openDynamic(t, model, dynOpts{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := d.ForwardRows(ctx, []int{1, 2}); err != context.Canceled {
			t.Errorf("error %v, want context.Canceled", err)
		}
	})
}
