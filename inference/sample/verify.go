package sample

// Verify decides a drafted token, the step of speculative sampling with a draft that is
// certain of its token (prompt lookup drafts one token, not a distribution): with the
// probability p(draft) that Sample would draw it, Verify keeps it and returns (draft, true);
// otherwise it returns a token drawn from p with draft left out, renormalised, and false.
// Over the random draws the token returned has exactly Sample's distribution (Leviathan et
// al. 2023 with q a point mass: accept with min(1, p/q) = p, else draw from max(0, p-q)).
// Greedy decoding keeps the draft when it is the argmax and otherwise returns the argmax.
// logits and history are as for Sample.
func (s *Sampler) Verify(logits []float32, history []int, draft int) (int, bool) {
	logits = logits[:s.vocab]
	s.adjust(logits, history)
	id, ok := s.verify(logits, draft)
	s.restore(logits)
	return id, ok
}

func (s *Sampler) verify(logits []float32, draft int) (int, bool) {
	if s.greedy() {
		id := argmax(logits)
		return id, id == draft
	}
	cand, val := s.filter(logits)
	if len(cand) == 0 {
		return 0, draft == 0
	}
	toWeights(val)
	sum, pd, at := 0.0, 0.0, -1
	for i, w := range val {
		sum += w
		if int(cand[i]) == draft {
			pd, at = w, i
		}
	}
	if at >= 0 && s.rng.Float64()*sum < pd {
		return draft, true
	}
	if at >= 0 {
		if len(cand) == 1 { // p(draft) = 1 yet the draw missed: only by rounding
			return draft, true
		}
		cand[at], val[at] = cand[len(cand)-1], val[len(val)-1]
		cand, val = cand[:len(cand)-1], val[:len(val)-1]
	}
	return s.drawWeights(cand, val), false
}
