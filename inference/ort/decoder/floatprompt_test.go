package decoder

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"edgechat/inference"
	"edgechat/inference/sample"
	"edgechat/internal/offheap"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// openInt8Stories loads the stories260K model in dir with the 8-bit KV cache
// alone, closed when the test ends, and returns its decoder: an int8 cache
// with no float prompt path yet.
func openInt8Stories(t *testing.T, dir, cache string) *dynamicDecoder {
	t.Helper()
	m, err := loadModel(dir, inference.LoadOptions{EP: inference.EP{Name: "cpu"}, GraphCache: cache, MaxContext: 256, KVCache: inference.KV8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	d := m.Decoder().(*dynamicDecoder)
	if d.io.KVType != "int8" || d.float != nil {
		t.Fatalf("a %s cache, float prompt path %v without 8-bit prompts", d.io.KVType, d.float != nil)
	}
	return d
}

// TestKVInt8FloatPrompt: with the int8 cache, prompts of promptInt8Rows tokens or more run on
// a float32 shadow of the cache, whose new rows are then quantized into it. On the real
// stories260K model:
//   - the first layer's int8 rows after a prompt are the ones the int8 copy stores itself to
//     within one step (both graphs compute the same keys and values there; the layers after it
//     part, as the int8 copy's prompt attention reads its own rounded rows);
//   - a later prompt leaves the rows before it as they were, and the shadow catches up with
//     the rows decoded since (their int8 values × the scales) and with a truncated cache;
//   - teacher-forced, the decoder picks the reference's tokens, as TestKVInt8Stories asks.
func TestKVInt8FloatPrompt(t *testing.T) {
	initORT(t)
	cache := t.TempDir()
	dir := testenv.SharedModel(t, "stories260K")
	d, own := openInt8Stories(t, dir, cache), openInt8Stories(t, dir, cache)
	attachFloatCopy(t, d, dir, cache)
	kv := d.kv
	// at is the offset of row r of head h in a tensor of kv.
	at := func(kv *kvBuffers, h, r int) int { return (h*kv.capTokens + r) * kv.rowBytes() }
	firstLayer := func(when string) {
		t.Helper()
		exact, total, worst := 0, 0, 0
		for i := range 2 { // layer 0's key and value
			for h := range kv.heads {
				for r := range kv.n {
					a, b := d.kv.bufs[0][i][at(d.kv, h, r):], own.kv.bufs[0][i][at(own.kv, h, r):]
					for c := range kv.headDim {
						x, y := int(int8(a[c])), int(int8(b[c]))
						worst = max(worst, x-y, y-x)
						if x == y {
							exact++
						}
						total++
					}
				}
			}
		}
		t.Logf("%s: %d of %d first-layer values exact, largest difference %d", when, exact, total, worst)
		if worst > 1 || float64(exact) < 0.99*float64(total) {
			t.Errorf("%s: %d of %d first-layer values exact, largest difference %d; want ≥ 99%% and ≤ 1", when, exact, total, worst)
		}
	}
	agree, picks := 0, 0
	ref := append(append([]int(nil), testenv.StoriesPromptIDs...), testenv.StoriesIDs...)
	forwardBoth := func(x *dynamicDecoder, ids []int) {
		t.Helper()
		logits, err := x.Forward(context.Background(), ids)
		if err != nil {
			t.Fatal(err)
		}
		if n := x.kv.n; x == d && n < len(ref) {
			picks++
			if sample.Argmax(logits) == ref[n] {
				agree++
			}
		}
	}

	// A 35-token prompt and nine decoding steps.
	forwardBoth(d, ref[:35])
	forwardBoth(own, ref[:35])
	if d.float.d.kv.n != 35 {
		t.Errorf("the shadow holds %d rows after the prompt, want 35", d.float.d.kv.n)
	}
	firstLayer("after a 35-token prompt")
	for i := 35; i < len(ref)-1; i++ {
		forwardBoth(d, ref[i:i+1])
	}
	n := kv.n
	if d.float.d.kv.n != 35 || n != len(ref)-1 {
		t.Errorf("the shadow holds %d rows and the cache %d after decoding, want 35 and %d (it catches up at the next prompt)", d.float.d.kv.n, n, len(ref)-1)
	}

	// A second prompt: the rows before it stay; the shadow holds the decoded rows dequantized.
	before := kv.save()
	forwardBoth(d, vocabIDs(32, 7, d.Vocab()))
	if d.float.d.kv.n != kv.n || kv.n != n+32 {
		t.Errorf("the shadow holds %d rows and the cache %d after the second prompt, want %d", d.float.d.kv.n, kv.n, n+32)
	}
	sh := d.float.d.kv
	for i := range kv.bufs[0] {
		for h := range kv.heads {
			for r := range n {
				if got, want := kv.bufs[0][i][at(kv, h, r):at(kv, h, r)+kv.rowBytes()], before[i][(h*n+r)*kv.rowBytes():]; !bytes.Equal(got, want[:kv.rowBytes()]) {
					t.Fatalf("tensor %d head %d row %d changed under the second prompt", i, h, r)
				}
				if r < 35 {
					continue
				}
				row := offheap.Floats(sh.bufs[0][i][at(sh, h, r) : at(sh, h, r)+sh.rowBytes()])
				for c, v := range row {
					if want := float32(int8(kv.bufs[0][i][at(kv, h, r)+c])) * d.float.scales[i][h*kv.headDim+c]; v != want {
						t.Fatalf("shadow tensor %d head %d row %d channel %d is %g, want the decoded row's %g", i, h, r, c, v, want)
					}
				}
			}
		}
	}

	// Truncated to 5 rows, a 40-token prompt.
	d.Truncate(5)
	own.Truncate(5)
	if d.float.d.kv.n != 5 {
		t.Errorf("the shadow holds %d rows after truncating to 5", d.float.d.kv.n)
	}
	forwardBoth(d, ref[5:45])
	forwardBoth(own, ref[5:45])
	firstLayer("after truncating to 5 rows and a 40-token prompt")
	if got := d.KVBytes(); got <= own.KVBytes() {
		t.Errorf("KVBytes %d does not count the shadow (int8 alone %d)", got, own.KVBytes())
	}
	t.Logf("%d of %d picks are the reference's", agree, picks)
	if picks != 10 || agree < 9 {
		t.Errorf("%d of %d picks are the reference's, want 9 of 10", agree, picks)
	}
}

// TestKVInt8FloatPromptFails: a prompt whose run fails on the float32 path (an id past the
// vocabulary, which ONNX Runtime's Gather refuses) leaves the int8 cache as it was, and the
// next prompt gives the logits and rows it would have given without the failure.
func TestKVInt8FloatPromptFails(t *testing.T) {
	initORT(t)
	cache := t.TempDir()
	dir := testenv.SharedModel(t, "stories260K")
	open := func() *dynamicDecoder {
		d := openInt8Stories(t, dir, cache)
		attachFloatCopy(t, d, dir, cache)
		return d
	}
	failed, clean := open(), open()
	ref := append(append([]int(nil), testenv.StoriesPromptIDs...), testenv.StoriesIDs...)
	forward(t, failed, ref[:35])
	forward(t, clean, ref[:35])
	for i := 35; i < 40; i++ { // decoded rows the shadow has not caught up with
		forward(t, failed, ref[i:i+1])
		forward(t, clean, ref[i:i+1])
	}
	before := failed.kv.save()
	bad := append([]int(nil), ref[:33]...)
	bad[20] = failed.Vocab() + 5
	if _, err := failed.Forward(context.Background(), bad); err == nil {
		t.Fatal("a prompt with an id past the vocabulary ran")
	}
	if failed.kv.n != 40 || len(failed.ids) != 40 {
		t.Fatalf("after the failed prompt the cache holds %d rows and %d ids, want 40", failed.kv.n, len(failed.ids))
	}
	for i, rows := range failed.kv.save() {
		if !bytes.Equal(rows, before[i]) {
			t.Fatalf("tensor %d changed under the failed prompt", i)
		}
	}
	next := vocabIDs(33, 3, failed.Vocab())
	a := append([]float32(nil), forward(t, failed, next)...)
	if b := forward(t, clean, next); !slices.Equal(a, b) {
		t.Error("the prompt after a failed one gives other logits than without the failure")
	}
	for i, rows := range failed.kv.save() {
		if !bytes.Equal(rows, clean.kv.save()[i]) {
			t.Fatalf("tensor %d differs from the cache without the failure", i)
		}
	}
}

// attachFloatCopy gives d, the int8-cache decoder of the model in dir, a float32 prompt path on
// the model's float32-cache copy in cache: stories260K has no 4-bit weights for an int8 prompt
// twin, so its copy stands in for the twin.
func attachFloatCopy(t *testing.T, d *dynamicDecoder, dir, cache string) {
	t.Helper()
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	gqa := ""
	copies, _ := filepath.Glob(filepath.Join(cache, "optimized", "*", "*.onnx"))
	for _, p := range copies {
		if info, err := proto.ReadInfo(p); err == nil && info.Metadata[optimize.MetaAttention] != "" && info.Metadata[optimize.MetaKVInt8] == "" {
			gqa = p
		}
	}
	if d.float, err = openFloatPrompt(d, f, gqa, d.path, inference.EP{Name: "cpu"}); err != nil {
		t.Fatalf("float prompt path on %q: %v", gqa, err)
	}
}

// TestKVInt8PromptInt8: with both 8-bit options on a q4 model, the per-channel int8-cache decoder runs its
// prompts on the int8 prompt twin over a float32 shadow: a prompt's logits are bit for bit
// those of the 8-bit prompts alone (the same session on the same float32 rows), the decoding
// steps after it run on the int8 cache (logits near the float32 cache's), and on a processor
// that refuses 8-bit prompts the int8 cache runs its prompts itself.
func TestKVInt8PromptInt8(t *testing.T) {
	if why := int8Refusal(); why != "" {
		t.Skipf("8-bit prompts are refused here (%s)", why)
	}
	// The per-channel cache: a per-row one (KVRowVar) runs its prompts on EdgeChat's kernels,
	// with no float32 prompt path (TestKVRowKernels).
	t.Setenv(KVRowVar, "off")
	model := synthModel(t, "tiny-q4", func(o *synth.Options) { o.Quant = synth.QuantQ4 })
	cache := t.TempDir()
	load := func(kv8 bool) *dynamicDecoder {
		kv := inference.KV32
		if kv8 {
			kv = inference.KV8
		}
		m, err := loadModel(model, inference.LoadOptions{EP: inference.EP{Name: "cpu"}, GraphCache: cache, MaxContext: 256, PromptInt8: true, KVCache: kv})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m.Decoder().(*dynamicDecoder)
	}
	p8, both := load(false), load(true)
	if both.io.KVType != "int8" || both.float == nil || filepath.Base(filepath.Dir(both.float.d.path)) != promptInt8Dir {
		t.Fatalf("both options: a %s cache, prompt path %+v", both.io.KVType, both.float)
	}
	if p8.prompt == nil {
		t.Fatal("8-bit prompts alone: no prompt session")
	}
	ids := make([]int, 2*promptInt8Rows)
	for i := range ids {
		ids[i] = 100 + 37*i
	}
	a := append([]float32(nil), forward(t, p8, ids)...)
	if b := forward(t, both, ids); !slices.Equal(a, b) {
		t.Fatal("a prompt's logits differ from the 8-bit prompts' alone: the twin should have run on the same float32 rows")
	}
	for i := range 3 {
		a := append([]float32(nil), forward(t, p8, ids[i:i+1])...)
		b := forward(t, both, ids[i:i+1])
		var d, sum, sq float64
		for j, v := range a {
			d = max(d, math.Abs(float64(v-b[j])))
			sum, sq = sum+float64(v), sq+float64(v)*float64(v)
		}
		n := float64(len(a))
		sd := math.Sqrt(sq/n - sum*sum/n/n)
		t.Logf("decoding step %d: largest logit difference %.3g, %.2g of their standard deviation", i, d, d/sd)
		if d > 0.5*sd {
			t.Fatalf("decoding step %d on the int8 cache: logits differ by %g (standard deviation %g)", i, d, sd)
		}
	}

	saved := int8Refusal
	int8Refusal = func() string { return "no VNNI (played)" }
	t.Cleanup(func() { int8Refusal = saved })
	if d := load(true); d.float != nil || d.io.KVType != "int8" {
		t.Fatalf("without VNNI: a %s cache, prompt path %v", d.io.KVType, d.float != nil)
	} else if _, err := d.Forward(context.Background(), ids); err != nil {
		t.Fatal(err)
	}
}
