package sample

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var inf = float32(math.Inf(1))

// logProbs returns logits whose softmax is probs.
func logProbs(probs ...float64) []float32 {
	out := make([]float32, len(probs))
	for i, p := range probs {
		out[i] = float32(math.Log(p))
	}
	return out
}

func TestGreedy(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name    string
		p       Params
		logits  []float32
		history []int
		want    int
	}{
		{"temperature 0", Params{}, []float32{1, 3, 2}, nil, 1},
		{"top-k 1 at temperature 1", Params{Temperature: 1, TopK: 1}, []float32{1, 3, 2}, nil, 1},
		{"first max on ties", Params{}, []float32{0, 5, 2, 5}, nil, 1},
		{"negative logits", Params{}, []float32{-3, -1, -2}, nil, 1},
		{"NaN never wins", Params{}, []float32{nan, -1, nan}, nil, 1},
		{"-Inf and +Inf", Params{}, []float32{-inf, inf, 0}, nil, 1},
		{"all -Inf gives 0", Params{}, []float32{-inf, -inf}, nil, 0},
		{"repetition penalty changes the winner", Params{RepetitionPenalty: 2}, []float32{1, 3, 2}, []int{1}, 2},
		{"presence penalty changes the winner", Params{PresencePenalty: 1.5}, []float32{1, 3, 2}, []int{1, 1, 1}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.p, len(tt.logits))
			for range 5 {
				if got := s.Sample(tt.logits, tt.history); got != tt.want {
					t.Fatalf("Sample = %d, want %d", got, tt.want)
				}
			}
		})
	}
}

func TestPenalties(t *testing.T) {
	tests := []struct {
		name    string
		p       Params
		logits  []float32
		history []int
		want    []float32
	}{
		{"off", Params{RepetitionPenalty: 1}, []float32{2, -2, 0}, []int{0, 1, 2}, []float32{2, -2, 0}},
		{"repetition: divide positive, multiply negative", Params{RepetitionPenalty: 2}, []float32{2, -2, 0, 4}, []int{0, 1, 2}, []float32{1, -4, 0, 4}},
		{"repetition counts each id once", Params{RepetitionPenalty: 2}, []float32{8, 1}, []int{0, 0, 0}, []float32{4, 1}},
		{"presence subtracts once per id", Params{PresencePenalty: 0.5}, []float32{1, 1, 1}, []int{2, 0, 2, 2}, []float32{0.5, 1, 0.5}},
		{"both: repetition first", Params{RepetitionPenalty: 2, PresencePenalty: 1}, []float32{4, -4}, []int{0, 1}, []float32{1, -9}},
		{"ids out of range ignored", Params{PresencePenalty: 1}, []float32{1, 1}, []int{-1, 2, 1000}, []float32{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.p, len(tt.logits))
			logits := slices.Clone(tt.logits)
			s.penalize(logits, tt.history)
			if diff := cmp.Diff(tt.want, logits); diff != "" {
				t.Errorf("penalized logits (-want +got):\n%s", diff)
			}
			// Sample restores the caller's logits.
			logits = slices.Clone(tt.logits)
			s.Sample(logits, tt.history)
			if diff := cmp.Diff(tt.logits, logits); diff != "" {
				t.Errorf("Sample left logits changed (-want +got):\n%s", diff)
			}
		})
	}
}

// kept returns the ids the filters leave, sorted.
func kept(p Params, logits []float32) []int {
	s := New(p, len(logits))
	cand, _ := s.filter(logits)
	ids := make([]int, len(cand))
	for i, c := range cand {
		ids[i] = int(c)
	}
	sort.Ints(ids)
	return ids
}

