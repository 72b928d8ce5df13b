package decoder

import (
	"slices"
	"testing"

	"edgechat/internal/testkit/synth"
)

// greedyTo decodes greedily until d caches n tokens (prompt first) and returns the ids decoded.
func greedyTo(t testing.TB, d *dynamicDecoder, prompt []int, n int) []int {
	t.Helper()
	return greedyDecode(t, d, prompt, n-len(d.Cached())-len(prompt)+1)
}

// A GroupQueryAttention graph runs on one buffer set that the graph appends to in place, and
// gives the greedy ids of the same graph on ping-pong buffers over a generation that grows the
// buffers twice (256 → 512 → 600 rows), in half the memory, with float32 and float16 caches.
func TestSharedKVMatchesPingPong(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model string
	}{
		{"float32", tinyGenAIInt4(t)},
		{"float16", synthModel(t, "tiny-genai-int4-fp16", func(o *synth.Options) {
			o.Layout, o.Quant, o.KVFloat16 = synth.LayoutGenAI, synth.QuantGenAIInt4, true
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared, pp := openDynamic(t, tc.model, dynOpts{max: 600}), openDynamic(t, tc.model, dynOpts{max: 600, pingPong: true})
			if !shared.kv.shared || pp.kv.shared {
				t.Fatalf("shared buffer: %v on the GQA graph, %v when forced off", shared.kv.shared, pp.kv.shared)
			}
			if want := map[string]int{"float32": 4, "float16": 2}[tc.name]; shared.kv.elem != want {
				t.Fatalf("%d bytes per cache element, want %d", shared.kv.elem, want)
			}
			prompt := vocabIDs(40, 6, shared.Vocab())
			a, b := greedyTo(t, shared, prompt, 600), greedyTo(t, pp, prompt, 600)
			requireVaried(t, a[:50])
			requireVaried(t, a[len(a)-50:])
			if !slices.Equal(a, b) {
				i := 0
				for i < min(len(a), len(b)) && a[i] == b[i] {
					i++
				}
				t.Fatalf("shared buffer and ping-pong part at token %d of %d", i, len(a))
			}
			if shared.kv.capTokens != 600 || len(shared.Cached()) != 600 {
				t.Errorf("capacity %d, cached %d; want 600 and 600", shared.kv.capTokens, len(shared.Cached()))
			}
			if got, want := shared.KVBytes(), pp.KVBytes()/2; got != want || got != int64(600*shared.kv.bytesPerToken()) {
				t.Errorf("KVBytes %d shared, %d ping-pong; want half", got, pp.KVBytes())
			}
		})
	}
}

// Truncating a shared buffer is a length change: the decoder then goes on as a fresh one fed
// the kept tokens, whether the cut falls before a growth of the buffer or not.
func TestSharedKVTruncateContinues(t *testing.T) {
	model := tinyGenAIInt4(t)
	for _, tc := range []struct{ before, keep int }{{120, 70}, {300, 100}, {300, 290}} {
		d := openDynamic(t, model, dynOpts{})
		prompt := vocabIDs(30, 7, d.Vocab())
		greedyTo(t, d, prompt, tc.before)
		d.Truncate(tc.keep)
		kept := slices.Clone(d.Cached())
		if len(kept) != tc.keep || d.kv.n != tc.keep {
			t.Fatalf("after Truncate(%d): %d ids, %d rows", tc.keep, len(kept), d.kv.n)
		}
		fresh := openDynamic(t, model, dynOpts{})
		next := vocabIDs(1, 8, d.Vocab())
		got := greedyDecode(t, d, next, 40)
		forward(t, fresh, kept)
		if want := greedyDecode(t, fresh, next, 40); !slices.Equal(got, want) {
			t.Errorf("%d cached, kept %d: %v, fresh %v", tc.before, tc.keep, got, want)
		}
	}
}

// A snapshot of a shared buffer, restored after the buffer grew (its heads now lie further
// apart), gives back the cache: the decoder goes on as before the snapshot.
func TestSharedKVSnapshotRestore(t *testing.T) {
	model := tinyGenAIInt4(t)
	d := openDynamic(t, model, dynOpts{})
	prompt := vocabIDs(50, 9, d.Vocab())
	forward(t, d, prompt)
	st, size := d.Snapshot()
	if want := int64(50 * d.kv.bytesPerToken()); size != want {
		t.Errorf("snapshot size %d, want %d", size, want)
	}
	next := vocabIDs(1, 10, d.Vocab())
	want := greedyDecode(t, d, next, 30)
	greedyTo(t, d, vocabIDs(1, 11, d.Vocab()), 400) // grows the buffer to 512 rows
	d.Restore(st)
	if !slices.Equal(d.Cached(), prompt) {
		t.Fatalf("restored %d ids, want the %d of the snapshot", len(d.Cached()), len(prompt))
	}
	if got := greedyDecode(t, d, next, 30); !slices.Equal(got, want) {
		t.Errorf("after restore %v, before %v", got, want)
	}
}
