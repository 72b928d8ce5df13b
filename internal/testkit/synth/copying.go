package synth

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// A copying model's weights form an induction circuit, the mechanism by which trained language
// models repeat text from their context: it predicts the token that followed the last two
// tokens where they occurred before. Everything else about the model (shape, operators,
// quantization, so the cost of a run) is its shape's, so it stands for a trained model that
// quotes, rewrites or reuses a passage: the workload prompt-lookup decoding is for.
//
// The residual stream holds four codes of headDim dimensions and a constant:
//
//	tok   the input token's code (the embedding)
//	prev  the code of the token one back, written by layer 0
//	prev2 the code of the token two back, written by layer 0
//	out   the predicted token's code, written by layer 1 and read by the untied LM head
//	one   a constant 1, from which layer 0 builds its position-only queries and keys
//
// Layer 0 has two heads that attend by position only, one and two tokens back: their queries
// and keys are constant vectors in the fast rotary pairs, arranged so that the rotation makes
// q·k largest at that distance. Layer 1's head matches its query, (tok, prev) in the slow
// rotary pairs, which hardly turn over the whole context, against each earlier key (prev,
// prev2): where the two tokens before position j are the two last ones, it copies token j's
// code to out. The layers after it, and every MLP, add nothing (zero output weights).

const (
	// copyFastPairs is how many of the fastest rotary pairs layer 0 builds its position-only
	// attention from.
	copyFastPairs = 16
	// copySlowTurn bounds how far a slow pair may turn over copyContext positions: cos 0.25
	// is 0.97, so a match scores the same anywhere in the context.
	copySlowTurn = 0.25
	copyContext  = 4096
	// copyMinSlow is the fewest slow pairs a model needs: its query compares 2 × this many
	// code dimensions.
	copyMinSlow = 8
	// copyGain is every q_norm and k_norm weight: scores come out at up to
	// copyGain² · √headDim (181 at head_dim 128), so that the head attends where the match is.
	copyGain = 4
)

// SmallCopying is the smallest shape that holds the circuit, with Copying set: head_dim 128
// (Qwen3's, so its rotary pairs), hidden 4 × 128 + 32, 2 layers, a 4,096-token vocabulary.
func SmallCopying() Options {
	o := Tiny()
	o.Layers, o.Hidden, o.Heads, o.KVHeads, o.HeadDim, o.Intermediate, o.Vocab = 2, 544, 4, 2, 128, 64, 4096
	o.Copying = true
	return o
}

// copyPlan is where the circuit's pieces sit in the residual stream and the head dimensions.
type copyPlan struct {
	d                     int // code width (head_dim)
	tok, prev, prev2, out int // residual offsets of the codes
	one                   int // residual index of the constant
	fast, slow            []int
	theta                 []float64 // rotary angle per position of each pair
	// codeScale is the embedding's RMS: the normed stream carries each code at 1/codeScale,
	// so layer outputs written back at codeScale keep every code at the embedding's size.
	codeScale float32
}

// planCopy lays the circuit out in o's shape, or says why the shape cannot hold it.
func planCopy(o Options) (copyPlan, error) {
	d := o.HeadDim
	p := copyPlan{d: d, tok: 0, prev: d, prev2: 2 * d, out: 3 * d, one: o.Hidden - 1}
	var errs []error
	if o.Layers < 2 {
		errs = append(errs, fmt.Errorf("a copying model needs 2 layers or more, got %d", o.Layers))
	}
	if o.KVHeads < 2 {
		errs = append(errs, fmt.Errorf("a copying model needs 2 KV heads or more, got %d", o.KVHeads))
	}
	if o.Hidden < 4*d+1 {
		errs = append(errs, fmt.Errorf("a copying model needs hidden ≥ 4 × head_dim + 1 (%d), got %d", 4*d+1, o.Hidden))
	}
	for i, f := range invFreq(o) {
		p.theta = append(p.theta, float64(f))
		switch {
		case i < copyFastPairs:
			p.fast = append(p.fast, i)
		case float64(f)*copyContext <= copySlowTurn:
			p.slow = append(p.slow, i)
		}
	}
	if len(p.fast) < copyFastPairs || len(p.slow) < copyMinSlow {
		errs = append(errs, fmt.Errorf("a copying model needs %d rotary pairs turning at most %.2f rad over %d positions and %d others; head_dim %d with rope theta %g has %d and %d",
			copyMinSlow, copySlowTurn, copyContext, copyFastPairs, d, o.RopeTheta, len(p.slow), len(p.fast)))
	}
	p.codeScale = float32(math.Sqrt(float64(d+1) / float64(o.Hidden)))
	return p, errors.Join(errs...)
}

