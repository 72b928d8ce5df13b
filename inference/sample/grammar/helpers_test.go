package grammar

import (
	"math/rand/v2"
	"sync"
	"testing"

	"edgechat/internal/testkit/testenv"
	"edgechat/tokenizer"
)

var (
	vocabMu sync.Mutex
	vocabs  = map[string]*Vocab{}
)

// realVocab is the vocabulary of a real tokenizer (tools/setup.sh installs them).
func realVocab(t testing.TB, name string) *Vocab {
	t.Helper()
	dir := testenv.TokenizerDir(t, name)
	vocabMu.Lock()
	defer vocabMu.Unlock()
	if v, ok := vocabs[name]; ok {
		return v
	}
	tok, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	toks := make([][]byte, tok.VocabSize())
	for id := range toks {
		if b, ok := tok.TokenBytes(id); ok {
			toks[id] = b
		}
	}
	v := NewVocab(toks, tok.VocabSize())
	vocabs[name] = v
	return v
}

// randomOutput writes an output the way a model with random weights would under the grammar:
// a random allowed token each step (the end when allowed, with probability pEnd), and when
// budget bytes are nearly used, the shortest completion.
func randomOutput(t testing.TB, ms *Masks, rng *rand.Rand, budget int, pEnd float64) []byte {
	t.Helper()
	m := ms.Matcher()
	var out []byte
	for steps := 0; ; steps++ {
		if m.Done() || (m.CanEnd() && rng.Float64() < pEnd) {
			return out
		}
		if steps >= budget {
			c := m.Completion()
			if err := m.AcceptBytes(c); err != nil {
				t.Fatalf("completion %q refused after %q", c, out)
			}
			if !m.CanEnd() {
				t.Fatalf("completion %q of %q does not end the value", c, out)
			}
			return append(out, c...)
		}
		mask := m.Mask()
		var allowed []int
		for id := range ms.v.size {
			if Allowed(mask, id) {
				allowed = append(allowed, id)
			}
		}
		if len(allowed) == 0 {
			t.Fatalf("no token allowed after %q", out)
		}
		id := allowed[rng.IntN(len(allowed))]
		if err := m.Accept(id); err != nil {
			t.Fatalf("masked token %d %q refused after %q", id, ms.v.Bytes(id), out)
		}
		out = append(out, ms.v.Bytes(id)...)
	}
}
