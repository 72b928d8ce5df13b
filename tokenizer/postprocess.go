package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// postProcessor adds the special tokens of tokenizer.json's post-processor around a sequence
// or a pair when special tokens are asked for (the reference's add_special_tokens=true), with
// their token type ids: TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel (adds
// nothing) and Sequence (each wrapping what the previous produced).
type postProcessor struct {
	steps []postStep
}

// postStep lays out one post-processor: pieces for a single sequence and for a pair.
type postStep struct {
	kind         string
	single, pair []templatePiece
}

// templatePiece is a sequence (seq 0 for A, 1 for B) or special token ids, with a type id.
type templatePiece struct {
	seq    int // -1 for special tokens
	ids    []int
	typeID int
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
	case "Sequence":
		return c.each("processors", p.add)
	case "ByteLevel":
		var b bool
		for _, f := range []string{"add_prefix_space", "trim_offsets"} {
			if err := c.required(f, &b); err != nil {
				return err
			}
		}
		return nil
	case "BertProcessing", "RobertaProcessing":
		var sep, cls [2]json.RawMessage
		if err := c.required("sep", &sep); err != nil {
			return err
		}
		if err := c.required("cls", &cls); err != nil {
			return err
		}
		var sepID, clsID int
		if err := json.Unmarshal(sep[1], &sepID); err != nil {
			return c.errorf("sep id: %v", err)
		}
		if err := json.Unmarshal(cls[1], &clsID); err != nil {
			return c.errorf("cls id: %v", err)
		}
		if c.Type == "RobertaProcessing" {
			var b bool
			for _, f := range []string{"trim_offsets", "add_prefix_space"} {
				if err := c.required(f, &b); err != nil {
					return err
				}
			}
			p.steps = append(p.steps, robertaStep(clsID, sepID))
			return nil
		}
		const pairType = 1
		st := postStep{kind: c.Type}
		st.single = []templatePiece{{seq: -1, ids: []int{clsID}}, {seq: 0}, {seq: -1, ids: []int{sepID}}}
		st.pair = append(append([]templatePiece{}, st.single...), []templatePiece{{seq: 1, typeID: pairType}, {seq: -1, ids: []int{sepID}, typeID: pairType}}...)
		p.steps = append(p.steps, st)
		return nil
	case "TemplateProcessing":
		var single, pair []map[string]struct {
			ID     string `json:"id"`
			TypeID int    `json:"type_id"`
		}
		var special map[string]struct {
			IDs []int `json:"ids"`
		}
		for _, f := range []struct {
			name string
			v    any
		}{{"single", &single}, {"pair", &pair}, {"special_tokens", &special}} {
			if err := c.required(f.name, f.v); err != nil {
				return err
			}
		}
		st := postStep{kind: c.Type}
		for i, tmpl := range [][]map[string]struct {
			ID     string `json:"id"`
			TypeID int    `json:"type_id"`
		}{single, pair} {
			var pieces []templatePiece
			for _, pc := range tmpl {
				if len(pc) != 1 {
					return c.errorf("template piece %v", pc)
				}
				for k, v := range pc {
					switch k {
					case "Sequence":
						seq := map[string]int{"A": 0, "B": 1}[v.ID]
						if v.ID != "A" && v.ID != "B" || i == 0 && seq == 1 {
							return c.errorf("template sequence %q", v.ID)
						}
						pieces = append(pieces, templatePiece{seq: seq, typeID: v.TypeID})
					case "SpecialToken":
						sp, ok := special[v.ID]
						if !ok {
							return c.errorf("template uses %q, missing from its special_tokens", v.ID)
						}
						pieces = append(pieces, templatePiece{seq: -1, ids: sp.IDs, typeID: v.TypeID})
					default:
						return c.errorf("template piece %q", k)
					}
				}
			}
			if i == 0 {
				st.single = pieces
			} else {
				st.pair = pieces
			}
		}
		p.steps = append(p.steps, st)
		return nil
	}
	return unsupported("post-processor %s", c.name())
}

func (p postProcessor) names() []string {
	var out []string
	for _, st := range p.steps {
		out = append(out, st.kind)
	}
	return out
}

