package grammar

import (
	"encoding/json"
	"testing"
	"time"

	"edgechat/internal/testkit/testenv"
	"edgechat/tokenizer"
)

// BenchmarkVocab builds the trie of Qwen3's 151,936-token vocabulary (once per tokenizer).
func BenchmarkVocab(b *testing.B) {
	tok, err := tokenizer.Load(testenv.TokenizerDir(b, "qwen3"))
	if err != nil {
		b.Fatal(err)
	}
	toks := make([][]byte, 151936)
	for id := range tok.VocabSize() {
		if t, ok := tok.TokenBytes(id); ok {
			toks[id] = t
		}
	}
	for b.Loop() {
		NewVocab(toks, 151936)
	}
}

// BenchmarkFirstMasks makes the masks of a tool-call-sized output once, from cold (no mask
// cached), over Qwen3's vocabulary: what the first reply with a schema pays.
func BenchmarkFirstMasks(b *testing.B) {
	v := realVocab(b, "qwen3")
	g, err := Compile(json.RawMessage(schemas[0].schema))
	if err != nil {
		b.Fatal(err)
	}
	out := []byte(`{"city": "Bern, the capital of Switzerland", "days": 3, "unit": "C"}`)
	for b.Loop() {
		ms := NewMasks(g, v)
		m := ms.Matcher()
		for i := range out {
			m.Mask()
			if err := m.AcceptBytes(out[i : i+1]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestMaskTimes logs what each kind of state costs to mask from cold (go test -v).
func TestMaskTimes(t *testing.T) {
	v := realVocab(t, "qwen3")
	t.Logf("vocabulary %d tokens, trie %d nodes", v.Size(), v.Nodes())
	start := time.Now()
	v.strings()
	t.Logf("string table: %v", time.Since(start))
	g, _ := Compile(json.RawMessage(schemas[1].schema))
	for _, prefix := range []string{``, `{`, `{"`, `{"na`, `{"name": `, `{"name": "Ber`, `{"name": "Bern", "x`, `{"name": "Bern", "x": [1, 2`} {
		ms := NewMasks(g, v)
		m := ms.Matcher()
		if err := m.AcceptBytes([]byte(prefix)); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		mask := m.Mask()
		n := 0
		for id := range v.size {
			if Allowed(mask, id) {
				n++
			}
		}
		t.Logf("after %-24q %8v  %6d tokens allowed", prefix, time.Since(start), n)
	}
}
