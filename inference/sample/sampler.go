// Package sample picks the next token from a model's logits: repetition and presence
// penalties, temperature, top-k, top-p and min-p, then a seeded random draw, in the order
// Hugging Face transformers applies them.
package sample

import (
	"math"
	"math/rand/v2"
)

// Params configure a Sampler. Zero values switch a step off: Temperature 0 is greedy, TopK 0
// keeps every token, TopP 0 or 1 and MinP 0 filter nothing, RepetitionPenalty 0 or 1 and
// PresencePenalty 0 change nothing.
type Params struct {
	Temperature float64
	// TopK keeps the K most likely tokens; 1 is greedy.
	TopK int
	// TopP keeps the most likely tokens whose probabilities add up to TopP (nucleus).
	TopP float64
	// MinP drops tokens less likely than MinP times the most likely one.
	MinP float64
	// RepetitionPenalty divides the positive logits of tokens already in the history and
	// multiplies the negative ones (transformers' repetition_penalty, > 1 discourages).
	RepetitionPenalty float64
	// PresencePenalty is subtracted from the logit of every token already in the history
	// (OpenAI's presence_penalty).
	PresencePenalty float64
	// Seed seeds the random draw: the same seed, logits and history give the same tokens.
	Seed int64
}

// Sampler draws tokens for one stream. It holds scratch space for a whole vocabulary, so
// Sample does not allocate. A Sampler is not safe for concurrent use.
type Sampler struct {
	p     Params
	vocab int
	rng   *rand.Rand

	cand []int32   // candidate token ids
	val  []float64 // their logits, then their weights

	seen  []uint32 // seen[id] == stamp: id is in this call's history
	stamp uint32
	saved []savedLogit // penalized ids with their original logits, restored before returning
}

type savedLogit struct {
	id    int32
	logit float32
}

// New returns a Sampler for logits of length vocab.
func New(p Params, vocab int) *Sampler {
	return &Sampler{
		p:     p,
		vocab: vocab,
		rng:   rand.New(rand.NewPCG(uint64(p.Seed), 0x9e3779b97f4a7c15)),
		cand:  make([]int32, vocab),
		val:   make([]float64, vocab),
		seen:  make([]uint32, vocab),
		saved: make([]savedLogit, 0, vocab),
	}
}

// Params returns the parameters s was made with.
func (s *Sampler) Params() Params { return s.p }

// Sample returns the next token id. logits holds one score per vocabulary entry (len must be
// the vocab New got); history is the prompt and the tokens generated so far, for the
// penalties. Penalties are applied to logits in place during the call and undone before it
// returns. When every logit is -Inf or NaN, Sample returns 0.
func (s *Sampler) Sample(logits []float32, history []int) int {
	logits = logits[:s.vocab]
	s.penalize(logits, history)
	id := s.choose(logits)
	for _, sv := range s.saved {
		logits[sv.id] = sv.logit
	}
	return id
}

func (s *Sampler) greedy() bool {
	return s.p.Temperature <= 0 || s.p.TopK == 1
}

// penalize applies the repetition and presence penalties to each distinct id in history,
// remembering the original logits in s.saved.
func (s *Sampler) penalize(logits []float32, history []int) {
	s.saved = s.saved[:0]
	rep, pres := s.p.RepetitionPenalty, s.p.PresencePenalty
	if (rep == 0 || rep == 1) && pres == 0 {
		return
	}
	s.stamp++
	if s.stamp == 0 { // wrapped: old marks could collide
		clear(s.seen)
		s.stamp = 1
	}
	for _, id := range history {
		if id < 0 || id >= s.vocab || s.seen[id] == s.stamp {
			continue
		}
		s.seen[id] = s.stamp
		l := logits[id]
		s.saved = append(s.saved, savedLogit{int32(id), l})
		if rep != 0 && rep != 1 {
			if l > 0 {
				l = float32(float64(l) / rep)
			} else {
				l = float32(float64(l) * rep)
			}
		}
		logits[id] = l - float32(pres)
	}
}

