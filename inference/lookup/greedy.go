package lookup

import (
	"fmt"
	"slices"
	"time"
)

// Model is what greedy decoding with lookup needs from a decoder with a KV cache.
type Model interface {
	// Forward appends ids to the cache in one run and returns the argmax of the logits of its
	// last rows positions (the token each of them predicts).
	Forward(ids []int, rows int) ([]int, error)
	// Truncate keeps the first n cached tokens.
	Truncate(n int)
}

// Result is a greedy reply.
type Result struct {
	Tokens   []int
	Forwards int // decoder runs after the prompt's
}

// Greedy decodes up to maxTokens tokens after prompt, stopping after a token stop accepts.
// With a Drafter it verifies drafts of the prompt and reply so far in one run each and keeps
// the agreeing prefix plus the model's next token; the tokens are those of plain greedy
// decoding (d nil) in exact arithmetic. The cache ends as plain decoding leaves it: the prompt
// and every reply token but the last.
func Greedy(m Model, prompt []int, maxTokens int, stop func(int) bool, d *Drafter) (Result, error) {
	var r Result
	if len(prompt) == 0 || maxTokens <= 0 {
		return r, fmt.Errorf("greedy: empty prompt or no tokens to generate")
	}
	picks, err := m.Forward(prompt, 1)
	if err != nil {
		return r, err
	}
	text := slices.Clip(slices.Clone(prompt))
	next := picks[0]
	for {
		r.Tokens, text = append(r.Tokens, next), append(text, next)
		if stop(next) || len(r.Tokens) == maxTokens {
			break
		}
		var draft []int
		if d != nil {
			draft = d.Draft(text, maxTokens-len(r.Tokens))
		}
		r.Forwards++
		start := time.Now()
		if picks, err = m.Forward(append([]int{next}, draft...), len(draft)+1); err != nil {
			return r, err
		}
		if d == nil {
			next = picks[0]
			continue
		}
		d.Timed(len(draft)+1, time.Since(start))
		if len(draft) == 0 {
			next = picks[0]
			continue
		}
		n, bonus := Accept(draft, picks)
		d.Observe(len(draft), n)
		if n < len(draft) {
			m.Truncate(len(text) + n)
		}
		for _, t := range draft[:n] {
			r.Tokens, text = append(r.Tokens, t), append(text, t)
			if stop(t) || len(r.Tokens) == maxTokens {
				m.Truncate(len(text) - 1)
				return r, nil
			}
		}
		next = bonus
	}
	return r, nil
}
