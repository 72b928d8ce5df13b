package synth

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// copyingOptions is SmallCopying quantized as q.
func copyingOptions(q Quant) Options {
	o := SmallCopying()
	o.Quant = q
	return o
}

// TestCopyingModelQuotes: after a passage of random tokens and the start of it again, greedy
// decoding goes on with the passage, token for token, in float32 and in int4; and a prompt
// that repeats nothing is not quoted from.
func TestCopyingModelQuotes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	passage := make([]int64, 120)
	for i := range passage {
		passage[i] = int64(r.IntN(4000)) + 10
	}
	filler := []int64{1, 2, 3, 4, 5, 6}
	prompt := slices.Concat(passage, filler, passage[:30])
	want := passage[30:90]
	for _, q := range []Quant{QuantNone, QuantQ4} {
		name := string(q)
		if q == QuantNone {
			name = "float32"
		}
		t.Run(name, func(t *testing.T) {
			m := openHF(t, copyingOptions(q))
			if got := m.greedy(t, prompt, len(want)); !slices.Equal(got, want) {
				t.Errorf("quoted %v,\nwant %v", got, want)
			}
			// The reply is context too: after the passage's end comes its opening, as in the
			// prompt, so the quote goes round.
			loop := slices.Concat(passage[5:40], passage[:5])
			if got := m.greedy(t, slices.Concat(passage[:40], passage[:5]), len(loop)); !slices.Equal(got, loop) {
				t.Errorf("after the passage's opening again: %v, want %v", got, loop)
			}
		})
	}
}

// TestCopyingShapeChecked: shapes that cannot hold the circuit are refused with the reason.
func TestCopyingShapeChecked(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"one layer", func(o *Options) { o.Layers = 1 }, "2 layers or more"},
		{"one kv head", func(o *Options) { o.Heads, o.KVHeads = 4, 1 }, "2 KV heads or more"},
		{"narrow", func(o *Options) { o.Hidden = 512 }, "hidden ≥ 4 × head_dim + 1"},
		{"small heads", func(o *Options) { o.HeadDim, o.Hidden = 16, 544 }, "rotary pairs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := copyingOptions(QuantNone)
			c.edit(&o)
			err := o.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate() = %v, want an error saying %q", err, c.want)
			}
		})
	}
	if err := copyingOptions(QuantQ4).Validate(); err != nil {
		t.Errorf("the test shape: %v", err)
	}
	if err := func() Options { o := Qwen3Shape(); o.Copying = true; return o }().Validate(); err != nil {
		t.Errorf("Qwen3's shape: %v", err)
	}
}
