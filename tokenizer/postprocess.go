package tokenizer

import (
	"encoding/json"
	"fmt"
)

// postProcessor holds what the tokenizer.json post-processor adds around one sequence when
// special tokens are asked for (the reference's add_special_tokens=true): TemplateProcessing's
// "single" template, e.g. "<s> $A". ByteLevel adds nothing.
type postProcessor struct {
	templates   []json.RawMessage // the "single" templates of TemplateProcessing, in order
	special     []map[string]struct{ IDs []int }
	prefix, suf []int
}

func parsePostProcessor(c *component) (postProcessor, error) {
	var p postProcessor
	return p, p.add(c)
}

func (p *postProcessor) add(c *component) error {
	if c == nil {
		return nil
	}
	switch c.Type {
	case "ByteLevel":
		return nil
	case "TemplateProcessing":
		p.templates = append(p.templates, c.Single)
		p.special = append(p.special, c.SpecialTokens)
		return nil
	case "Sequence":
		for _, c := range c.Processors {
			if err := p.add(c); err != nil {
				return err
			}
		}
		return nil
	}
	return unsupported("post-processor %s", c.name())
}

// templatePiece is one element of a TemplateProcessing template.
type templatePiece struct {
	SpecialToken *struct{ ID string } `json:"SpecialToken"`
	Sequence     *struct{ ID string } `json:"Sequence"`
}

// resolve turns the templates into the ids added before and after the sequence. Each
// processor of a Sequence wraps what the previous ones produced.
func (p *postProcessor) resolve() error {
	for i, raw := range p.templates {
		var pieces []templatePiece
		if err := json.Unmarshal(raw, &pieces); err != nil {
			return unsupported("TemplateProcessing single template %s (only the list form)", raw)
		}
		var pre, suf []int
		seen := 0
		for _, pc := range pieces {
			switch {
			case pc.Sequence != nil:
				if pc.Sequence.ID != "A" {
					return unsupported("TemplateProcessing single template with sequence %q", pc.Sequence.ID)
				}
				seen++
			case pc.SpecialToken != nil:
				st, ok := p.special[i][pc.SpecialToken.ID]
				if !ok {
					return fmt.Errorf("TemplateProcessing uses %q, missing from its special_tokens", pc.SpecialToken.ID)
				}
				if seen == 0 {
					pre = append(pre, st.IDs...)
				} else {
					suf = append(suf, st.IDs...)
				}
			default:
				return unsupported("TemplateProcessing template piece %s", raw)
			}
		}
		if seen != 1 {
			return unsupported("TemplateProcessing single template without exactly one $A")
		}
		p.prefix = append(pre, p.prefix...)
		p.suf = append(p.suf, suf...)
	}
	p.templates, p.special = nil, nil
	return nil
}

// AddSpecialTokens returns ids with the special tokens the tokenizer.json post-processor adds
// around a single sequence (the reference's encode with add_special_tokens=true), such as
// Llama 2's and Gemma's BOS. tokenizer_config.json's add_bos_token/add_eos_token are not
// consulted: like the reference, only tokenizer.json counts.
func (t *BPE) AddSpecialTokens(ids []int) []int {
	out := make([]int, 0, len(t.post.prefix)+len(ids)+len(t.post.suf))
	out = append(append(append(out, t.post.prefix...), ids...), t.post.suf...)
	return out
}
