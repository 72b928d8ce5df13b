package inference

import (
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
	if s.Seed != nil {
		p.Seed = *s.Seed
	} else {
		p.Seed = time.Now().UnixNano()
	}
	return p
}
