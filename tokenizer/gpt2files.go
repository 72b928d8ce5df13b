package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// loadVocabMerges builds the tokenizer transformers' GPT-2 or RoBERTa converter makes from
// vocab.json and merges.txt: byte-level BPE with GPT-2's regex (add_prefix_space from
// tokenizer_config.json, default false), the ByteLevel decoder; <s> … </s> around the text for
// the RoBERTa family (tokenizer_class or config.json's model_type), else BOS before the text when
// add_bos_token is set; the named special tokens and the added tokens of tokenizer_config.json's
// added_tokens_decoder (or added_tokens.json).
func loadVocabMerges(vocabFile, mergesFile string) (*Pipeline, error) {
	data, err := os.ReadFile(vocabFile)
	if err != nil {
		return nil, err
	}
	var vocab map[string]int32
	if err := json.Unmarshal(data, &vocab); err != nil {
		return nil, fmt.Errorf("vocab.json: %w", err)
	}
	merges, err := readMergesTxt(mergesFile)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(vocabFile)
	extra, err := readSlowConfig(dir)
	if err != nil {
		return nil, err
	}
	t := &Pipeline{}
	t.pre = preTokenizer{steps: []preStep{&byteLevelStep{addPrefixSpace: extra.AddPrefixSpace, useRegex: true}}, byteLevel: true}
	t.dec = decoder{steps: []decodeStep{{kind: decByteLevel}}, byteLevelOnly: true}
	mc := &component{kind: "model", Type: "BPE", fields: map[string]json.RawMessage{}}
	if t.model, err = newBPE(mc, vocabFromMap(vocab), &mergeList{pairs: merges}, true); err != nil {
		return nil, err
	}
	if extra.robertaFamily() {
		// RobertaConverter: <s> A </s> and <s> A </s></s> B </s>, every type id 0.
		sep, okSep := vocab[extra.sep]
		cls, okCls := vocab[extra.cls]
		if !okSep || !okCls {
			return nil, fmt.Errorf("%s: a %s needs its sep_token %q and cls_token %q in vocab.json", dir, extra.class(), extra.sep, extra.cls)
		}
		t.post.steps = []postStep{robertaStep(int(cls), int(sep))}
	} else if extra.AddBOS != nil && *extra.AddBOS && extra.bos != "" {
		if id, ok := vocab[extra.bos]; ok {
			t.post.steps = []postStep{{kind: "TemplateProcessing",
				single: []templatePiece{{seq: -1, ids: []int{int(id)}}, {seq: 0}},
				pair:   []templatePiece{{seq: -1, ids: []int{int(id)}}, {seq: 0}, {seq: 1, typeID: 1}}}}
		}
	}
	initClasses()
	t.finish(append(extra.namedSpecials(func(s string) bool { _, ok := vocab[s]; return ok }), extra.added...))
	return t, nil
}

// readMergesTxt reads merges.txt: one "a b" pair a line, a "#version" line skipped.
func readMergesTxt(file string) ([]mergePair, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var merges []mergePair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Bytes()
		if bytes.HasPrefix(l, []byte("#version")) {
			continue
		}
		a, b, ok := bytes.Cut(l, []byte(" "))
		if !ok || bytes.IndexByte(b, ' ') >= 0 {
			return nil, fmt.Errorf("%s line %d is not two tokens separated by a space", file, line)
		}
		merges = append(merges, mergePair{bytes.Clone(a), bytes.Clone(b)})
	}
	return merges, sc.Err()
}

// slowConfig is what tokenizer_config.json says to transformers' converters.
type slowConfig struct {
	AddPrefixSpace bool   `json:"add_prefix_space"`
	AddBOS         *bool  `json:"add_bos_token"`
	AddEOS         *bool  `json:"add_eos_token"`
	Legacy         *bool  `json:"legacy"`
	TokenizerClass string `json:"tokenizer_class"`
	ExtraIDs       *int   `json:"extra_ids"`
	// modelType is config.json's model_type, which names the converter when
	// tokenizer_config.json has no tokenizer_class.
	modelType string
	// The named special tokens: transformers adds them as special tokens to a tokenizer it
	// builds, whether or not added_tokens_decoder lists them.
	bos, eos, unk, sep, pad, cls, mask string
	added                              []addedTokenJSON
}

// class is the converter's family, lower case: the tokenizer_class without its "Tokenizer" or
// "TokenizerFast" ending ("RobertaTokenizer" → "roberta"), else config.json's model_type.
func (c slowConfig) class() string {
	if c.TokenizerClass != "" {
		s := strings.TrimSuffix(strings.TrimSuffix(c.TokenizerClass, "Fast"), "Tokenizer")
		return strings.ToLower(s)
	}
	return strings.ToLower(c.modelType)
}

// robertaFamily reports whether transformers converts the folder with its RobertaConverter
// (RoBERTa, BART, Longformer, LED, MVP), which wraps the text in <s> … </s>.
func (c slowConfig) robertaFamily() bool {
	switch c.class() {
	case "roberta", "bart", "longformer", "led", "mvp":
		return true
	}
	return false
}

// t5Family reports whether transformers converts the folder with its T5Converter (T5, mT5,
// UMT5, LongT5), which ends the text with </s>.
func (c slowConfig) t5Family() bool {
	switch c.class() {
	case "t5", "mt5", "umt5", "longt5":
		return true
	}
	return false
}

