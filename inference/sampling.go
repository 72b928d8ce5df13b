package inference

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"edgechat/reply"

	"edgechat/inference/sample"
)

// samplingParams resolves a request's sampling: the request's values, else the model's
// defaults (generation_config.json / genai_config.json), else greedy decoding.
func (m *Model) samplingParams(s reply.Sampling) sample.Params {
	g := m.Folder.Generation
	p := sample.Params{RepetitionPenalty: 1}
	doSample := g.DoSample == nil || *g.DoSample
	if doSample && g.Temperature != nil {
		p.Temperature = *g.Temperature
	}
	if doSample && g.Temperature == nil && (g.TopK != nil || g.TopP != nil) {
		p.Temperature = 1
	}
	if g.TopK != nil {
		p.TopK = *g.TopK
	}
	if g.TopP != nil {
		p.TopP = *g.TopP
	}
	if g.MinP != nil {
		p.MinP = *g.MinP
	}
	if g.RepetitionPenalty != nil {
		p.RepetitionPenalty = *g.RepetitionPenalty
	}
	if s.Temperature != nil {
		p.Temperature = *s.Temperature
	}
	if s.TopK != nil {
		p.TopK = *s.TopK
	}
	if s.TopP != nil {
		p.TopP = *s.TopP
	}
	if s.MinP != nil {
		p.MinP = *s.MinP
	}
	if s.RepetitionPenalty != nil {
		p.RepetitionPenalty = *s.RepetitionPenalty
	}
	if s.PresencePenalty != nil {
		p.PresencePenalty = *s.PresencePenalty
	}
	if s.FrequencyPenalty != nil {
		p.FrequencyPenalty = *s.FrequencyPenalty
	}
	p.LogitBias = s.LogitBias
	if s.Seed != nil {
		p.Seed = *s.Seed
	} else {
		p.Seed = time.Now().UnixNano()
	}
	return p
}

// checkLogitBias refuses a logit bias the model cannot take: a token id outside its vocabulary
// (the tokenizer's, which may be smaller than the logits), a bias outside -100…100, or bans
// on every token, which would leave nothing to choose.
func (m *Model) checkLogitBias(bias map[int]float64) error {
	vocab := min(m.Tokenizer.VocabSize(), m.dec.Vocab())
	bans := 0
	for _, id := range slices.Sorted(maps.Keys(bias)) {
		b := bias[id]
		switch {
		case id < 0 || id >= vocab:
			return reply.InvalidParameter("logit_bias", fmt.Errorf("token id %d is not in this model's vocabulary of %d tokens (0 to %d)", id, vocab, vocab-1))
		case math.IsNaN(b) || b < -reply.MaxLogitBias || b > reply.MaxLogitBias:
			return reply.InvalidParameter("logit_bias", fmt.Errorf("the bias of token %d is %g; use a value from -100 to 100", id, b))
		case b <= sample.BanBias:
			bans++
		}
	}
	if bans >= vocab {
		return reply.InvalidParameter("logit_bias", errors.New("every token of the vocabulary is banned (-100); leave at least one allowed"))
	}
	return nil
}