// copyingWeights builds the induction circuit in o's shape; the token codes come from o.Seed.
func copyingWeights(o Options) (*weights, error) {
	p, err := planCopy(o)
	if err != nil {
		return nil, err
	}
	r := weightRand(o)
	h, d, q, kv := o.Hidden, o.HeadDim, o.Heads*o.HeadDim, o.KVHeads*o.HeadDim
	ones := func(n int, v float32) []float32 { return slices.Repeat([]float32{v}, n) }
	w := &weights{embed: make([]float32, o.Vocab*h), head: make([]float32, o.Vocab*h), norm: ones(h, 1)}
	code := make([]float64, d)
	for t := range o.Vocab {
		var sq float64
		for i := range code {
			code[i] = r.NormFloat64()
			sq += code[i] * code[i]
		}
		norm := math.Sqrt(float64(d) / sq) // every code the same length: entries of RMS 1
		for i, c := range code {
			w.embed[t*h+p.tok+i] = float32(c * norm)
			w.head[t*h+p.out+i] = float32(c * norm)
		}
		w.embed[t*h+p.one] = 1
	}
	for l := range o.Layers {
		w.layers = append(w.layers, layerWeights{
			inNorm: ones(h, 1), q: make([]float32, h*q), k: make([]float32, h*kv), v: make([]float32, h*kv),
			qNorm: ones(d, copyGain), kNorm: ones(d, copyGain), o: make([]float32, q*h),
			postNorm: ones(h, 1), gate: make([]float32, h*o.Intermediate), up: make([]float32, h*o.Intermediate),
			down: make([]float32, o.Intermediate*h),
		})
		switch l {
		case 0: // query head 0 (KV head 0) looks one back; the first query head of KV head 1, two
			p.lookBack(&w.layers[0], o, 0, 0, 1, p.prev)
			p.lookBack(&w.layers[0], o, o.kvRep(), 1, 2, p.prev2)
		case 1:
			p.match(&w.layers[1], o)
		}
	}
	return w, nil
}

// set writes m[row, col] of a matrix stored [in, out] with n columns.
func set(m []float32, n, row, col int, v float32) { m[row*n+col] = v }

// pairDims are the two head dimensions rotary pair i turns (rotate_half layout).
func (p copyPlan) pairDims(i int) (int, int) { return i, i + p.d/2 }

// lookBack makes query head qh (KV head kvh) of lw attend back positions behind itself, by
// position alone, and write the token code found there at dst.
func (p copyPlan) lookBack(lw *layerWeights, o Options, qh, kvh, back, dst int) {
	nq, nkv := o.Heads*p.d, o.KVHeads*p.d
	for _, i := range p.fast {
		// q = (1, 0) and k = (cos bθ, sin bθ) in pair i: q·k after rotation by the positions
		// m (query) and n (key) is cos((m−n−b)θ), largest at m−n = b.
		x, y := p.pairDims(i)
		a := float64(back) * p.theta[i]
		set(lw.q, nq, p.one, qh*p.d+x, 1)
		set(lw.k, nkv, p.one, kvh*p.d+x, float32(math.Cos(a)))
		set(lw.k, nkv, p.one, kvh*p.d+y, float32(math.Sin(a)))
	}
	p.copyValue(lw, o, qh, kvh, dst)
}

// match makes layer 1's query head 0 (KV head 0) compare (tok, prev) at the query with
// (prev, prev2) at each key, in the slow pairs, and write the matched position's token code
// to out.
func (p copyPlan) match(lw *layerWeights, o Options) {
	nq, nkv := o.Heads*p.d, o.KVHeads*p.d
	dims := make([]int, 0, 2*len(p.slow))
	for _, i := range p.slow {
		x, y := p.pairDims(i)
		dims = append(dims, x, y)
	}
	half := len(p.slow) // code dimensions each half of the query compares
	for c := range half {
		a, b := dims[c], dims[half+c]
		set(lw.q, nq, p.tok+c, a, 1)
		set(lw.q, nq, p.prev+c, b, 1)
		set(lw.k, nkv, p.prev+c, a, 1)
		set(lw.k, nkv, p.prev2+c, b, 1)
	}
	p.copyValue(lw, o, 0, 0, p.out)
}

// copyValue makes KV head kvh's values the token code, and query head qh's output land at dst.
func (p copyPlan) copyValue(lw *layerWeights, o Options, qh, kvh, dst int) {
	nkv, h := o.KVHeads*p.d, o.Hidden
	for c := range p.d {
		set(lw.v, nkv, p.tok+c, kvh*p.d+c, 1)
		set(lw.o, h, qh*p.d+c, dst+c, p.codeScale)
	}
}