func TestFilters(t *testing.T) {
	// Probabilities 0.05, 0.1, 0.15, 0.3, 0.4 at temperature 1. Thresholds stay off the exact
	// boundaries, where float rounding (here and in transformers) decides either way.
	dist := logProbs(0.05, 0.1, 0.15, 0.3, 0.4)
	tests := []struct {
		name   string
		p      Params
		logits []float32
		want   []int
	}{
		{"no filter", Params{Temperature: 1}, dist, []int{0, 1, 2, 3, 4}},
		{"top-k 2", Params{Temperature: 1, TopK: 2}, dist, []int{3, 4}},
		{"top-k 3", Params{Temperature: 1, TopK: 3}, dist, []int{2, 3, 4}},
		{"top-k larger than vocab", Params{Temperature: 1, TopK: 10}, dist, []int{0, 1, 2, 3, 4}},
		{"top-k ties keep the lower id", Params{Temperature: 1, TopK: 2}, []float32{1, 2, 2, 2}, []int{1, 2}},
		{"top-p 0.39 keeps the best only", Params{Temperature: 1, TopP: 0.39}, dist, []int{4}},
		{"top-p 0.5 needs two", Params{Temperature: 1, TopP: 0.5}, dist, []int{3, 4}},
		{"top-p 0.69 is reached by two", Params{Temperature: 1, TopP: 0.69}, dist, []int{3, 4}},
		{"top-p 0.71 needs three", Params{Temperature: 1, TopP: 0.71}, dist, []int{2, 3, 4}},
		{"top-p 0.96 needs all", Params{Temperature: 1, TopP: 0.96}, dist, []int{0, 1, 2, 3, 4}},
		{"top-p 1 is off", Params{Temperature: 1, TopP: 1}, dist, []int{0, 1, 2, 3, 4}},
		{"top-p after top-k renormalizes", Params{Temperature: 1, TopK: 2, TopP: 0.5}, dist, []int{4}},
		{"min-p 0.5 of 0.4", Params{Temperature: 1, MinP: 0.5}, dist, []int{3, 4}},
		{"min-p 0.24 of 0.4", Params{Temperature: 1, MinP: 0.24}, dist, []int{1, 2, 3, 4}},
		{"min-p sees temperature", Params{Temperature: 0.5, MinP: 0.25}, dist, []int{3, 4}},
		{"min-p after top-p", Params{Temperature: 1, TopP: 0.71, MinP: 0.5}, dist, []int{3, 4}},
		{"high temperature widens top-p", Params{Temperature: 100, TopP: 0.5}, dist, []int{2, 3, 4}},
		{"low temperature narrows top-p", Params{Temperature: 0.1, TopP: 0.9}, dist, []int{4}},
		{"-Inf and NaN are never kept", Params{Temperature: 1}, []float32{-inf, 0, float32(math.NaN())}, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, kept(tt.p, tt.logits), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("kept ids (-want +got):\n%s", diff)
			}
		})
	}
}

// reference is the filter chain done the slow, obvious way: sort everything, then cut.
func reference(p Params, logits []float32) []int {
	type tok struct {
		id int
		v  float64
	}
	var toks []tok
	for id, l := range logits {
		toks = append(toks, tok{id, float64(l) / p.Temperature})
	}
	sort.SliceStable(toks, func(i, j int) bool { return toks[i].v > toks[j].v })
	if p.TopK > 0 && p.TopK < len(toks) {
		toks = toks[:p.TopK]
	}
	if p.TopP > 0 && p.TopP < 1 {
		sum := 0.0
		for _, t := range toks {
			sum += math.Exp(t.v - toks[0].v)
		}
		acc := 0.0
		for j, t := range toks {
			if j > 0 && acc >= p.TopP*sum {
				toks = toks[:j]
				break
			}
			acc += math.Exp(t.v - toks[0].v)
		}
	}
	if p.MinP > 0 {
		limit := toks[0].v + math.Log(p.MinP)
		for j, t := range toks {
			if t.v < limit {
				toks = toks[:j]
				break
			}
		}
	}
	ids := make([]int, len(toks))
	for i, t := range toks {
		ids[i] = t.id
	}
	sort.Ints(ids)
	return ids
}

func TestFiltersMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		vocab := 1 + r.IntN(300)
		logits := make([]float32, vocab)
		for j := range logits {
			logits[j] = float32(r.NormFloat64() * 3)
		}
		p := Params{
			Temperature: []float64{0.3, 0.7, 1, 1.5}[r.IntN(4)],
			TopK:        []int{0, 1, 5, 20, 400}[r.IntN(5)],
			TopP:        []float64{0, 0.5, 0.8, 0.95, 1}[r.IntN(5)],
			MinP:        []float64{0, 0.05, 0.2}[r.IntN(3)],
		}
		if diff := cmp.Diff(reference(p, logits), kept(p, logits)); diff != "" {
			t.Fatalf("case %d %+v vocab %d (-reference +got):\n%s", i, p, vocab, diff)
		}
	}
}

func TestDeterministicBySeed(t *testing.T) {
	logits := logProbs(0.1, 0.2, 0.3, 0.4)
	draw := func(seed int64) []int {
		s := New(Params{Temperature: 1, Seed: seed}, len(logits))
		out := make([]int, 200)
		for i := range out {
			out[i] = s.Sample(logits, nil)
		}
		return out
	}
	if diff := cmp.Diff(draw(42), draw(42)); diff != "" {
		t.Errorf("same seed, different draws (-first +second):\n%s", diff)
	}
	if cmp.Equal(draw(42), draw(43)) {
		t.Error("seeds 42 and 43 drew the same 200 tokens")
	}
}

