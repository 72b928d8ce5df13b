package loop

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/inference/ort/env"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
)

func model(t testing.TB, o synth.Options) string {
	t.Helper()
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := synth.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	if o.Layout == synth.LayoutGenAI {
		return filepath.Join(dir, "model.onnx")
	}
	return filepath.Join(dir, "onnx", o.Quant.File())
}

func maxDiff(a, b []float32) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(float64(a[i]-b[i])))
	}
	return m
}

var prompt = []int{151644, 872, 198, 9707, 11, 1879, 0, 220, 108386, 220, 151645, 198}

// TestStepsAndTruncate: a prompt in one run and token by token give the same logits, and a
// cache truncated back to n tokens continues exactly as one that never went past n — the
// rollback prompt-lookup decoding needs, for float32 and float16 caches and GQA graphs.
func TestStepsAndTruncate(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    func() synth.Options
	}{
		{"fp32", synth.Tiny},
		{"fp16 kv", func() synth.Options { o := synth.Tiny(); o.KVFloat16 = true; return o }},
		{"genai-int4", func() synth.Options {
			o := synth.Tiny()
			o.Quant, o.Layout = synth.QuantGenAIInt4, synth.LayoutGenAI
			return o
		}},
		{"genai-int4 shared buffer", func() synth.Options {
			o := synth.Tiny()
			o.Quant, o.Layout = synth.QuantGenAIInt4, synth.LayoutGenAI
			return o
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Open(model(t, tc.o()), Options{Threads: 1, MaxTokens: 64, SharedKV: strings.HasSuffix(tc.name, "shared buffer")})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			v := l.Vocab()
			whole, err := l.Step(prompt)
			if err != nil {
				t.Fatal(err)
			}
			whole = append([]float32(nil), whole...)
			l.Truncate(0)
			for i, id := range prompt {
				got, err := l.Step([]int{id})
				if err != nil {
					t.Fatal(err)
				}
				if d := maxDiff(whole[i*v:(i+1)*v], got); !(d < 2e-3) {
					t.Fatalf("token %d: one pass and token by token differ by %g", i, d)
				}
			}
			// Draft 3 wrong tokens after 8, roll back, and continue with the real ones.
			l.Truncate(8)
			if _, err := l.Step([]int{5, 6, 7}); err != nil {
				t.Fatal(err)
			}
			l.Truncate(8)
			got, err := l.Step(prompt[8:])
			if err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(whole[8*v:], got); !(d < 2e-3) {
				t.Errorf("after rollback the logits differ by %g", d)
			}
			if l.Len() != len(prompt) {
				t.Errorf("Len = %d, want %d", l.Len(), len(prompt))
			}
		})
	}
}

// TestCopyKV: a loop whose cache is copied from another's after a prompt continues with the
// logits the other gives, without having run the prompt; loops without shared buffers, or of
// another cache geometry, are refused.
func TestCopyKV(t *testing.T) {
	genai := func(maxTokens int, shared bool) *Loop {
		o := synth.Tiny()
		o.Quant, o.Layout = synth.QuantGenAIInt4, synth.LayoutGenAI
		l, err := Open(model(t, o), Options{Threads: 1, MaxTokens: maxTokens, SharedKV: shared})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	src, dst := genai(64, true), genai(64, true)
	if _, err := src.Step(prompt[:8]); err != nil {
		t.Fatal(err)
	}
	if err := dst.CopyKV(src); err != nil {
		t.Fatal(err)
	}
	if dst.Len() != 8 {
		t.Errorf("Len after the copy = %d, want 8", dst.Len())
	}
	want, err := src.Step(prompt[8:])
	if err != nil {
		t.Fatal(err)
	}
	want = append([]float32(nil), want...)
	got, err := dst.Step(prompt[8:])
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(want, got); d != 0 {
		t.Errorf("after the copy the logits differ by %g", d)
	}
	for _, tc := range []struct {
		name string
		l    *Loop
	}{
		{"not shared", genai(64, false)},
		{"other rows", genai(32, true)},
	} {
		if err := tc.l.CopyKV(src); err == nil {
			t.Errorf("%s: the copy was accepted", tc.name)
		}
	}
}

// BenchmarkGreedy is the bare loop on the model in $ORTLOOP_MODEL (an .onnx file), or a tiny
// synthetic one: 428 prompt tokens, 64 greedy tokens.
func BenchmarkGreedy(b *testing.B) {
	path := os.Getenv("ORTLOOP_MODEL")
	if path == "" {
		path = model(b, synth.Tiny())
	} else if _, err := env.Init(testenv.ORTLibrary(b)); err != nil {
		b.Fatal(err)
	}
	l, err := Open(path, Options{Threads: 2, MaxTokens: 512})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	ids := make([]int, 428)
	for i := range ids {
		ids[i] = prompt[i%len(prompt)]
	}
	var r Result
	for b.Loop() {
		if r, err = l.Greedy(ids, 64); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(r.DecodeTPS, "tok/s")
	b.ReportMetric(float64(r.TTFT.Milliseconds()), "ttft-ms")
}
