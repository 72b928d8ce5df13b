package decoder

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"edgechat/inference"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/reply"
)

// copyingModel is synth's model that quotes its context (an induction circuit), with the
// 512-token vocabulary and tokenizer of stories260K: prompt lookup's drafts are accepted on it.
func copyingModel(t testing.TB) string {
	tok := testenv.SharedModel(t, "stories260K")
	return synthModel(t, "copying-512", func(o *synth.Options) {
		*o = synth.SmallCopying()
		o.Vocab, o.TokenizerDir = copyingVocab, tok
	})
}

const copyingVocab = 512

// TestLogitBias runs logit_bias through the engine on real ONNX Runtime sessions of a model
// that quotes its prompt: a banned token never comes out, greedy or sampled, although the
// model and prompt lookup's drafts keep proposing it; a token at +100 is all that comes out;
// greedy decoding gives the same ids with and without lookup; an id outside the vocabulary is
// refused before anything is generated.
func TestLogitBias(t *testing.T) {
	e := newTestEngine(t, copyingModel(t), func(rc *inference.RouteConfig) { rc.LoadOptions.MaxContext = 512 })
	r := rand.New(rand.NewPCG(3, 4))
	passage := make([]int, 80)
	for i := range passage {
		passage[i] = 10 + r.IntN(copyingVocab-10)
	}
	prompt := slices.Concat(passage, passage[:20])
	run := func(s reply.Sampling, noLookup bool) *reply.Summary {
		t.Helper()
		_, sum := collect(t, e, context.Background(), reply.Request{Prompt: &reply.Prompt{IDs: prompt}, MaxTokens: 40, Sampling: s, NoLookup: noLookup})
		if sum.Err != nil {
			t.Fatal(sum.Err)
		}
		return sum
	}
	greedySampling := func(bias map[int]float64) reply.Sampling {
		return reply.Sampling{Temperature: ptr(0.0), LogitBias: bias}
	}

	plain := run(greedySampling(nil), true)
	if !slices.Equal(plain.IDs, passage[20:60]) {
		t.Fatalf("the copying model did not quote: %v, want %v", plain.IDs, passage[20:60])
	}
	banned := plain.IDs[4]
	forced := 7 // a token the model has no reason to say

	for _, tc := range []struct {
		name  string
		s     reply.Sampling
		check func(ids []int) bool
	}{
		{"greedy, banned", greedySampling(map[int]float64{banned: -100}), func(ids []int) bool { return !slices.Contains(ids, banned) }},
		{"greedy, forced", greedySampling(map[int]float64{forced: 100}), func(ids []int) bool { return allEqual(ids, forced) }},
		{"greedy, frequency penalty and a ban", reply.Sampling{Temperature: ptr(0.0), FrequencyPenalty: ptr(2.0), LogitBias: map[int]float64{banned: -100, passage[30]: -100}},
			func(ids []int) bool { return !slices.Contains(ids, banned) && !slices.Contains(ids, passage[30]) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, look := run(tc.s, true), run(tc.s, false)
			if !tc.check(plain.IDs) {
				t.Errorf("plain decoding: %v", plain.IDs)
			}
			if !slices.Equal(plain.IDs, look.IDs) {
				t.Errorf("with lookup %v,\nplain %v", look.IDs, plain.IDs)
			}
			if look.Lookup == nil || look.Lookup.Drafted == 0 {
				t.Errorf("lookup drafted nothing: %+v", look.Lookup)
			}
			if len(plain.IDs) != 40 {
				t.Errorf("%d tokens, want the budget of 40", len(plain.IDs))
			}
		})
	}

	t.Run("sampled", func(t *testing.T) {
		for seed := range int64(5) {
			s := reply.Sampling{Temperature: ptr(1.0), Seed: &seed, LogitBias: map[int]float64{banned: -100, passage[25]: -100}}
			for _, noLookup := range []bool{true, false} {
				if ids := run(s, noLookup).IDs; slices.Contains(ids, banned) || slices.Contains(ids, passage[25]) {
					t.Errorf("seed %d, lookup %v: a banned token came out: %v", seed, !noLookup, ids)
				}
			}
			s.LogitBias = map[int]float64{forced: 100}
			if ids := run(s, false).IDs; !allEqual(ids, forced) {
				t.Errorf("seed %d: %v, want only %d", seed, ids, forced)
			}
		}
	})

	t.Run("outside the vocabulary", func(t *testing.T) {
		for _, id := range []int{-1, copyingVocab, 1 << 40} {
			evs, sum := collect(t, e, context.Background(), reply.Request{Prompt: &reply.Prompt{IDs: prompt}, MaxTokens: 4, Sampling: greedySampling(map[int]float64{id: 1})})
			var pe *reply.ParamError
			if !errors.As(sum.Err, &pe) || pe.Param != "logit_bias" || !errors.Is(sum.Err, reply.ErrInvalidParameter) {
				t.Errorf("id %d: got %v, want a logit_bias ParamError", id, sum.Err)
			}
			if text, _ := replyText(evs); text != "" || sum.GeneratedTokens != 0 {
				t.Errorf("id %d: generated %q", id, text)
			}
		}
		if ids := run(greedySampling(nil), false).IDs; !slices.Equal(ids, passage[20:60]) { // the route still serves
			t.Errorf("after the refusals: %v", ids)
		}
	})
}

func allEqual(ids []int, id int) bool {
	return len(ids) > 0 && !slices.ContainsFunc(ids, func(x int) bool { return x != id })
}
