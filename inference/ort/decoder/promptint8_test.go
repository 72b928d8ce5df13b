package decoder

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/inference"
	"edgechat/internal/testkit/synth"
	"edgechat/reply"
)

// TestPromptInt8: with LoadOptions.PromptInt8 a q4 model's decoder opens a second session on
// the int8 twin written beside its optimized copy (removing the first twin's folder); runs of promptInt8Rows ids or more go
// through it (logits near the int4 session's, not equal), shorter runs through the int4
// session (the same logits bit for bit), and decoding goes on from the KV cache the prompt
// session wrote. Near is within half the logits' standard deviation (measured 0.23 on this
// 2-layer model at 64 ids with int8 activations a row at a time, 0.32 with one scale for the
// whole prompt); a misplaced weight is ~6.
func TestPromptInt8(t *testing.T) {
	if why := int8Refusal(); why != "" {
		t.Skipf("8-bit prompts are refused here (%s): TestPromptInt8Refused covers this processor", why)
	}
	// Both loads on one copy: with PromptInt8 the copy keeps MatMulNBits' order (matMulKernel),
	// so the first load must too.
	t.Setenv(LayoutVar, "off")
	model := synthModel(t, "tiny-q4", func(o *synth.Options) { o.Quant = synth.QuantQ4 })
	cache := t.TempDir()
	var ds [2]*dynamicDecoder
	var old string // the first twin's folder, made beside the copy before the twin is written
	for i, on := range []bool{false, true} {
		if on {
			copies, _ := filepath.Glob(filepath.Join(cache, "*", "*", "*.onnx"))
			if len(copies) != 1 {
				t.Fatalf("optimized copies in the cache: %v, want one", copies)
			}
			old = filepath.Join(filepath.Dir(copies[0]), oldPromptInt8Dir)
			if err := os.MkdirAll(old, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		d := loadSharedKV(t, model, cache, on)
		if (d.prompt != nil) != on {
			t.Fatalf("PromptInt8 %v: prompt session open %v", on, d.prompt != nil)
		}
		ds[i] = d
	}
	twins, _ := filepath.Glob(filepath.Join(cache, "*", "*", promptInt8Dir, "*.onnx"))
	if len(twins) != 1 {
		t.Fatalf("int8 twins in the cache: %v, want one", twins)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("the old twin's folder %s is still there (%v)", old, err)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "*", "*", promptInt8Dir+"-*")); len(left) > 0 {
		t.Fatalf("unfinished twin folders left: %v", left)
	}
	ids := make([]int, 2*promptInt8Rows)
	for i := range ids {
		ids[i] = 100 + 37*i
	}
	forward := func(ids []int) [2][]float32 {
		var out [2][]float32
		for i, d := range ds {
			l, err := d.Forward(context.Background(), ids)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = append([]float32(nil), l...)
		}
		return out
	}
	diff := func(l [2][]float32) (d, sd float64) {
		var sum, sq float64
		for i, v := range l[0] {
			d = max(d, math.Abs(float64(v-l[1][i])))
			sum, sq = sum+float64(v), sq+float64(v)*float64(v)
		}
		n := float64(len(l[0]))
		return d, math.Sqrt(sq/n - sum*sum/n/n)
	}
	short := forward(ids[:promptInt8Rows-1])
	if d, _ := diff(short); d != 0 {
		t.Fatalf("a run of %d ids differs by %g: it should run on the int4 session", promptInt8Rows-1, d)
	}
	for _, d := range ds {
		d.Truncate(0)
	}
	long := forward(ids)
	d, sd := diff(long)
	t.Logf("prompt of %d ids: largest logit difference %.3g, %.2g of their standard deviation", len(ids), d, d/sd)
	if d == 0 || d > 0.5*sd {
		t.Fatalf("prompt of %d ids: logits differ by %g (standard deviation %g): want near, not equal", len(ids), d, sd)
	}
	for range 3 {
		next := forward([]int{ids[0]})
		if d, sd := diff(next); d > 0.5*sd {
			t.Fatalf("decoding after the int8 prompt: logits differ by %g (standard deviation %g)", d, sd)
		}
	}
	if _, err := os.Stat(twins[0]); err != nil {
		t.Fatal(err)
	}
}

// TestPromptInt8Refused plays a processor without VNNI: the setting loads the model as
// without it (no prompt session, no twin written) instead of computing prompts wrongly.
func TestPromptInt8Refused(t *testing.T) {
	model := synthModel(t, "tiny-q4", func(o *synth.Options) { o.Quant = synth.QuantQ4 })
	cache := t.TempDir()
	saved := int8Refusal
	int8Refusal = func() string { return "no VNNI (played)" }
	t.Cleanup(func() { int8Refusal = saved })
	d := loadSharedKV(t, model, cache, true)
	if d.prompt != nil {
		t.Fatal("the int8 prompt session was opened on a processor that refuses it")
	}
	if twins, _ := filepath.Glob(filepath.Join(cache, "*", "*", promptInt8Dir+"*")); len(twins) > 0 {
		t.Fatalf("a twin was written on a processor that refuses it: %v", twins)
	}
	if _, err := d.Forward(context.Background(), make([]int, 2*promptInt8Rows)); err != nil {
		t.Fatalf("a prompt on the int4 session: %v", err)
	}
}

// loadSharedKV loads model on the CPU with the prompt setting promptInt8 (closed when the test
// ends) and returns its decoder, which must be a dynamic one on a shared KV buffer.
func loadSharedKV(t *testing.T, model, cache string, promptInt8 bool) *dynamicDecoder {
	t.Helper()
	// The 32-bit cache, the one the twin runs on, with 8-bit prompts or without (whose
	// shorter runs must give the int4 session's logits bit for bit).
	m, err := loadModel(model, inference.LoadOptions{EP: inference.EP{Name: "cpu"}, GraphCache: cache, MaxContext: 256, PromptInt8: promptInt8, KVCache: inference.KV32})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	d, ok := m.Decoder().(*dynamicDecoder)
	if !ok || !d.io.SharedKV {
		t.Fatalf("the decoder is %T, want a dynamic decoder on a shared KV buffer", m.Decoder())
	}
	return d
}

// TestPromptInt8Progress: the first load with 8-bit prompts says it writes their twin — after
// the preparation of the optimized copy and before ONNX Runtime starts, reply.StepPrompts
// rising to 1 — and the second load, the twin cached, does not.
func TestPromptInt8Progress(t *testing.T) {
	if why := int8Refusal(); why != "" {
		t.Skipf("8-bit prompts are refused here (%s)", why)
	}
	model := synthModel(t, "tiny-q4", func(o *synth.Options) { o.Quant = synth.QuantQ4 })
	cache := t.TempDir()
	for load := range 2 {
		var ps []reply.Progress
		m, err := loadModel(model, inference.LoadOptions{EP: inference.EP{Name: "cpu"}, GraphCache: cache, MaxContext: 256, PromptInt8: true,
			Progress: func(p reply.Progress) { ps = append(ps, p) }})
		if err != nil {
			t.Fatal(err)
		}
		d := m.Decoder().(*dynamicDecoder)
		open := d.prompt != nil
		m.Close()
		if !open {
			t.Fatalf("load %d: no prompt session", load)
		}
		var twin []float64
		for i, p := range ps {
			if p.Step != reply.StepPrompts {
				continue
			}
			twin = append(twin, p.Fraction)
			if next := ps[i+1].Step; next != reply.StepPrompts && next != reply.StepLoading {
				t.Errorf("load %d: %s after the twin's progress", load, next)
			}
			if got := p.Label("Loading the model for the CPU…"); !strings.HasPrefix(got, "Preparing 8-bit prompts: ") {
				t.Errorf("label %q", got)
			}
		}
		t.Logf("load %d: twin progress %v", load, twin)
		switch {
		case load == 0 && (len(twin) < 2 || twin[len(twin)-1] != 1 || !slices.IsSorted(twin)):
			t.Errorf("first load: twin progress %v, want rising to 1", twin)
		case load == 1 && len(twin) > 0:
			t.Errorf("cached twin: progress %v, want none", twin)
		}
	}
}
