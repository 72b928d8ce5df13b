package sample

import "math"

// worse orders candidates: a lower logit is worse, and on a tie the higher id (so that
// among equals the lowest id wins, as argmax does).
func worse(va float64, ia int32, vb float64, ib int32) bool {
	return va < vb || (va == vb && ia > ib)
}

// topK puts the k best logits into s.cand/s.val[:n], best first, with a bounded min-heap:
// one pass over the vocabulary, O(V log k) in the worst case and about V comparisons in
// practice. n < k when fewer than k logits are numbers.
func (s *Sampler) topK(logits []float32, k int) int {
	cand, val := s.cand[:k], s.val[:k]
	n, id := 0, 0
	for ; id < len(logits) && n < k; id++ {
		if l := logits[id]; l == l && !math.IsInf(float64(l), -1) {
			cand[n], val[n] = int32(id), float64(l)
			n++
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		siftDownMin(cand, val, i, n)
	}
	if n == k {
		// The hot loop: most logits lose to the worst kept one and cost one comparison. Ids
		// only grow, so a later logit equal to the worst kept one loses too; NaN fails >.
		worst := float32(val[0])
		for ; id < len(logits); id++ {
			if l := logits[id]; l > worst {
				cand[0], val[0] = int32(id), float64(l)
				siftDownMin(cand, val, 0, k)
				worst = float32(val[0])
			}
		}
	}
	// Heap sort: the worst goes to the end each time, leaving the best first.
	for end := n - 1; end > 0; end-- {
		cand[0], cand[end] = cand[end], cand[0]
		val[0], val[end] = val[end], val[0]
		siftDownMin(cand, val, 0, end)
	}
	return n
}

// siftDownMin restores the min-heap (by worse) rooted at i over [0, n).
func siftDownMin(cand []int32, val []float64, i, n int) {
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && worse(val[r], cand[r], val[l], cand[l]) {
			m = r
		}
		if !worse(val[m], cand[m], val[i], cand[i]) {
			return
		}
		cand[i], cand[m] = cand[m], cand[i]
		val[i], val[m] = val[m], val[i]
		i = m
	}
}

// siftDownMax restores the max-heap rooted at i over [0, n).
func siftDownMax(cand []int32, val []float64, i, n int) {
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && worse(val[l], cand[l], val[r], cand[r]) {
			m = r
		}
		if !worse(val[i], cand[i], val[m], cand[m]) {
			return
		}
		cand[i], cand[m] = cand[m], cand[i]
		val[i], val[m] = val[m], val[i]
		i = m
	}
}

// nucleusSorted keeps the shortest best-first prefix whose probability reaches p: a token
// stays while the mass of the tokens before it is below p (transformers' top_p, which
// always keeps the best token).
func nucleusSorted(cand []int32, val []float64, p float64) ([]int32, []float64) {
	top := val[0]
	sum := 0.0
	for _, v := range val {
		sum += math.Exp(v - top)
	}
	limit, acc := p*sum, 0.0
	for j, v := range val {
		if j > 0 && acc >= limit {
			return cand[:j], val[:j]
		}
		acc += math.Exp(v - top)
	}
	return cand, val
}

// nucleusUnsorted is nucleusSorted for a whole vocabulary: it drops the tokens too unlikely
// to matter, heapifies the rest and pops only the tokens the nucleus needs. The result is
// best first.
func (s *Sampler) nucleusUnsorted(cand []int32, val []float64, p float64) ([]int32, []float64) {
	n := len(cand)
	top := math.Inf(-1)
	for _, v := range val {
		top = max(top, v)
	}
	sum := 0.0
	for _, v := range val {
		sum += math.Exp(v - top)
	}
	// Tokens each below (1-p)/n in probability add up to less than 1-p, so the nucleus never
	// reaches them: drop them before sorting (for a peaked distribution, nearly all).
	if floor := top + math.Log((1-p)*sum/float64(n)); !math.IsNaN(floor) {
		m := 0
		for i, v := range val {
			if v >= floor {
				cand[m], val[m] = cand[i], v
				m++
			}
		}
		cand, val, n = cand[:m], val[:m], m
	}
	for i := n/2 - 1; i >= 0; i-- {
		siftDownMax(cand, val, i, n)
	}
	limit, acc := p*sum, 0.0
	end := n // popped tokens collect in [end, n), best at n-1
	for end > 0 && (end == n || acc < limit) {
		end--
		acc += math.Exp(val[0] - top)
		cand[0], cand[end] = cand[end], cand[0]
		val[0], val[end] = val[end], val[0]
		siftDownMax(cand, val, 0, end)
	}
	kc, kv := cand[end:], val[end:]
	for i, j := 0, len(kc)-1; i < j; i, j = i+1, j-1 {
		kc[i], kc[j] = kc[j], kc[i]
		kv[i], kv[j] = kv[j], kv[i]
	}
	return kc, kv
}

// minP drops candidates whose probability is below mp times the best one's, that is whose
// logit is below best + ln(mp). It keeps the order; sorted says the best comes first.
func minP(cand []int32, val []float64, mp float64, sorted bool) ([]int32, []float64) {
	top := val[0]
	if !sorted {
		for _, v := range val {
			top = max(top, v)
		}
	}
	limit := top + math.Log(mp)
	if sorted {
		for j, v := range val {
			if v < limit {
				return cand[:j], val[:j]
			}
		}
		return cand, val
	}
	n := 0
	for i, v := range val {
		if v >= limit {
			cand[n], val[n] = cand[i], v
			n++
		}
	}
	return cand[:n], val[:n]
}
