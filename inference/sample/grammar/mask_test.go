package grammar

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// schemas exercise every construct the grammar knows.
var schemas = []struct{ name, schema string }{
	{"object", `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":7},"unit":{"enum":["C","F"]}},"required":["city"],"additionalProperties":false}`},
	{"open_object", `{"type":"object","properties":{"name":{"type":"string"},"nickname":{"type":"string"}},"required":["name"]}`},
	{"nested_refs", `{"$defs":{"item":{"type":"object","properties":{"id":{"type":"integer"},"tags":{"type":"array","items":{"type":"string","maxLength":4},"maxItems":3},"child":{"anyOf":[{"$ref":"#/$defs/item"},{"type":"null"}]}},"required":["id","child"],"additionalProperties":false}},"type":"array","items":{"$ref":"#/$defs/item"},"minItems":1,"maxItems":2}`},
	{"anyof_objects", `{"anyOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"],"additionalProperties":false},{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number","minimum":0}},"required":["kind","side"],"additionalProperties":false}]}`},
	{"scalars", `{"type":"object","properties":{"b":{"type":"boolean"},"n":{"type":["number","null"]},"s":{"type":"string","minLength":2,"maxLength":5},"c":{"const":{"x":[1,"é"]}},"t":{"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}},"required":["b","n","s","c","t"],"additionalProperties":false}`},
	{"any", `{}`},
}

// schemaMasks compiles schema for v and gives a random source seeded by seed and the schema.
func schemaMasks(t *testing.T, schema string, v *Vocab, seed uint64) (*Masks, *rand.Rand) {
	t.Helper()
	g, err := Compile(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return NewMasks(g, v), rand.New(rand.NewPCG(seed, uint64(len(schema))))
}

// TestMaskMatchesBruteForce compares each mask along random outputs with the tokens the
// grammar accepts when tried one by one.
func TestMaskMatchesBruteForce(t *testing.T) {
	v := realVocab(t, "qwen3")
	if testing.Short() {
		t.Skip("slow: tries every token at every step")
	}
	for _, sc := range schemas {
		t.Run(sc.name, func(t *testing.T) {
			ms, rng := schemaMasks(t, sc.schema, v, 7)
			m := ms.Matcher()
			var out []byte
			for step := 0; step < 6 && !m.Done(); step++ {
				mask := m.Mask()
				var allowed []int
				for id := range v.size {
					probe := &Matcher{ms: ms}
					probe.cur.copyFrom(&m.cur)
					want := v.Bytes(id) != nil && probe.AcceptBytes(v.Bytes(id)) == nil
					if want != Allowed(mask, id) {
						t.Fatalf("after %q: token %d %q: mask says %v, the grammar %v", out, id, v.Bytes(id), Allowed(mask, id), want)
					}
					if want {
						allowed = append(allowed, id)
					}
				}
				id := allowed[rng.IntN(len(allowed))]
				if err := m.Accept(id); err != nil {
					t.Fatal(err)
				}
				out = append(out, v.Bytes(id)...)
			}
		})
	}
}

// TestRandomOutputsParse writes outputs with random tokens under every schema: each must be
// JSON, completed in time.
func TestRandomOutputsParse(t *testing.T) {
	v := realVocab(t, "qwen3")
	for _, sc := range schemas {
		t.Run(sc.name, func(t *testing.T) {
			ms, rng := schemaMasks(t, sc.schema, v, 3)
			for range 8 {
				out := randomOutput(t, ms, rng, 30, 0.3)
				if !json.Valid(out) {
					t.Errorf("not JSON: %q", out)
				}
			}
		})
	}
}

// TestDoneAtNumberLimits: a top-level number that can take no other byte ends the value —
// Done, with nothing allowed after it — while one that can still grow is not Done.
func TestDoneAtNumberLimits(t *testing.T) {
	for _, c := range []struct {
		schema, out string
		done        bool
	}{
		{`{}`, `38E472`, true},
		{`{}`, `38E47`, false},
		{`{}`, `1.5`, false},
		{`{}`, `123456789012345`, false}, // a fraction or an exponent may follow
		{`{"type":"integer"}`, `123456789012345`, true},
		{`{"type":"integer"}`, `0`, true},
		{`{"type":"integer"}`, `-0`, true},
		{`{"type":"integer"}`, `12`, false},
		{`{"type":"array"}`, `[38E472`, false},
		{`{"type":"boolean"}`, `true`, true},
	} {
		ms, _ := schemaMasks(t, c.schema, byteVocab(), 1)
		m := ms.Matcher()
		if err := m.AcceptBytes([]byte(c.out)); err != nil {
			t.Fatalf("%s: %q refused", c.schema, c.out)
		}
		if m.Done() != c.done {
			t.Errorf("%s: Done after %q = %v, want %v", c.schema, c.out, m.Done(), c.done)
		}
		if !m.Done() {
			continue
		}
		mask := m.Mask()
		for id := range ms.v.size {
			if Allowed(mask, id) {
				t.Errorf("%s: token %q allowed after %q, which is Done", c.schema, ms.v.Bytes(id), c.out)
				break
			}
		}
	}
}
