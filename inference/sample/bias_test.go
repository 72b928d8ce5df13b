package sample

import (
	"slices"
	"testing"
)

// TestLogitBias checks OpenAI's logit_bias: the bias is added before anything else, -100 bans
// a token and 100 forces it, in greedy decoding, in sampling and in Verify.
func TestLogitBias(t *testing.T) {
	logits := logProbs(0.05, 0.15, 0.3, 0.5) // argmax 3
	sampled := Params{Temperature: 1.5, TopP: 0.99, Seed: 9}
	tests := []struct {
		name    string
		p       Params
		history []int
		// allowed is what Sample may return.
		allowed []int
	}{
		{"greedy, bias moves the argmax", Params{LogitBias: map[int]float64{2: 1}}, nil, []int{2}},
		{"greedy, the best token banned", Params{LogitBias: map[int]float64{3: -100}}, nil, []int{2}},
		{"greedy, a weak token forced", Params{LogitBias: map[int]float64{0: 100}}, nil, []int{0}},
		{"greedy, ids outside the vocabulary ignored", Params{LogitBias: map[int]float64{-1: 100, 4: 100}}, nil, []int{3}},
		{"sampled, two tokens banned", withBias(sampled, map[int]float64{2: -100, 3: -100}), nil, []int{0, 1}},
		{"sampled, a weak token forced", withBias(sampled, map[int]float64{0: 100}), nil, []int{0}},
		{"sampled with penalties, forced", withBias(Params{Temperature: 2, RepetitionPenalty: 1.3, PresencePenalty: 2, FrequencyPenalty: 2, Seed: 3}, map[int]float64{1: 100}), []int{1, 1, 1}, []int{1}},
		{"top-k 1, the best banned", Params{Temperature: 1, TopK: 1, LogitBias: map[int]float64{3: -100}}, nil, []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.p, len(logits))
			before := slices.Clone(logits)
			for range 500 {
				if got := s.Sample(logits, tt.history); !slices.Contains(tt.allowed, got) {
					t.Fatalf("Sample = %d, want one of %v", got, tt.allowed)
				}
				// A draft of every token: what Verify returns, kept or not, obeys the bias too.
				for draft := range logits {
					if got, _ := s.Verify(logits, tt.history, draft); !slices.Contains(tt.allowed, got) {
						t.Fatalf("Verify(draft %d) = %d, want one of %v", draft, got, tt.allowed)
					}
				}
			}
			if !slices.Equal(before, logits) {
				t.Errorf("logits changed: %v, were %v", logits, before)
			}
		})
	}
}

func withBias(p Params, bias map[int]float64) Params {
	p.LogitBias = bias
	return p
}

// TestFrequencyPenalty checks that the penalty grows with the count of a token in the reply
// and that the prompt does not count.
func TestFrequencyPenalty(t *testing.T) {
	logits := []float32{1, 3, 2.5}
	tests := []struct {
		name    string
		prompt  int
		history []int
		want    int
	}{
		{"once in the reply: 3-1 < 2.5", 0, []int{1}, 2},
		{"once each: 3-1 > 2.5-1", 0, []int{1, 2}, 1},
		{"twice against once: 3-2 < 2.5-1", 0, []int{1, 1, 2}, 2},
		{"in the prompt only: no penalty", 3, []int{1, 1, 1}, 1},
		{"prompt then reply", 2, []int{1, 1, 2, 2}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Params{FrequencyPenalty: 1}, len(logits))
			s.SetPromptLen(tt.prompt)
			before := slices.Clone(logits)
			if got := s.Sample(logits, tt.history); got != tt.want {
				t.Errorf("Sample = %d, want %d", got, tt.want)
			}
			if !slices.Equal(before, logits) {
				t.Errorf("logits changed: %v, were %v", logits, before)
			}
		})
	}
}

// TestAdjustRestoresOverlaps checks that a token biased, penalized for presence and for
// frequency at once gets its own logit back.
func TestAdjustRestoresOverlaps(t *testing.T) {
	logits := randomLogits(64)
	before := slices.Clone(logits)
	s := New(Params{Temperature: 0.7, RepetitionPenalty: 1.2, PresencePenalty: 0.5, FrequencyPenalty: 0.3,
		LogitBias: map[int]float64{5: 3, 7: -100, 9: 100}}, len(logits))
	history := []int{5, 7, 9, 5, 5, 9, 11}
	for range 20 {
		s.Sample(logits, history)
		s.Verify(logits, history, 9)
	}
	if !slices.Equal(before, logits) {
		t.Errorf("logits not restored")
	}
}

func TestBiasedSampleDoesNotAllocate(t *testing.T) {
	logits := randomLogits(4096)
	history := make([]int, 300)
	for i := range history {
		history[i] = i * 7 % 500
	}
	s := New(Params{Temperature: 0.6, TopK: 20, FrequencyPenalty: 0.5, PresencePenalty: 0.5, LogitBias: map[int]float64{1: 5, 2: -100}}, len(logits))
	if allocs := testing.AllocsPerRun(50, func() { s.Sample(logits, history) }); allocs != 0 {
		t.Errorf("%v allocations per Sample", allocs)
	}
}