// choose runs the filters on the penalized logits and draws.
func (s *Sampler) choose(logits []float32) int {
	if s.greedy() {
		return argmax(logits)
	}
	cand, val := s.filter(logits)
	if len(cand) == 0 {
		return 0
	}
	return s.draw(cand, val)
}

// filter applies temperature, top-k, top-p and min-p, and returns the candidates left with
// their scaled logits. They come best first whenever top-k or top-p ran.
func (s *Sampler) filter(logits []float32) ([]int32, []float64) {
	var n int
	sorted := false
	if k := s.p.TopK; k > 0 && k < len(logits) {
		n = s.topK(logits, k)
		sorted = true
	} else {
		n = s.finite(logits)
	}
	if n == 0 {
		return nil, nil
	}
	invT := 1 / s.p.Temperature
	cand, val := s.cand[:n], s.val[:n]
	for i := range val {
		val[i] *= invT
	}
	if p := s.p.TopP; p > 0 && p < 1 {
		if sorted {
			cand, val = nucleusSorted(cand, val, p)
		} else {
			cand, val = s.nucleusUnsorted(cand, val, p)
		}
		sorted = true
	}
	if mp := s.p.MinP; mp > 0 {
		cand, val = minP(cand, val, mp, sorted)
	}
	return cand, val
}

// finite loads every token whose logit is a number into the candidates.
func (s *Sampler) finite(logits []float32) int {
	n := 0
	for id, l := range logits {
		if l != l || math.IsInf(float64(l), -1) { // NaN or -Inf: never drawn
			continue
		}
		s.cand[n], s.val[n] = int32(id), float64(l)
		n++
	}
	return n
}

// draw picks one candidate with probability softmax(val).
func (s *Sampler) draw(cand []int32, val []float64) int {
	if len(cand) == 1 {
		return int(cand[0])
	}
	toWeights(val)
	return s.drawWeights(cand, val)
}

// toWeights turns scaled logits into unnormalised probabilities in place: exp(v - max).
func toWeights(val []float64) {
	top := math.Inf(-1)
	for _, v := range val {
		top = max(top, v)
	}
	for i, v := range val {
		val[i] = math.Exp(v - top)
	}
}

// drawWeights picks one candidate with probability proportional to its weight.
func (s *Sampler) drawWeights(cand []int32, val []float64) int {
	sum := 0.0
	for _, w := range val {
		sum += w
	}
	r := s.rng.Float64() * sum
	for i, w := range val {
		r -= w
		if r < 0 {
			return int(cand[i])
		}
	}
	// Rounding left r a hair above zero: take the last token that had any weight.
	for i := len(val) - 1; i >= 0; i-- {
		if val[i] > 0 {
			return int(cand[i])
		}
	}
	return int(cand[len(cand)-1])
}

// Argmax is greedy decoding: the index of the first largest logit (0 if none is a number).
func Argmax(logits []float32) int { return argmax(logits) }

// argmax returns the index of the first largest logit (0 if none is a number). It finds the
// largest value with four independent running maxima, then its first index: a single
// running maximum is one long chain of dependent compares.
func argmax(logits []float32) int {
	ninf := float32(math.Inf(-1))
	m0, m1, m2, m3 := ninf, ninf, ninf, ninf
	i := 0
	for ; i+4 <= len(logits); i += 4 {
		x := logits[i : i+4 : i+4]
		if x[0] > m0 {
			m0 = x[0]
		}
		if x[1] > m1 {
			m1 = x[1]
		}
		if x[2] > m2 {
			m2 = x[2]
		}
		if x[3] > m3 {
			m3 = x[3]
		}
	}
	for ; i < len(logits); i++ {
		if logits[i] > m0 {
			m0 = logits[i]
		}
	}
	m := max(m0, m1, m2, m3) // none is NaN
	if m == ninf {
		return 0
	}
	for i, l := range logits {
		if l == m {
			return i
		}
	}
	return 0
}
