// Package sample picks the next token from a model's logits: logit bias, repetition, presence
// and frequency penalties, temperature, top-k, top-p and min-p, then a seeded random draw, in
// the order Hugging Face transformers applies them (the bias first, as vLLM does).
package sample

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
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
	// FrequencyPenalty is subtracted from the logit of a token once for each time it occurs in
	// the reply so far (OpenAI's frequency_penalty): the tokens of history from the index
	// SetPromptLen gives (0: all of it).
	FrequencyPenalty float64
	// LogitBias is added to the logits of the ids it names before anything else (OpenAI's
	// logit_bias); BanBias (-100) or less bans the token outright. Ids outside the vocabulary
	// are ignored: the caller checks them.
	LogitBias map[int]float64
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

	bias   []savedLogit // LogitBias as a list, ids checked
	prompt int          // history[:prompt] is the prompt, which the frequency penalty skips

	seen  []uint32 // seen[id] == stamp: id is in this call's history
	stamp uint32
	saved []savedLogit // changed ids with their original logits, restored in reverse order
}

// BanBias is the logit bias that bans a token: it is never chosen.
const BanBias = -100

type savedLogit struct {
	id    int32
	logit float32
}

// New returns a Sampler for logits of length vocab.
func New(p Params, vocab int) *Sampler {
	s := &Sampler{
		p:     p,
		vocab: vocab,
		rng:   rand.New(rand.NewPCG(uint64(p.Seed), 0x9e3779b97f4a7c15)),
		cand:  make([]int32, vocab),
		val:   make([]float64, vocab),
		seen:  make([]uint32, vocab),
	}
	for id, b := range p.LogitBias {
		if id >= 0 && id < vocab && b != 0 {
			bias := float32(b)
			if b <= BanBias {
				bias = float32(math.Inf(-1))
			}
			s.bias = append(s.bias, savedLogit{int32(id), bias})
		}
	}
	slices.SortFunc(s.bias, func(a, b savedLogit) int { return cmp.Compare(a.id, b.id) }) // one order, whatever the map's
	// Each id is saved at most once per step for the bias and for each kind of penalty.
	most := len(s.bias) + vocab
	if p.FrequencyPenalty != 0 {
		most += vocab
	}
	s.saved = make([]savedLogit, 0, most)
	return s
}

// SetPromptLen says that the first n tokens of every history are the prompt, which the
// frequency penalty does not count (OpenAI counts the tokens sampled so far).
func (s *Sampler) SetPromptLen(n int) { s.prompt = max(n, 0) }

// Params returns the parameters s was made with.
func (s *Sampler) Params() Params { return s.p }

// Sample returns the next token id. logits holds one score per vocabulary entry (len must be
// the vocab New got); history is the prompt and the tokens generated so far, for the
// penalties. Penalties are applied to logits in place during the call and undone before it
// returns. When every logit is -Inf or NaN, Sample returns 0.
func (s *Sampler) Sample(logits []float32, history []int) int {
	logits = logits[:s.vocab]
	s.adjust(logits, history)
	id := s.choose(logits)
	s.restore(logits)
	return id
}

// adjust applies the logit bias and the penalties to logits in place, remembering the
// original logits in s.saved.
func (s *Sampler) adjust(logits []float32, history []int) {
	s.saved = s.saved[:0]
	for _, b := range s.bias {
		s.saved = append(s.saved, savedLogit{b.id, logits[b.id]})
		logits[b.id] += b.logit
	}
	s.penalize(logits, history)
	s.penalizeFrequency(logits, history)
}

// restore undoes adjust. An id changed twice was saved twice; going backwards, its first
// saved value, the original, is written last.
func (s *Sampler) restore(logits []float32) {
	for i := len(s.saved) - 1; i >= 0; i-- {
		logits[s.saved[i].id] = s.saved[i].logit
	}
}

func (s *Sampler) greedy() bool {
	return s.p.Temperature <= 0 || s.p.TopK == 1
}

// nextStamp starts a new set of marks in s.seen.
func (s *Sampler) nextStamp() {
	s.stamp++
	if s.stamp == 0 { // wrapped: old marks could collide
		clear(s.seen)
		s.stamp = 1
	}
}

// penalize applies the repetition and presence penalties to each distinct id in history,
// remembering the original logits in s.saved.
func (s *Sampler) penalize(logits []float32, history []int) {
	rep, pres := s.p.RepetitionPenalty, s.p.PresencePenalty
	if (rep == 0 || rep == 1) && pres == 0 {
		return
	}
	s.nextStamp()
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

// penalizeFrequency subtracts the frequency penalty once per occurrence of each id in the
// reply part of history, remembering each changed logit once in s.saved.
func (s *Sampler) penalizeFrequency(logits []float32, history []int) {
	freq := float32(s.p.FrequencyPenalty)
	if freq == 0 || s.prompt >= len(history) {
		return
	}
	s.nextStamp()
	for _, id := range history[s.prompt:] {
		if id < 0 || id >= s.vocab {
			continue
		}
		if s.seen[id] != s.stamp {
			s.seen[id] = s.stamp
			s.saved = append(s.saved, savedLogit{int32(id), logits[id]})
		}
		logits[id] -= freq
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
