package decoder

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/inference/sample"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// cpu1 is the execution provider of these tests.
var cpu1 = inference.EP{Name: "cpu", Threads: 1}

// An export's concatenating attention runs, in the optimized copy, as GroupQueryAttention on
// one shared KV buffer, and a 300-token prompt (prefill runs of 256 and 44 rows) with greedy
// decoding to 340 tokens (the buffer grows from 256 rows) gives the ids of the copy without the rewrite on ping-pong buffers: float32 and q4 synthetic
// models (grouped heads folded into the query rows) and the real stories260K export (repeat-kv
// by Expand); a q4f16 model (float16 cache and arithmetic) gives logits within
// attnHalfTolerance at every step.
func TestGroupQueryAttentionCopy(t *testing.T) {
	for _, tc := range []struct{ name, model string }{
		{"fp32", tinyModel(t)},
		{"q4", synthModel(t, "tiny-q4", func(o *synth.Options) { o.Quant = synth.QuantQ4 })},
		{"q4f16", synthModel(t, "tiny-q4f16", func(o *synth.Options) { o.Quant, o.KVFloat16 = synth.QuantQ4F16, true })},
		{"stories260K", testenv.SharedModel(t, "stories260K")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			d := openDynamic(t, tc.model, dynOpts{cache: cache})
			if !d.kv.shared || !d.io.SharedKV || d.io.LogitsToKeep == "" {
				t.Fatalf("shared buffer %v, logits_to_keep %q: the GroupQueryAttention copy is not running", d.kv.shared, d.io.LogitsToKeep)
			}
			f, err := models.Open(tc.model, "")
			if err != nil {
				t.Fatal(err)
			}
			base, _, err := optimize.Cached(f.Model, t.TempDir(), graphOptions)
			if err != nil {
				t.Fatal(err)
			}
			ref := openDynamic(t, tc.model, dynOpts{graph: base})
			if ref.kv.shared {
				t.Fatal("the copy without the rewrite runs on a shared buffer")
			}
			prompt := vocabIDs(300, 3, d.Vocab()) // two prefill runs of the last-row graph
			n := 340
			if tc.name == "stories260K" {
				prompt, n = []int{1, 403, 407, 261, 378}, 200
			}
			if tc.name == "q4f16" {
				// float16 arithmetic parts the two by ~1% of the largest logit (see
				// attnHalfTolerance): near ties flip, so the copy follows the reference's
				// tokens and every step's logits are compared.
				a, b := forward(t, ref, prompt), forward(t, d, prompt)
				for step := 0; step < n-len(prompt); step++ {
					if err := sameLogits(a, b, attnHalfTolerance); err != nil {
						t.Fatalf("after %d tokens: %v", len(ref.Cached()), err)
					}
					next := []int{sample.Argmax(a)}
					a, b = forward(t, ref, next), forward(t, d, next)
				}
				return
			}
			got, want := greedyTo(t, d, prompt, n), greedyTo(t, ref, prompt, n)
			requireVaried(t, want[:40])
			if !slices.Equal(got, want) {
				i := 0
				for i < len(got) && got[i] == want[i] {
					i++
				}
				t.Fatalf("GroupQueryAttention copy and the published attention part at token %d of %d", i, len(want))
			}
			if d.kv.capTokens < n || d.kv.capTokens > 512 {
				t.Errorf("shared buffer of %d rows for %d tokens", d.kv.capTokens, n)
			}
			// The second open uses the recorded verdict: the copy, no check and no other copy.
			again := openDynamic(t, tc.model, dynOpts{cache: cache})
			if !again.kv.shared {
				t.Error("the second open does not run the checked copy")
			}
			copies, _ := filepath.Glob(filepath.Join(cache, "optimized", "*", "*.onnx"))
			if len(copies) != 1 {
				t.Errorf("copies in the cache: %v", copies)
			}
		})
	}
}

// writeMutated writes the tiny synthetic model into a fresh folder and replaces old by repl
// (of equal length) in its graph.
func writeMutated(t *testing.T, old, repl string) string {
	t.Helper()
	initORT(t)
	o := synth.Tiny()
	o.TokenizerDir = testenv.TokenizerDir(t, "qwen3")
	dir := t.TempDir()
	if err := synth.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "onnx", "model.onnx")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) || len(old) != len(repl) {
		t.Fatalf("cannot replace %q", old)
	}
	if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte(old), []byte(repl)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A copy that the rewrite recognises but whose logits differ falls back to the copy without