// Encoding is a post-processed sequence or pair: the ids with their token type ids (0 for
// the first sequence, as the post-processor says for the second), what BERT-style embedding
// and reranking models take as token_type_ids.
type Encoding struct {
	IDs     []int
	TypeIDs []int
}

// apply lays out a (with b when pair) through every step; each step of a Sequence wraps the
// result of the previous one as its sequence A (the reference's processors see one encoding
// after the first has merged the pair).
func (p postProcessor) apply(a, b Encoding, pair bool) Encoding {
	for _, st := range p.steps {
		tmpl := st.single
		if pair {
			tmpl = st.pair
		}
		var out Encoding
		for _, pc := range tmpl {
			switch {
			case pc.seq < 0:
				out.IDs = append(out.IDs, pc.ids...)
				for range pc.ids {
					out.TypeIDs = append(out.TypeIDs, pc.typeID)
				}
			default:
				src := a
				if pc.seq == 1 {
					src = b
				}
				out.IDs = append(out.IDs, src.IDs...)
				for range src.IDs {
					out.TypeIDs = append(out.TypeIDs, pc.typeID)
				}
			}
		}
		a, pair = out, false
	}
	if pair { // no post-processor: the pair is concatenated, B with type id 1
		out := Encoding{IDs: append(append([]int{}, a.IDs...), b.IDs...)}
		out.TypeIDs = append(append(out.TypeIDs, a.TypeIDs...), b.TypeIDs...)
		return out
	}
	return a
}

func plainEncoding(ids []int, typeID int) Encoding {
	e := Encoding{IDs: ids, TypeIDs: make([]int, len(ids))}
	for i := range e.TypeIDs {
		e.TypeIDs[i] = typeID
	}
	return e
}

// AddSpecialTokens returns ids with the special tokens the tokenizer.json post-processor adds
// around a single sequence (the reference's encode with add_special_tokens=true), such as
// Llama 2's and Gemma's BOS or BERT's [CLS] … [SEP]. tokenizer_config.json's
// add_bos_token/add_eos_token are not consulted: like the reference, only tokenizer.json counts.
func (t *Pipeline) AddSpecialTokens(ids []int) []int {
	if len(t.post.steps) == 0 {
		return append([]int{}, ids...)
	}
	return t.post.apply(plainEncoding(ids, 0), Encoding{}, false).IDs
}

// EncodePair tokenizes a pair of texts the app controls (such as a reranker's query and
// document) with the post-processor's special tokens and token type ids, as the reference's
// encode((a, b), add_special_tokens=true) — a pair even when b is empty, as there.
func (t *Pipeline) EncodePair(a, b string) Encoding {
	return t.post.apply(plainEncoding(t.EncodeSpecial(a), 0), plainEncoding(t.EncodeSpecial(b), 1), true)
}

func (st postStep) String() string {
	var b strings.Builder
	for _, pc := range st.single {
		if pc.seq >= 0 {
			b.WriteString("$A ")
		} else {
			fmt.Fprintf(&b, "%v ", pc.ids)
		}
	}
	return strings.TrimSpace(b.String())
}

// PostProcess lays out sequences already tokenized (user text encoded with Encode, perhaps
// cut) as the post-processor says: a alone, or the pair a, b when pair, with special tokens
// and token type ids. It is EncodePair for callers that must cut the texts first.
func (t *Pipeline) PostProcess(a, b []int, pair bool) Encoding {
	return t.post.apply(plainEncoding(a, 0), plainEncoding(b, 1), pair)
}

// AddedTokens is how many special tokens the post-processor puts around one sequence, or
// around a pair.
func (t *Pipeline) AddedTokens(pair bool) int {
	return len(t.PostProcess(nil, nil, pair).IDs)
}

// robertaStep is RobertaProcessing: <s> A </s> and <s> A </s></s> B </s>, every type id 0.
func robertaStep(clsID, sepID int) postStep {
	return postStep{kind: "RobertaProcessing",
		single: []templatePiece{{seq: -1, ids: []int{clsID}}, {seq: 0}, {seq: -1, ids: []int{sepID}}},
		pair: []templatePiece{{seq: -1, ids: []int{clsID}}, {seq: 0}, {seq: -1, ids: []int{sepID}},
			{seq: -1, ids: []int{sepID}}, {seq: 1}, {seq: -1, ids: []int{sepID}}}}
}
