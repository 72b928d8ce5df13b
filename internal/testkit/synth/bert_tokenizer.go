package synth

import "strings"

// bertWords are whole words of the synthetic BERT vocabulary beyond single characters, so
// test texts become a few tokens each rather than one per letter.
var bertWords = strings.Fields(`the a of and to in is was for on that with as it by at from this be are or an
what who when where how why which do does i you we they my your our
code access vault archive key door open lock number secret
cat dog fish bird animal pet food eat eats
river bank money water boat city train station music song piano
bake bread oven recipe flour cake sugar butter
rain weather cloud sun storm wind snow cold warm
query passage document report page chapter
##s ##ing ##ed ##er ##ly ##est`)

// BertVocab is the synthetic BERT's WordPiece vocabulary in id order: BERT's special tokens,
// ASCII punctuation, digits and letters whole and as "##" continuations, then bertWords.
func BertVocab() []string {
	v := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	for c := byte('!'); c <= '~'; c++ {
		if c >= 'A' && c <= 'Z' { // lowercased away
			continue
		}
		v = append(v, string(c))
	}
	for _, c := range "0123456789abcdefghijklmnopqrstuvwxyz" {
		v = append(v, "##"+string(c))
	}
	seen := map[string]bool{}
	for _, t := range v {
		seen[t] = true
	}
	for _, w := range bertWords {
		if !seen[w] {
			v = append(v, w)
			seen[w] = true
		}
	}
	return v
}

// bertTokenizer is tokenizer.json for vocab as BERT exports write it: all-MiniLM's
// TemplateProcessing, or the older BertProcessing (ms-marco cross-encoders) when bertProcessing.
func bertTokenizer(vocab []string, bertProcessing bool) map[string]any {
	ids := map[string]int{}
	for i, t := range vocab {
		ids[t] = i
	}
	var added []map[string]any
	for i, t := range vocab[:5] {
		added = append(added, map[string]any{"id": i, "content": t, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true})
	}
	special := func(t string, typ int) map[string]any {
		return map[string]any{"SpecialToken": map[string]any{"id": t, "type_id": typ}}
	}
	seq := func(s string, typ int) map[string]any {
		return map[string]any{"Sequence": map[string]any{"id": s, "type_id": typ}}
	}
	post := map[string]any{
		"type":   "TemplateProcessing",
		"single": []any{special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)},
		"pair":   []any{special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1), special("[SEP]", 1)},
		"special_tokens": map[string]any{
			"[CLS]": map[string]any{"id": "[CLS]", "ids": []int{ids["[CLS]"]}, "tokens": []string{"[CLS]"}},
			"[SEP]": map[string]any{"id": "[SEP]", "ids": []int{ids["[SEP]"]}, "tokens": []string{"[SEP]"}},
		},
	}
	if bertProcessing {
		post = map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", ids["[SEP]"]}, "cls": []any{"[CLS]", ids["[CLS]"]}}
	}
	return map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": added,
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": post,
		"decoder":        map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model":          map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": ids},
	}
}
