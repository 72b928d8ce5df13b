package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// weights are a model's parameters; matrices are stored [in, out] so that y = x·W.
type weights struct {
	embed  []float32 // [vocab, hidden], also the tied lm_head
	layers []layerWeights
	norm   []float32
	head   []float32 // [vocab, hidden] when the LM head is not the embedding (a dequantized twin)
}

// output is the LM head's matrix [vocab, hidden]: its own, or the tied embedding.
func (w *weights) output() []float32 {
	if w.head != nil {
		return w.head
	}
	return w.embed
}

type layerWeights struct {
	inNorm, q, k, v, qNorm, kNorm, o []float32
	postNorm, gate, up, down         []float32
}

// layerGain sets the output spread of every projection: std = layerGain/sqrt(fan_in) (0.3 at
// hidden 64). Weights this large keep the residual stream from staying near the input token's
// embedding, which with tied embeddings makes a model repeat its input (see docs/RUNTIME.md).
const layerGain = 2.4

// newWeights draws the parameters from o.Seed in a fixed order that depends only on the shape,
// or builds a copying model's (o.Copying; Validate has checked its shape).
func newWeights(o Options) *weights {
	if o.Copying {
		w, err := copyingWeights(o)
		if err != nil {
			panic(fmt.Sprintf("synth: unchecked options: %v", err))
		}
		return w
	}
	r := weightRand(o)
	normal := func(n int, std float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(r.NormFloat64() * std)
		}
		return out
	}
	gain := func(n int) []float32 { // norm weights near 1
		out := normal(n, 0.1)
		for i := range out {
			out[i]++
		}
		return out
	}
	proj := func(in, out int) []float32 { return normal(in*out, layerGain/math.Sqrt(float64(in))) }
	h, q, kv := o.Hidden, o.Heads*o.HeadDim, o.KVHeads*o.HeadDim
	w := &weights{embed: normal(o.Vocab*h, 1)}
	for range o.Layers {
		w.layers = append(w.layers, layerWeights{
			inNorm: gain(h), q: proj(h, q), k: proj(h, kv), v: proj(h, kv),
			qNorm: gain(o.HeadDim), kNorm: gain(o.HeadDim), o: proj(q, h),
			postNorm: gain(h), gate: proj(h, o.Intermediate), up: proj(h, o.Intermediate),
			down: proj(o.Intermediate, h),
		})
	}
	w.norm = gain(h)
	return w
}

// weightRand is the random stream a model's weights are drawn from: o.Seed's.
func weightRand(o Options) *rand.Rand { return rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15)) }

// invFreq is rotary embedding's inverse frequencies, computed as Hugging Face does in float32:
// 1 / theta^(2i/d).
func invFreq(o Options) []float32 {
	out := make([]float32, o.HeadDim/2)
	for i := range out {
		out[i] = float32(1 / math.Pow(o.RopeTheta, float64(2*i)/float64(o.HeadDim)))
	}
	return out
}