func TestFrequencies(t *testing.T) {
	probs := []float64{0.1, 0.2, 0.3, 0.4}
	tests := []struct {
		name string
		p    Params
		want []float64
	}{
		{"temperature 1", Params{Temperature: 1, Seed: 1}, probs},
		// p^(1/T) renormalized: T=0.5 squares: 0.01, 0.04, 0.09, 0.16 over 0.30.
		{"temperature 0.5", Params{Temperature: 0.5, Seed: 2}, []float64{0.01 / 0.3, 0.04 / 0.3, 0.09 / 0.3, 0.16 / 0.3}},
		{"top-k 2", Params{Temperature: 1, TopK: 2, Seed: 3}, []float64{0, 0, 0.3 / 0.7, 0.4 / 0.7}},
		{"top-p 0.5", Params{Temperature: 1, TopP: 0.5, Seed: 4}, []float64{0, 0, 0.3 / 0.7, 0.4 / 0.7}},
	}
	const n = 40000
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logits := logProbs(probs...)
			s := New(tt.p, len(logits))
			counts := make([]float64, len(logits))
			for range n {
				counts[s.Sample(logits, nil)]++
			}
			for i := range counts {
				counts[i] /= n
			}
			// Standard error is at most 0.0025 here; 0.012 is about five of them.
			if diff := cmp.Diff(tt.want, counts, cmpopts.EquateApprox(0, 0.012)); diff != "" {
				t.Errorf("frequencies (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSampleDoesNotAllocate(t *testing.T) {
	logits := randomLogits(4096)
	history := make([]int, 300)
	for i := range history {
		history[i] = i * 7
	}
	for _, p := range []Params{
		{},
		{Temperature: 0.6, TopK: 20, TopP: 0.95, RepetitionPenalty: 1.1, PresencePenalty: 0.5},
		{Temperature: 0.6, TopP: 0.95, MinP: 0.05},
		{Temperature: 1},
	} {
		s := New(p, len(logits))
		if allocs := testing.AllocsPerRun(50, func() { s.Sample(logits, history) }); allocs != 0 {
			t.Errorf("%+v: %v allocations per Sample", p, allocs)
		}
	}
}

func randomLogits(vocab int) []float32 {
	r := rand.New(rand.NewPCG(5, 6))
	logits := make([]float32, vocab)
	for i := range logits {
		logits[i] = float32(r.NormFloat64() * 2.5)
	}
	return logits
}

const qwen3Vocab = 151936

func benchmarkSample(b *testing.B, p Params) {
	logits := randomLogits(qwen3Vocab)
	history := make([]int, 512)
	for i := range history {
		history[i] = (i * 7919) % qwen3Vocab
	}
	s := New(p, qwen3Vocab)
	b.ReportAllocs()
	for b.Loop() {
		s.Sample(logits, history)
	}
}

func BenchmarkSampleGreedy(b *testing.B) { benchmarkSample(b, Params{}) }

func BenchmarkSampleTopK20TopP95(b *testing.B) {
	benchmarkSample(b, Params{Temperature: 0.6, TopK: 20, TopP: 0.95, Seed: 1})
}

func BenchmarkSampleTopK20TopP95Penalties(b *testing.B) {
	benchmarkSample(b, Params{Temperature: 0.6, TopK: 20, TopP: 0.95, RepetitionPenalty: 1.1, PresencePenalty: 1.5, Seed: 1})
}

func BenchmarkSampleTopP95NoTopK(b *testing.B) {
	benchmarkSample(b, Params{Temperature: 0.6, TopP: 0.95, Seed: 1})
}

func BenchmarkSampleFullVocab(b *testing.B) {
	benchmarkSample(b, Params{Temperature: 1, Seed: 1})
}

// TestArgmaxMatchesScan checks the four-lane argmax against a plain scan, on short slices
// (every tail length) full of ties, -Inf and NaN.
func TestArgmaxMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	values := []float32{-inf, -1, 0, 1, 2, inf, float32(math.NaN())}
	for range 5000 {
		logits := make([]float32, 1+r.IntN(13))
		for i := range logits {
			logits[i] = values[r.IntN(len(values))]
		}
		want, wantV := 0, float32(math.Inf(-1))
		for i, l := range logits {
			if l > wantV {
				want, wantV = i, l
			}
		}
		if got := argmax(logits); got != want {
			t.Fatalf("argmax(%v) = %d, want %d", logits, got, want)
		}
	}
}

// Verify returns tokens with exactly Sample's distribution whatever the draft (speculative
// sampling with a one-token draft): over 200,000 draws each, every token's frequency is
// within 5 standard deviations of Sample's (a fixed seed: the test is deterministic; a bug
// that keeps drafts too often shifts the drafted token's share by far more). Greedy keeps
// only the argmax.
func TestVerifyKeepsTheDistribution(t *testing.T) {
	logits := []float32{2.0, 1.5, 1.4, 0.3, -1, -3, 0.9, 1.7}
	for _, p := range []Params{
		{Temperature: 0.8, Seed: 1},
		{Temperature: 1.2, TopK: 4, Seed: 2},
		{Temperature: 0.7, TopP: 0.8, Seed: 3},
		{Temperature: 1, MinP: 0.2, RepetitionPenalty: 1.3, Seed: 4},
	} {
		history := []int{1, 7}
		const n = 200_000
		want := make([]float64, len(logits))
		s := New(p, len(logits))
		for range n {
			want[s.Sample(logits, history)]++
		}
		for draft := range logits {
			got := make([]float64, len(logits))
			v := New(Params{Temperature: p.Temperature, TopK: p.TopK, TopP: p.TopP, MinP: p.MinP, RepetitionPenalty: p.RepetitionPenalty, Seed: p.Seed + 100}, len(logits))
			kept := 0
			for range n {
				id, ok := v.Verify(logits, history, draft)
				if ok != (id == draft) {
					t.Fatalf("%+v draft %d: Verify returned %d, %v", p, draft, id, ok)
				}
				if ok {
					kept++
				}
				got[id]++
			}
			for id := range logits {
				pw := want[id] / n
				sd := math.Sqrt(pw*(1-pw)/n) * math.Sqrt2 // two independent estimates
				if d := math.Abs(got[id]/n - pw); d > 5*sd+1e-9 {
					t.Errorf("%+v draft %d: token %d drawn %.4f of the time, Sample %.4f", p, draft, id, got[id]/n, pw)
				}
			}
			if pk := float64(kept) / n; math.Abs(pk-want[draft]/n) > 0.01 {
				t.Errorf("%+v draft %d kept %.3f of the time, want p(draft) %.3f", p, draft, pk, want[draft]/n)
			}
		}
	}
	g := New(Params{}, len(logits))
	if id, ok := g.Verify(logits, nil, 0); id != 0 || !ok {
		t.Errorf("greedy: draft 0 (the argmax) gave %d, %v", id, ok)
	}
	if id, ok := g.Verify(logits, nil, 7); id != 0 || ok {
		t.Errorf("greedy: draft 7 gave %d, %v; want the argmax 0, rejected", id, ok)
	}
}
