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
)

// loadVocabMerges builds the tokenizer transformers' GPT-2 converter makes from vocab.json and
// merges.txt: byte-level BPE with GPT-2's regex (add_prefix_space from tokenizer_config.json,
// default false), the ByteLevel decoder, BOS before the text when add_bos_token is set, and the
// added tokens of tokenizer_config.json's added_tokens_decoder (or added_tokens.json).
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
	if extra.AddBOS != nil && *extra.AddBOS && extra.bos != "" {
		if id, ok := vocab[extra.bos]; ok {
			t.post.steps = []postStep{{kind: "TemplateProcessing",
				single: []templatePiece{{seq: -1, ids: []int{int(id)}}, {seq: 0}},
				pair:   []templatePiece{{seq: -1, ids: []int{int(id)}}, {seq: 0}, {seq: 1, typeID: 1}}}}
		}
	}
	initClasses()
	t.finish(extra.added)
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
	AddPrefixSpace bool  `json:"add_prefix_space"`
	AddBOS         *bool `json:"add_bos_token"`
	AddEOS         *bool `json:"add_eos_token"`
	Legacy         *bool `json:"legacy"`
	bos, eos       string
	added          []addedTokenJSON
}

// readSlowConfig reads the converter settings and added tokens of a folder without a
// tokenizer.json: tokenizer_config.json's added_tokens_decoder, else added_tokens.json.
func readSlowConfig(dir string) (slowConfig, error) {
	var c slowConfig
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json"))
	if err == nil {
		var raw struct {
			Decoder map[string]addedTokenJSON `json:"added_tokens_decoder"`
			BOS     json.RawMessage           `json:"bos_token"`
			EOS     json.RawMessage           `json:"eos_token"`
		}
		if err := json.Unmarshal(data, &c); err != nil {
			return c, fmt.Errorf("tokenizer_config.json: %w", err)
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return c, fmt.Errorf("tokenizer_config.json: %w", err)
		}
		c.bos, _ = tokenString(raw.BOS)
		c.eos, _ = tokenString(raw.EOS)
		for k, tok := range raw.Decoder {
			id, err := strconv.Atoi(k)
			if err != nil {
				return c, fmt.Errorf("tokenizer_config.json: added_tokens_decoder key %q is not an id", k)
			}
			tok.ID = id
			c.added = append(c.added, tok)
		}
	}
	if len(c.added) == 0 {
		if data, err := os.ReadFile(filepath.Join(dir, "added_tokens.json")); err == nil {
			var m map[string]int
			if err := json.Unmarshal(data, &m); err != nil {
				return c, fmt.Errorf("added_tokens.json: %w", err)
			}
			for content, id := range m {
				c.added = append(c.added, addedTokenJSON{ID: id, Content: content, Special: true})
			}
		}
	}
	sort.Slice(c.added, func(i, j int) bool { return c.added[i].ID < c.added[j].ID })
	return c, nil
}
