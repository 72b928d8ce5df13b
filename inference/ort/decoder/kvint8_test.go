package decoder

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/inference/ort/loop"
	"edgechat/inference/sample"
	"edgechat/internal/testkit/testenv"
	"edgechat/models"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
	"edgechat/reply"
)

// TestKVInt8Stories: with LoadOptions.KVInt8 the real stories260K model runs on an int8 cache
// (its GroupQueryAttention copy calibrated on the first load, the copy reused on the second),
// and fed the README's greedy continuation of "Once upon a time" token by token, it picks the
// README's next token at 36 or more of the 40 steps (measured: 39, the other a near tie that
// then changes the free-running text from its 17th token) — the rule for a lossy cache on a
// real model: the same picks almost everywhere, not the same bits.
func TestKVInt8Stories(t *testing.T) {
	initORT(t)
	cache := t.TempDir()
	dir := testenv.SharedModel(t, "stories260K")
	for load := range 2 {
		m, err := loadModel(dir, inference.LoadOptions{EP: inference.EP{Name: "cpu"}, GraphCache: cache, MaxContext: 256, KVCache: inference.KV8})
		if err != nil {
			t.Fatal(err)
		}
		d, ok := m.Decoder().(*dynamicDecoder)
		if !ok || d.io.KVType != "int8" || !d.io.SharedKV {
			m.Close()
			t.Fatalf("load %d: the decoder is %T, want a dynamic decoder with a shared int8 cache", load, m.Decoder())
		}
		if load == 0 {
			m.Close()
			continue
		}
		logits, err := d.Forward(context.Background(), testenv.StoriesPromptIDs)
		agree := 0
		for _, want := range testenv.StoriesIDs {
			if err != nil {
				break
			}
			if sample.Argmax(logits) == want {
				agree++
			}
			logits, err = d.Forward(context.Background(), []int{want})
		}
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("int8 cache: %d of %d teacher-forced picks are the reference's", agree, len(testenv.StoriesIDs))
		if agree < 36 {
			t.Errorf("int8 cache: only %d of %d teacher-forced picks are the reference's", agree, len(testenv.StoriesIDs))
		}
	}
}