// the rewrite, records why, and the next open does not check again. The mismatch is real: the
// model's mask is made anti-causal (And → Xor of the causal and padding masks: the keys after
// each query), which the matcher cannot tell from a causal one, while GroupQueryAttention
// always masks causally. A graph the rewrite does not recognise keeps its attention too.
func TestGroupQueryAttentionFallback(t *testing.T) {
	for _, tc := range []struct {
		name, old, repl, verdict string
	}{
		{"mismatch", "\x22\x03And", "\x22\x03Xor", "mismatch: "},
		{"not recognised", "\x22\x07Softmax", "\x22\x07Hardmax", notRecognised},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeMutated(t, tc.old, tc.repl)
			cache := t.TempDir()
			f, err := models.Open(dir, "")
			if err != nil {
				t.Fatal(err)
			}
			got := optimizedGraph(f, cache, cpu1, 4096, kernels{}, nil)
			info, err := proto.ReadInfo(got)
			if err != nil {
				t.Fatal(err)
			}
			if info.Ops[proto.OpKey("com.microsoft", "GroupQueryAttention")] != 0 || info.Metadata[optimize.MetaLogitsRows] == "" {
				t.Fatalf("ran %s (ops %v), not the copy without the attention rewrite", got, info.OpTypes())
			}
			gqa, _ := optimize.CachedPath(f.Model, cache, gqaOptions(4096, cpu1))
			v, err := os.ReadFile(verdictPath(gqa, cpu1))
			if err != nil || !strings.HasPrefix(string(v), tc.verdict) {
				t.Fatalf("verdict %q (%v), want %q…", v, err, tc.verdict)
			}
			t.Logf("verdict: %s", v)
			if _, err := os.Stat(gqa); err == nil && tc.verdict == notRecognised {
				t.Error("a copy without the rewrite stays in the cache twice")
			}
			if again := optimizedGraph(f, cache, cpu1, 4096, kernels{}, nil); again != got {
				t.Errorf("second open ran %s, first %s", again, got)
			}
			d := openDynamic(t, dir, dynOpts{cache: cache})
			if d.kv.shared {
				t.Error("the fallback runs on a shared buffer")
			}
			greedyDecode(t, d, vocabIDs(10, 1, d.Vocab()), 5)
		})
	}
}

// Lowering the tolerance below the differences of two summation orders rejects even a correct
// copy: the check compares numbers, not graphs.
func TestGroupQueryAttentionToleranceBites(t *testing.T) {
	model := tinyModel(t)
	f, err := models.Open(model, "")
	if err != nil {
		t.Fatal(err)
	}
	old := verifyTolerance
	t.Cleanup(func() { verifyTolerance = old })
	verifyTolerance = func(*proto.ModelInfo) float64 { return -1 }
	got := optimizedGraph(f, t.TempDir(), cpu1, 4096, kernels{}, nil)
	info, err := proto.ReadInfo(got)
	if err != nil {
		t.Fatal(err)
	}
	if info.Ops[proto.OpKey("com.microsoft", "GroupQueryAttention")] != 0 {
		t.Fatal("a copy that failed the check runs")
	}
}

// A q4 graph's attention rewrite is checked on float-compute twins at float32's tolerance
// (int8 compute turns the rewrite's ulps into quantization steps that depth amplifies), the
// twins are removed after the check, and the copy that runs computes in int8.
func TestAttentionCheckedInFloat(t *testing.T) {
	model := synthModel(t, "tiny-q4", func(o *synth.Options) { o.Quant = synth.QuantQ4 })
	f, err := models.Open(model, "")
	if err != nil {
		t.Fatal(err)
	}
	var checked []proto.NBits
	old := verifyTolerance
	t.Cleanup(func() { verifyTolerance = old })
	verifyTolerance = func(info *proto.ModelInfo) float64 {
		for nb := range info.NBits {
			checked = append(checked, nb)
		}
		tol := old(info)
		if tol != attnFloatTolerance {
			t.Errorf("the check used tolerance %g, want float32's %g", tol, attnFloatTolerance)
		}
		return tol
	}
	cache := t.TempDir()
	got := optimizedGraph(f, cache, cpu1, 4096, kernels{}, nil)
	info, err := proto.ReadInfo(got)
	if err != nil {
		t.Fatal(err)
	}
	if info.Ops[proto.OpKey("com.microsoft", "GroupQueryAttention")] == 0 {
		t.Fatal("the checked copy does not run")
	}
	for nb := range info.NBits {
		if nb.AccuracyLevel != 4 {
			t.Errorf("the copy that runs has MatMulNBits at level %d, want 4", nb.AccuracyLevel)
		}
	}
	if len(checked) == 0 {
		t.Fatal("no check ran")
	}
	for _, nb := range checked {
		if nb.AccuracyLevel != 0 {
			t.Errorf("the check ran MatMulNBits at level %d, want 0 (float compute)", nb.AccuracyLevel)
		}
	}
	dirs, err := os.ReadDir(filepath.Join(cache, "optimized"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 1 || dirs[0].Name() != filepath.Base(filepath.Dir(got)) {
		var names []string
		for _, d := range dirs {
			names = append(names, d.Name())
		}
		t.Errorf("the cache holds %v, want only the copy that runs", names)
	}
}