// namedSpecials lists the named special tokens (bos_token, eos_token, …) that inVocab finds,
// as transformers adds them when it builds the tokenizer; RoBERTa's mask token takes the space
// before it (lstrip), as RobertaTokenizer makes it. Tokens the config's added tokens list keep
// that entry's flags.
func (c slowConfig) namedSpecials(inVocab func(string) bool) []addedTokenJSON {
	var out []addedTokenJSON
	seen := map[string]bool{}
	for _, a := range c.added {
		seen[a.Content] = true
	}
	for _, s := range []string{c.bos, c.eos, c.unk, c.sep, c.pad, c.cls, c.mask} {
		if s == "" || seen[s] || !inVocab(s) {
			continue
		}
		seen[s] = true
		out = append(out, addedTokenJSON{Content: s, Special: true, Lstrip: s == c.mask && c.robertaFamily()})
	}
	return out
}

// readSlowConfig reads the converter settings and added tokens of a folder without a
// tokenizer.json: tokenizer_config.json's added_tokens_decoder, else added_tokens.json. The named
// special tokens come from tokenizer_config.json, else special_tokens_map.json, as transformers
// reads them.
func readSlowConfig(dir string) (slowConfig, error) {
	var c slowConfig
	type named struct {
		Decoder    map[string]addedTokenJSON `json:"added_tokens_decoder"`
		BOS        json.RawMessage           `json:"bos_token"`
		EOS        json.RawMessage           `json:"eos_token"`
		UNK        json.RawMessage           `json:"unk_token"`
		SEP        json.RawMessage           `json:"sep_token"`
		PAD        json.RawMessage           `json:"pad_token"`
		CLS        json.RawMessage           `json:"cls_token"`
		Mask       json.RawMessage           `json:"mask_token"`
		Additional []json.RawMessage         `json:"additional_special_tokens"`
		Extra      json.RawMessage           `json:"extra_special_tokens"` // a list, or names to tokens
	}
	var raw named
	if data, err := os.ReadFile(filepath.Join(dir, "special_tokens_map.json")); err == nil {
		if err := json.Unmarshal(data, &raw); err != nil {
			return c, fmt.Errorf("special_tokens_map.json: %w", err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json"))
	if err == nil {
		if err := json.Unmarshal(data, &c); err != nil {
			return c, fmt.Errorf("tokenizer_config.json: %w", err)
		}
		var cfg named
		if err := json.Unmarshal(data, &cfg); err != nil {
			return c, fmt.Errorf("tokenizer_config.json: %w", err)
		}
		// A key of tokenizer_config.json wins over special_tokens_map.json's.
		for _, f := range []struct{ to, from *json.RawMessage }{{&raw.BOS, &cfg.BOS}, {&raw.EOS, &cfg.EOS},
			{&raw.UNK, &cfg.UNK}, {&raw.SEP, &cfg.SEP}, {&raw.PAD, &cfg.PAD}, {&raw.CLS, &cfg.CLS}, {&raw.Mask, &cfg.Mask}} {
			if *f.from != nil {
				*f.to = *f.from
			}
		}
		if cfg.Additional != nil {
			raw.Additional = cfg.Additional
		}
		if cfg.Extra != nil {
			raw.Extra = cfg.Extra
		}
		raw.Decoder = cfg.Decoder
	}
	c.bos, _ = tokenString(raw.BOS)
	c.eos, _ = tokenString(raw.EOS)
	c.unk, _ = tokenString(raw.UNK)
	c.sep, _ = tokenString(raw.SEP)
	c.pad, _ = tokenString(raw.PAD)
	c.cls, _ = tokenString(raw.CLS)
	c.mask, _ = tokenString(raw.Mask)
	special := map[string]bool{}
	for _, s := range []string{c.bos, c.eos, c.unk, c.sep, c.pad, c.cls, c.mask} {
		special[s] = s != ""
	}
	extra := raw.Additional
	var list []json.RawMessage
	var byName map[string]json.RawMessage
	if json.Unmarshal(raw.Extra, &list) == nil {
		extra = append(extra, list...)
	} else if json.Unmarshal(raw.Extra, &byName) == nil {
		for _, t := range byName {
			extra = append(extra, t)
		}
	}
	for _, t := range extra {
		if s, _ := tokenString(t); s != "" {
			special[s] = true
		}
	}
	for k, tok := range raw.Decoder {
		id, err := strconv.Atoi(k)
		if err != nil {
			return c, fmt.Errorf("tokenizer_config.json: added_tokens_decoder key %q is not an id", k)
		}
		tok.ID = id
		c.added = append(c.added, tok)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "config.json")); err == nil {
		var m struct {
			ModelType string `json:"model_type"`
		}
		if json.Unmarshal(data, &m) == nil {
			c.modelType = m.ModelType
		}
	}
	if len(c.added) == 0 {
		if data, err := os.ReadFile(filepath.Join(dir, "added_tokens.json")); err == nil {
			var m map[string]int
			if err := json.Unmarshal(data, &m); err != nil {
				return c, fmt.Errorf("added_tokens.json: %w", err)
			}
			// Special when it is a named or additional special token, else normalized, as
			// transformers reads the file.
			for content, id := range m {
				c.added = append(c.added, addedTokenJSON{ID: id, Content: content, Special: special[content], Normalized: !special[content]})
			}
		}
	}
	sort.Slice(c.added, func(i, j int) bool { return c.added[i].ID < c.added[j].ID })
	return c, nil
}