// TestKVInt8Refused: without a folder for copies, or off the CPU, or on a graph whose attention
// is not GroupQueryAttention, there is no int8 copy, and the reason says why.
func TestKVInt8Refused(t *testing.T) {
	initORT(t)
	f, err := models.Open(testenv.SharedModel(t, "stories260K"), "")
	if err != nil {
		t.Fatal(err)
	}
	cpu := inference.EP{Name: "cpu"}
	for _, tc := range []struct {
		name, graph, cache string
		ep                 inference.EP
	}{
		{"no cache folder", f.Model, "", cpu},
		{"DirectML", f.Model, t.TempDir(), inference.EP{Name: "dml"}},
		{"published attention", f.Model, t.TempDir(), cpu},
	} {
		if q, err := kvInt8Graph(f, tc.graph, tc.cache, tc.ep, nil); err == nil {
			t.Errorf("%s: an int8 copy %s", tc.name, q)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
}

// TestKVInt8SnapshotRestore: an int8 cache is a byte a value, and a snapshot of it restored
// after the buffer grew continues exactly as before.
func TestKVInt8SnapshotRestore(t *testing.T) {
	initORT(t)
	m, err := loadModel(testenv.SharedModel(t, "stories260K"), inference.LoadOptions{EP: inference.EP{Name: "cpu"}, GraphCache: t.TempDir(), MaxContext: 512, KVCache: inference.KV8})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d := m.Decoder().(*dynamicDecoder)
	if d.io.KVType != "int8" || d.kv.elem != 1 {
		t.Fatalf("a %s cache of %d bytes a value", d.io.KVType, d.kv.elem)
	}
	prompt := vocabIDs(50, 9, d.Vocab())
	forward(t, d, prompt)
	st, size := d.Snapshot()
	if want := int64(50 * 2 * d.io.Layers() * d.io.KVHeads * d.io.HeadDim); size != want {
		t.Errorf("snapshot size %d, want %d (one byte a value)", size, want)
	}
	next := vocabIDs(1, 10, d.Vocab())
	want := greedyDecode(t, d, next, 30)
	greedyTo(t, d, vocabIDs(1, 11, d.Vocab()), 300) // grows the buffer to 512 rows
	d.Restore(st)
	if got := greedyDecode(t, d, next, 30); !slices.Equal(got, want) {
		t.Errorf("after restore %v, before %v", got, want)
	}
}

// TestKVInt8CalibrationProgress: the first load with the int8 cache of the real stories260K
// model says it calibrates — after the preparation of its optimized copy and before ONNX
// Runtime starts, reply.StepCalibrating with a fraction that rises from 0 to 1 through the
// calibration run — and the second load, the int8 copy cached, has no calibration step.
func TestKVInt8CalibrationProgress(t *testing.T) {
	initORT(t)
	cache := t.TempDir()
	dir := testenv.SharedModel(t, "stories260K")
	order := []string{reply.StepTokenizer, reply.StepReading, reply.StepRewriting, reply.StepWriting, reply.StepVerifying, reply.StepCalibrating, reply.StepLoading}
	for load := range 2 {
		var ps []reply.Progress
		m, err := loadModel(dir, inference.LoadOptions{EP: inference.EP{Name: "cpu"}, GraphCache: cache, MaxContext: 256, KVCache: inference.KV8,
			Progress: func(p reply.Progress) { ps = append(ps, p) }})
		if err != nil {
			t.Fatal(err)
		}
		d, ok := m.Decoder().(*dynamicDecoder)
		m.Close()
		if !ok || d.io.KVType != "int8" {
			t.Fatalf("load %d: not an int8 cache", load)
		}
		var calib []reply.Progress
		for i, p := range ps {
			if i > 0 && slices.Index(order, p.Step) < slices.Index(order, ps[i-1].Step) && p.Step != reply.StepReading {
				t.Errorf("load %d: step %s after %s", load, p.Step, ps[i-1].Step)
			}
			if p.Step == reply.StepCalibrating {
				calib = append(calib, p)
			}
		}
		if len(ps) == 0 || ps[len(ps)-1].Step != reply.StepLoading {
			t.Errorf("load %d: the steps %+v do not end with loading", load, ps)
		}
		if load == 1 {
			if len(calib) > 0 || len(ps) != 2 {
				t.Errorf("cached load: steps %+v, want the tokenizer and loading only", ps)
			}
			continue
		}
		t.Logf("calibration: %+v", calib)
		if len(calib) < 4 || calib[0].Fraction != 0 || calib[len(calib)-1].Fraction != 1 {
			t.Fatalf("calibration steps %+v, want from 0 to 1 through the run", calib)
		}
		for i := 1; i < len(calib); i++ {
			if calib[i].Fraction <= calib[i-1].Fraction {
				t.Errorf("the calibration's fraction did not rise: %+v", calib)
			}
		}
		if got := calib[1].Label("Loading the model for the CPU…"); !strings.HasPrefix(got, "Preparing the 8-bit cache: ") {
			t.Errorf("label %q", got)
		}
	}
}

// TestKVInt8CorruptCopy: an int8 copy in the cache cut short does not fail the load — the
// model runs with the float32 cache and its notes tell the user why; the broken copy is
// removed, so the next load calibrates again and runs on the int8 cache.
func TestKVInt8CorruptCopy(t *testing.T) {
	initORT(t)
	cache := t.TempDir()
	dir := testenv.SharedModel(t, "stories260K")
	o := inference.LoadOptions{EP: inference.EP{Name: "cpu"}, GraphCache: cache, MaxContext: 256, KVCache: inference.KV8}
	kvType := func() (string, []string) {
		t.Helper()
		m, err := loadModel(dir, o)
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		defer m.Close()
		d, ok := m.Decoder().(*dynamicDecoder)
		if !ok {
			t.Fatalf("decoder %T", m.Decoder())
		}
		if _, err := d.Forward(context.Background(), testenv.StoriesPromptIDs); err != nil {
			t.Fatal(err)
		}
		var notes []string // stories260K's own note (no chat template) aside
		for _, n := range m.Notes {
			if strings.Contains(n, "KV cache") {
				notes = append(notes, n)
			}
		}
		return d.io.KVType, notes
	}
	if kv, notes := kvType(); kv != "int8" || len(notes) != 0 {
		t.Fatalf("first load: %s cache, notes %q", kv, notes)
	}
	f, err := models.Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	gqa := optimizedGraph(f, cache, o.EP, o.MaxContext, kernels{}, nil)
	q, err := kvInt8Graph(f, gqa, cache, o.EP, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(q)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(q, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	kv, notes := kvType()
	t.Logf("notes: %q", notes)
	if kv != "float32" || len(notes) != 1 || !strings.Contains(notes[0], "8-bit KV cache is off") || !strings.Contains(notes[0], "next load makes it again") {
		t.Fatalf("after the copy was cut short: %s cache, notes %q", kv, notes)
	}
	if kv, notes := kvType(); kv != "int8" || len(notes) != 0 {
		t.Fatalf("the load after: %s cache, notes %q", kv, notes)
	}
}

// TestKVInt8PlainAttention: the app's session over an int8-cache copy runs ONNX Runtime's plain
// GroupQueryAttention path, not its flash one (env.WithoutGQAFlash; the plain path decodes
// faster on a quantized cache): after 200 tokens its logits are bit for bit those of a bare
// session created the same way (loop, plain path) and not those of one on the flash path.
func TestKVInt8PlainAttention(t *testing.T) {
	initORT(t)
	cache := t.TempDir()
	m, err := loadModel(testenv.SharedModel(t, "stories260K"), inference.LoadOptions{EP: inference.EP{Name: "cpu", Threads: 1}, GraphCache: cache, MaxContext: 512, KVCache: inference.KV8})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d, ok := m.Decoder().(*dynamicDecoder)
	if !ok || d.io.KVType != "int8" {
		t.Fatalf("the decoder is %T, want a dynamic decoder with an int8 cache", m.Decoder())
	}
	ids := make([]int, 200)
	for i := range ids {
		ids[i] = 3 + (i*37)%500
	}
	got, err := d.Forward(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	copies, _ := filepath.Glob(filepath.Join(cache, "optimized", "*", "*.onnx"))
	copyPath := ""
	for _, p := range copies {
		if info, err := proto.ReadInfo(p); err == nil && info.Metadata[optimize.MetaKVInt8] != "" {
			copyPath = p
		}
	}
	if copyPath == "" {
		t.Fatalf("no int8-cache copy among %v", copies)
	}
	bare := func(flash bool) []float32 {
		l, err := loop.Open(copyPath, loop.Options{Threads: 1, MaxTokens: 512, SharedKV: true, QuantFlash: flash})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		logits, err := l.Step(ids)
		if err != nil {
			t.Fatal(err)
		}
		return logits[len(logits)-len(got):]
	}
	if plain := bare(false); !slices.Equal(got, plain) {
		t.Error("the app's int8 session and a bare one on the plain path give different logits")
	}
	if flash := bare(true); slices.Equal(got, flash) {
		t.Error("the app's int8 session gives the flash path's logits, bit for bit")
	}
}
