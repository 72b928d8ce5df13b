package synth

import (
	"edgechat/inference/sample"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// bundleHost runs layout D as onnxruntime-genai's decoder-pipeline does: embeddings, then ctx
// per 64-row window (prompt padded at the end) or iter per token, on one KV buffer of
// ContextLength rows; lm_head on the row wanted.
type bundleHost struct {
	o                    Options
	emb, ctx, iter, head *session
	past                 []ort.Value
	shared               bool // bind each KV buffer as both past and present
}

func openBundle(t testing.TB, o Options, shared bool) *bundleHost {
	t.Helper()
	dir := modelDir(t, o)
	b := &bundleHost{o: o, shared: shared}
	b.emb = openSession(t, filepath.Join(dir, BundleEmbeddingsFile), []string{"input_ids"}, []string{"input_hidden_states"})
	b.head = openSession(t, filepath.Join(dir, BundleLMHeadFile), []string{"output_hidden_states"}, []string{"logits"})
	for _, m := range []struct {
		s    **session
		file string
		seq  int
	}{{&b.ctx, BundleContextFile, o.PrefillLen}, {&b.iter, BundleIteratorFile, 1}} {
		in, out := bundleIO(o, m.seq)
		*m.s = openSession(t, filepath.Join(dir, m.file), names(in), names(out))
	}
	for range 2 * o.Layers {
		b.past = append(b.past, b.kvBuffer(t))
	}
	return b
}

func (b *bundleHost) kvBuffer(t testing.TB) ort.Value {
	return floatTensor(t, []int64{1, int64(b.o.KVHeads), int64(b.o.ContextLength), int64(b.o.HeadDim)}, b.o.KVFloat16, nil)
}

// hidden runs ids through embeddings and then ctx or iter, writing rows
// pastSeqLen+1-len(ids) … pastSeqLen of the KV buffer; it returns output_hidden_states.
func (b *bundleHost) hidden(t testing.TB, ids []int64, pastSeqLen int) []float32 {
	t.Helper()
	o, n := b.o, int64(len(ids))
	emb := floatTensor(t, []int64{1, n, int64(o.Hidden)}, false, nil)
	b.emb.run(t, []ort.Value{i64Tensor(t, []int64{1, n}, ids)}, []ort.Value{emb})
	sess := b.iter
	if n > 1 {
		sess = b.ctx
	}
	in := append([]ort.Value{emb}, b.past...)
	in = append(in, i32Tensor(t, []int64{1, 1}, []int32{int32(pastSeqLen)}), i32Tensor(t, []int64{1}, []int32{int32(o.ContextLength)}))
	out := []ort.Value{floatTensor(t, []int64{1, n, int64(o.Hidden)}, false, nil)}
	for _, p := range b.past {
		if b.shared {
			out = append(out, p)
		} else {
			out = append(out, b.kvBuffer(t))
		}
	}
	sess.run(t, in, out)
	b.past = out[1:]
	return floats(t, out[0])
}

func (b *bundleHost) logits(t testing.TB, row []float32) []float32 {
	t.Helper()
	out := floatTensor(t, []int64{1, 1, int64(b.o.Vocab)}, false, nil)
	b.head.run(t, []ort.Value{floatTensor(t, []int64{1, 1, int64(b.o.Hidden)}, false, row)}, []ort.Value{out})
	return floats(t, out)
}

// generate prefills prompt in windows and decodes n tokens greedily; it returns the logits of
// the last prompt token and of each decoded token but the last, and the decoded ids.
func (b *bundleHost) generate(t testing.TB, prompt []int64, n int) ([][]float32, []int64) {
	t.Helper()
	w, h := b.o.PrefillLen, b.o.Hidden
	padded := slices.Clone(prompt)
	for len(padded)%w != 0 {
		padded = append(padded, EndOfText)
	}
	var hs []float32
	for k := 0; k < len(padded); k += w {
		hs = b.hidden(t, padded[k:k+w], k+w-1)
	}
	last := (len(prompt) - 1) % w
	rows := [][]float32{b.logits(t, hs[last*h:(last+1)*h])}
	var ids []int64
	for p := len(prompt); len(ids) < n; p++ {
		next := int64(sample.Argmax(rows[len(rows)-1]))
		ids = append(ids, next)
		if len(ids) < n {
			rows = append(rows, b.logits(t, b.hidden(t, []int64{next}, p)))
		}
	}
	return rows, ids
}

// TestBundleMatchesDynamic compares layout D's logits for the last prompt token (prompts of 1,
// 63, 64 and 65 tokens around the 64-row window) and for two decoded tokens with the dynamic
// layout A model's. A float32 buffer agrees to 1e-4. A float16 buffer rounds queries, keys,
// values and rotary tables to float16 (11-bit mantissa: relative error ≤ 2^-11 ≈ 5e-4 each),
// which through 2 layers of large random weights moved logits of magnitude ~40 by at most 0.026
// (0.07%): there the bound is 0.3% of the largest |logit|, plus the same greedy tokens.
func TestBundleMatchesDynamic(t *testing.T) {
	dyn := openHF(t, Tiny())
	for _, tc := range []struct {
		fp16, shared bool
		tol          float64 // relative to the largest |logit|
	}{{false, false, 0}, {true, false, 0.003}, {true, true, 0.003}} {
		for _, n := range []int{1, 63, 64, 65} {
			t.Run(fmt.Sprintf("fp16=%v/shared=%v/len=%d", tc.fp16, tc.shared, n), func(t *testing.T) {
				o := Tiny()
				o.Layout, o.KVFloat16 = LayoutBundle, tc.fp16
				b := openBundle(t, o, tc.shared)
				prompt := make([]int64, n)
				for i := range prompt {
					prompt[i] = int64(i*7919+101) % 151000
				}
				got, decoded := b.generate(t, prompt, 3)
				ids := append(slices.Clone(prompt), decoded[:2]...)
				mask, pos := make([]int64, len(ids)), make([]int64, len(ids))
				for i := range ids {
					mask[i], pos[i] = 1, int64(i)
				}
				all, _ := dyn.step(t, ids, mask, pos, nil)
				v := o.Vocab
				for i, row := range got {
					r := n - 1 + i
					want := all[r*v : (r+1)*v]
					bound := 1e-4
					if tc.tol > 0 {
						bound = tc.tol * float64(max(want[sample.Argmax(want)], -want[argmin(want)]))
					}
					d := maxDiff(t, want, row)
					if !(d < bound) || sample.Argmax(want) != sample.Argmax(row) {
						t.Errorf("row %d: |Δ| = %g (bound %g), argmax %d want %d", r, d, bound, sample.Argmax(row), sample.Argmax(want))
					}
					if i == 0 {
						t.Logf("last prompt token: |Δ| = %.3g", d)
					}
				}
			})
		}
	}
}

func argmin(v []float32) int {
	best := 0
	for i, x := range v {
		if x < v[best] {
			best = i
		}
	}
	return best
}
