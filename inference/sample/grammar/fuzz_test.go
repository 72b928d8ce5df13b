package grammar

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// byteVocab is a small vocabulary: every byte, and a few tokens of several bytes that cross
// grammar transitions.
func byteVocab() *Vocab {
	var toks [][]byte
	for b := range 256 {
		toks = append(toks, []byte{byte(b)})
	}
	for _, s := range []string{`{"`, `":`, `", "`, `"}`, `true`, `null`, `12`, `\u00`, "é", "\xe4\xbd", `],`, `[{"`, ` "a`} {
		toks = append(toks, []byte(s))
	}
	return NewVocab(toks, len(toks)+2)
}

// FuzzCompile compiles any schema without panicking; a schema that compiles yields outputs
// that are JSON, whatever tokens a model picks among those allowed.
func FuzzCompile(f *testing.F) {
	for _, sc := range schemas {
		f.Add(sc.schema, uint64(1))
	}
	v := byteVocab()
	f.Fuzz(func(t *testing.T, schema string, seed uint64) {
		g, err := Compile(json.RawMessage(schema))
		if err != nil {
			return
		}
		out := randomOutput(t, NewMasks(g, v), rand.New(rand.NewPCG(seed, 9)), 20, 0.5)
		if !json.Valid(out) {
			t.Fatalf("schema %s: output %q is not JSON", schema, out)
		}
	})
}
