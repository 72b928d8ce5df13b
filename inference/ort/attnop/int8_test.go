//go:build cgo && (amd64 || arm64) && (linux || windows)

package attnop

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// int8DecodeTol is how far (relative to the output's largest magnitude) an int8 cache's decode
// step on decode8.c's integer loops may stray from GroupQueryAttention's on the same cache: the
// query and the block's weights are rounded to int16 (2^-16 of their largest magnitude), which
// moves scores of ~4 by ~2e-4 on the tests' random data and outputs by up to ~1e-4. The cache's
// own rounding moves them ~100 times as far (TestInt8DecodeUnderCacheError).
const int8DecodeTol = 3e-4

// relDiff is max |a − b| over the largest |a|.
func relDiff(a, b []float32) float64 {
	worst, scale := 0.0, 0.0
	for i, w := range a {
		worst = max(worst, math.Abs(float64(w-b[i])))
		scale = max(scale, math.Abs(float64(w)))
	}
	if math.IsNaN(worst) {
		return math.Inf(1)
	}
	return worst / scale
}

// floatCache is a float32 cache that the int8 one (k8, v8; scales ks, vs per channel) rounds:
// each element its int8 step plus a uniform offset within half a step.
func floatCache(t testing.TB, c call, k8, v8 ort.Value, ks, vs []float32) (k, v ort.Value) {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 5))
	conv := func(x ort.Value, sc []float32) ort.Value {
		b := x.(*ort.Tensor[int8]).GetData()
		f := make([]float32, len(b))
		for i, q := range b {
			ch := i/(c.bufRows()*c.sh.dim)*c.sh.dim + i%c.sh.dim
			f[i] = (float32(q) + 0.98*(r.Float32()-0.5)) * sc[ch]
		}
		y, err := ort.NewTensor(x.GetShape(), f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { y.Destroy() })
		return y
	}
	return conv(k8, ks), conv(v8, vs)
}

// TestInt8DecodeUnderCacheError checks the integer loops' rounding against the int8 cache's own
// error on decode steps: the operator's output stays within int8DecodeTol of GroupQueryAttention's
// on the same int8 cache, and that difference is under a tenth of the cache's own error
// (GroupQueryAttention on a float32 cache that rounds to the int8 one against GroupQueryAttention
// on the int8 cache).
func TestInt8DecodeUnderCacheError(t *testing.T) {
	initORT(t)
	for _, sh := range []shape{qwen3, small, {32, 4, 64}, {8, 8, 256}} {
		ks, vs := scales(sh)
		sd := openSides(t, sh, true)
		f32 := session(t, gqaModel("com.microsoft", sh, false, positions, nil, nil))
		for _, past := range []int{0, 31, 100, 1000, 2050} {
			c := call{sh: sh, quant: true, past: past, newRows: 1}
			t.Run(fmt.Sprintf("%dx%dx%d/past=%d", sh.heads, sh.kv, sh.dim, past), func(t *testing.T) {
				in := newInputs(t, c, 3)
				want, _, _, err := run(t, sd.gqa, c, in)
				if err != nil {
					t.Fatal(err)
				}
				got, _, _, err := run(t, sd.op, c, in)
				if err != nil {
					t.Fatal(err)
				}
				k8, v8 := newCache(t, c, 11) // the int8 cache before the call
				kf, vf := floatCache(t, c, k8, v8, ks, vs)
				ref, err := runOn(t, f32, c, in, kf, vf)
				if err != nil {
					t.Fatal(err)
				}
				ours, cache := relDiff(want, got), relDiff(ref, want)
				t.Logf("ours %.2e of the largest output, the cache's %.2e (%.0f×)", ours, cache, cache/ours)
				if ours > int8DecodeTol || ours > cache/10 {
					t.Errorf("output %.2e from GroupQueryAttention's on the int8 cache (tolerance %.0e), the cache's own error %.2e: want under a tenth of it", ours, int8DecodeTol, cache)
				}
			})
		}
	}
}
