package optimize_test

import (
	"math"
	"path/filepath"
	"testing"

	"edgechat/inference/ort/env"
	"edgechat/inference/ort/loop"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/onnx/optimize"
	"edgechat/onnx/proto"
)

// TestInt8Twin: the int8 twin of a q4 graph (weights inline or in an external data file; all
// MatMulNBits or those --match names) has 8-bit MatMulNBits and gives the published graph's
// logits (float32 compute: accuracy level unset) through a prompt and decoding steps, and a
// graph with zero points keeps its 4-bit nodes.
func TestInt8Twin(t *testing.T) {
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		external   bool
		zeroPoints bool
		match      string
		want       int
	}{
		{"inline", false, false, "", 2*7 + 1},
		{"external data", true, false, "", 2*7 + 1},
		{"lm head only", true, false, "lm_head", 1},
		{"zero points", false, true, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := synth.Tiny()
			o.Quant, o.ExternalData, o.ZeroPoints = synth.QuantQ4, c.external, c.zeroPoints
			o.Vocab = 2048 // a small LM head: the test runs in a second
			dir := t.TempDir()
			if err := synth.Write(dir, o); err != nil {
				t.Fatal(err)
			}
			src := filepath.Join(dir, "onnx", o.Quant.File())
			out := t.TempDir()
			n, _, err := optimize.Int8Twin(src, out, c.match)
			if err != nil {
				t.Fatal(err)
			}
			if n != c.want {
				t.Fatalf("%d nodes re-encoded, want %d", n, c.want)
			}
			dst := filepath.Join(out, filepath.Base(src))
			info, err := proto.ReadInfo(dst)
			if err != nil {
				t.Fatal(err)
			}
			eight := 0
			for nb, k := range info.NBits {
				if nb.Bits == 8 {
					eight += k
				}
			}
			if eight != c.want {
				t.Fatalf("%d 8-bit MatMulNBits in the twin, want %d", eight, c.want)
			}
			if d := logitsDiff(t, src, dst); d > 1e-3 {
				t.Fatalf("logits differ by %g", d)
			}
		})
	}
}

// logitsDiff runs both graphs on a prompt and four greedy steps of the first and returns the
// largest logit difference.
func logitsDiff(t *testing.T, a, b string) float64 {
	t.Helper()
	var ls []*loop.Loop
	for _, p := range []string{a, b} {
		l, err := loop.Open(p, loop.Options{Threads: 1, MaxTokens: 32})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ls = append(ls, l)
	}
	in := []int{1644, 872, 198, 1707, 11, 1879}
	d := 0.0
	for range 5 {
		la, err := ls[0].Step(in)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := ls[1].Step(in)
		if err != nil {
			t.Fatal(err)
		}
		for i := range la {
			d = max(d, math.Abs(float64(la[i]-lb[i])))
		}
		row := la[len(la)-ls[0].Vocab():]
		next := 0
		for i, v := range row {
			if v > row[next] {
				next = i
			}
		}
		in = []int{next}
	}
	return d
}

// TestDQTwin: the int8 prompt twin of a q4 graph (weights inline or external) has every
// layer's MatMulNBits rewritten as MatMulIntegerToFloat (the LM head, above maxN, and the
// skipped names stay) and its logits stay near the published graph's through a prompt and
// greedy steps: int8 weights with a scale a column and activations with a scale a row are not
// exact, but a transposed or misscaled weight would be far off. TestDQTwinTrained checks the
// activations' scales on a trained model.
func TestDQTwin(t *testing.T) {
	if _, err := env.Init(testenv.ORTLibrary(t)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		external bool
		skip     string
		want     int
	}{
		{"inline", false, "", 2 * 7},
		{"external data", true, "", 2 * 7},
		{"down_proj skipped", true, "down_proj", 2 * 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := synth.Tiny()
			o.Quant, o.ExternalData = synth.QuantQ4, c.external
			o.Vocab = 2048
			dir := t.TempDir()
			if err := synth.Write(dir, o); err != nil {
				t.Fatal(err)
			}
			src := filepath.Join(dir, "onnx", o.Quant.File())
			out := t.TempDir()
			n, _, err := optimize.DQTwin(src, out, optimize.DQOptions{MaxN: 1024, Skip: c.skip})
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(out, filepath.Base(src))
			info, err := proto.ReadInfo(dst)
			if err != nil {
				t.Fatal(err)
			}
			if dq := info.Ops[proto.OpKey("com.microsoft", "MatMulIntegerToFloat")]; n != c.want || dq != c.want {
				t.Fatalf("%d nodes rewritten, %d MatMulIntegerToFloat in the twin; want %d", n, dq, c.want)
			}
			if left := info.Ops[proto.OpKey("com.microsoft", "MatMulNBits")]; left != 2*7+1-c.want {
				t.Fatalf("%d MatMulNBits left, want %d", left, 2*7+1-c.want)
			}
			d, sd := logitsDiffSD(t, src, dst)
			t.Logf("largest logit difference %.3g, %.3g of their standard deviation", d, d/sd)
			if d > 0.3*sd {
				t.Fatalf("logits differ by %.3g, %.2g of their standard deviation", d, d/sd)
			}
		})
	}
}

// logitsDiffSD is logitsDiff and the standard deviation of a's logits after the prompt.
func logitsDiffSD(t *testing.T, a, b string) (float64, float64) {
	t.Helper()
	l, err := loop.Open(a, loop.Options{Threads: 1, MaxTokens: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lg, err := l.Step([]int{1644, 872, 198, 1707, 11, 1879})
	if err != nil {
		t.Fatal(err)
	}
	row := lg[len(lg)-l.Vocab():]
	var sum, sq float64
	for _, v := range row {
		sum, sq = sum+float64(v), sq+float64(v)*float64(v)
	}
	nv := float64(len(row))
	return logitsDiff(t, a, b), math.Sqrt(sq/nv - (sum/nv)*(sum/nv))
}
