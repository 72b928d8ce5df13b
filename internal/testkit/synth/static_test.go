package synth

import (
	"edgechat/inference/sample"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// staticHost runs layout C the way an app does: one right-aligned host cache buffer of M rows
// per layer and kind, shared by the prefill (S rows) and gen (1 row) models.
type staticHost struct {
	o       Options
	prefill *session
	gen     *session
	cache   [][]float32 // [2·layers][kv·M·hd], keys then values per layer
	step    int         // real tokens so far
}

func openStatic(t testing.TB, o Options) *staticHost {
	t.Helper()
	dir := modelDir(t, o)
	h := &staticHost{o: o}
	for _, m := range []struct {
		s    **session
		file string
		seq  int
	}{{&h.prefill, StaticPrefillFile, o.PrefillLen}, {&h.gen, StaticGenFile, 1}} {
		in, out := staticSpec(o, m.seq).io(o)
		*m.s = openSession(t, filepath.Join(dir, m.file), names(in), names(out))
	}
	for range 2 * o.Layers {
		h.cache = append(h.cache, make([]float32, o.KVHeads*o.MaxCache*o.HeadDim))
	}
	return h
}

// run feeds real tokens ids (left-padded with id 0 to a prefill chunk when more than one) and
// returns the logits rows of the real tokens.
func (h *staticHost) run(t testing.TB, ids []int64) [][]float32 {
	t.Helper()
	o, n, m := h.o, len(ids), h.o.MaxCache
	s, sess := 1, h.gen
	if n > 1 || h.step == 0 {
		s, sess = o.PrefillLen, h.prefill
	}
	pad := s - n
	in32, pos := make([]int32, s), make([]int64, s) // pad slots: id 0, position 0
	for i, id := range ids {
		in32[pad+i], pos[pad+i] = int32(id), int64(h.step+i)
	}
	// The mask describes the buffer after the graph's shift: the newest min(step+n, M) rows.
	mask := make([]int64, m)
	for j := m - min(h.step+n, m); j < m; j++ {
		mask[j] = 1
	}
	kvShape := []int64{1, int64(o.KVHeads), int64(m), int64(o.HeadDim)}
	in := []ort.Value{i32Tensor(t, []int64{1, int64(s)}, in32), i64Tensor(t, []int64{1, int64(m)}, mask), i64Tensor(t, []int64{1, int64(s)}, pos)}
	out := []ort.Value{floatTensor(t, []int64{1, int64(s), int64(o.Vocab)}, false, nil)}
	for _, c := range h.cache {
		in = append(in, floatTensor(t, kvShape, false, c))
		out = append(out, floatTensor(t, []int64{1, int64(o.KVHeads), int64(s), int64(o.HeadDim)}, false, nil))
	}
	sess.run(t, in, out)
	// Host side: drop the oldest n rows and append the n real new rows (the last of present).
	hd := o.HeadDim
	for i, c := range h.cache {
		present := floats(t, out[1+i])
		for k := range o.KVHeads {
			head := c[k*m*hd : (k+1)*m*hd]
			copy(head, head[n*hd:])
			copy(head[(m-n)*hd:], present[(k*s+pad)*hd:(k+1)*s*hd])
		}
	}
	h.step += n
	logits := floats(t, out[0])
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = logits[(pad+i)*o.Vocab : (pad+i+1)*o.Vocab]
	}
	return rows
}

// TestStaticMatchesDynamic runs a prompt longer than one chunk through layout C (first chunk
// partial and left-padded, then a full chunk, then token-by-token decoding) and compares every
// real token's logits with the dynamic layout A model's single pass over the same tokens.
func TestStaticMatchesDynamic(t *testing.T) {
	o := Tiny()
	o.Layout = LayoutStatic
	h := openStatic(t, o)
	ids := make([]int64, o.PrefillLen+10)
	for i := range ids {
		ids[i] = int64(i*7919+13) % 151000
	}
	first := len(ids) % o.PrefillLen
	got := h.run(t, ids[:first])
	for start := first; start < len(ids); start += o.PrefillLen {
		got = append(got, h.run(t, ids[start:start+o.PrefillLen])...)
	}
	for range 4 { // decode with the gen model
		next := int64(sample.Argmax(got[len(got)-1]))
		ids = append(ids, next)
		got = append(got, h.run(t, []int64{next})...)
	}

	dyn := openHF(t, Tiny())
	mask, pos := make([]int64, len(ids)), make([]int64, len(ids))
	for i := range ids {
		mask[i], pos[i] = 1, int64(i)
	}
	want, _ := dyn.step(t, ids, mask, pos, nil)
	worst := 0.0
	for i, row := range got {
		d := maxDiff(t, want[i*o.Vocab:(i+1)*o.Vocab], row)
		if !(d < 1e-4) {
			t.Errorf("token %d: static logits differ from dynamic by %g", i, d)
		}
		worst = max(worst, d)
	}
	t.Logf("%d tokens, max |Δ| = %.3g", len(got), worst)
}
