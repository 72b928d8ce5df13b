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

// BenchmarkStep is what constrained decoding adds to each decoded token over Qwen3's
// vocabulary, replaying a reply token by token: the state's mask (made on first sight, then
// looked up), applying it to 151,936 logits, the room check on the chosen token, and
// advancing past it. Cold makes every mask anew each reply; warm keeps them, as a model
// does across replies with the same schema.
func BenchmarkStep(b *testing.B) {
	tok, err := tokenizer.Load(testenv.TokenizerDir(b, "qwen3"))
	if err != nil {
		b.Fatal(err)
	}
	v := realVocab(b, "qwen3")
	logits := make([]float32, 151936)
	for _, bc := range []struct{ name, schema, out string }{
		{"text field", `{"type":"object","properties":{"title":{"type":"string"},"text":{"type":"string"}},"required":["title","text"],"additionalProperties":false}`,
			`{"title": "Lighthouses", "text": "A lighthouse is a tower, building, or other type of physical structure designed to emit light from a system of lamps and lenses and to serve as a beacon for navigational aid for maritime pilots at sea or on inland waterways. Lighthouses mark dangerous coastlines, hazardous shoals, reefs, rocks, and safe entries to harbors; they also assist in aerial navigation."}`},
		{"structure", `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"kind":{"enum":["a","b","c"]},"score":{"type":"number"},"ok":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string","maxLength":8},"maxItems":4}},"required":["id","kind","score","ok","tags"],"additionalProperties":false}}},"required":["items"],"additionalProperties":false}`,
			`{"items": [{"id": 1, "kind": "a", "score": 0.5, "ok": true, "tags": ["red", "blue"]}, {"id": 22, "kind": "b", "score": 12.25, "ok": false, "tags": []}, {"id": 303, "kind": "c", "score": -1.5e3, "ok": true, "tags": ["x", "yy", "zzz"]}, {"id": 4, "kind": "a", "score": 7, "ok": false, "tags": ["last"]}]}`},
	} {
		g, err := Compile(json.RawMessage(bc.schema))
		if err != nil {
			b.Fatal(err)
		}
		ids := tok.Encode(bc.out)
		for _, warm := range []bool{false, true} {
			name := bc.name + "/cold"
			if warm {
				name = bc.name + "/warm"
			}
			shared := NewMasks(g, v)
			b.Run(name, func(b *testing.B) {
				var mk Masker
				for b.Loop() {
					ms := shared
					if !warm {
						ms = NewMasks(g, v)
					}
					m := ms.Matcher()
					for _, id := range ids {
						mk.Apply(logits, m.Mask())
						if _, ok := m.CompletionAfter(v.Bytes(id)); !ok {
							b.Fatalf("token %q refused", v.Bytes(id))
						}
						if err := m.Accept(id); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids))/1000, "µs/token")
			})
		}
	}
}
