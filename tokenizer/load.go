package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// ErrUnsupported is wrapped by Load's error when tokenizer.json uses a part this package does
// not implement; the message names the part. Such a file is refused rather than encoded wrong.
var ErrUnsupported = errors.New("unsupported tokenizer")

// Load reads a tokenizer from path: a tokenizer.json file or a folder holding one. The
// tokenizer_config.json beside it, if present, supplies the chat template and special tokens.
func Load(path string) (*BPE, error) {
	file, err := tokenizerFile(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	t, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", file, err)
	}
	t.chatTemplate, t.special, err = readConfig(file)
	return t, err
}

// tokenizerFile returns the tokenizer.json that path names or holds.
func tokenizerFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("load tokenizer: %w", err)
	}
	if !st.IsDir() {
		return path, nil
	}
	file := filepath.Join(path, "tokenizer.json")
	if _, err := os.Stat(file); err != nil {
		return "", fmt.Errorf("tokenizer.json not found in %s — choose the folder that holds it", path)
	}
	return file, nil
}

// readConfig reads the tokenizer_config.json beside file, if there is one.
func readConfig(file string) (string, SpecialTokens, error) {
	cfgFile := filepath.Join(filepath.Dir(file), "tokenizer_config.json")
	data, err := os.ReadFile(cfgFile)
	if errors.Is(err, os.ErrNotExist) {
		return "", SpecialTokens{}, nil
	}
	if err != nil {
		return "", SpecialTokens{}, fmt.Errorf("load tokenizer config: %w", err)
	}
	template, special, err := parseConfig(data)
	if err != nil {
		return "", special, fmt.Errorf("load tokenizer config %s: %w", cfgFile, err)
	}
	return template, special, nil
}

// fileJSON is the part of tokenizer.json this package reads.
type fileJSON struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    *component       `json:"normalizer"`
	PreTokenizer  *component       `json:"pre_tokenizer"`
	PostProcessor *component       `json:"post_processor"`
	Decoder       *component       `json:"decoder"`
	Truncation    json.RawMessage  `json:"truncation"`
	Padding       json.RawMessage  `json:"padding"`
	Model         modelJSON        `json:"-"` // read by scanFile with the vocab and merges
}

// modelJSON is the model of tokenizer.json without its vocab and merges.
type modelJSON struct {
	Type                    string   `json:"type"`
	Dropout                 *float64 `json:"dropout"`
	ContinuingSubwordPrefix *string  `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string  `json:"end_of_word_suffix"`
	ByteFallback            bool     `json:"byte_fallback"`
	IgnoreMerges            bool     `json:"ignore_merges"`
	UnkToken                *string  `json:"unk_token"`
	FuseUnk                 bool     `json:"fuse_unk"`
}

type addedTokenJSON struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	Lstrip     bool   `json:"lstrip"`
	Rstrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// component is a normalizer, pre-tokenizer, post-processor or decoder.
type component struct {
	Type           string       `json:"type"`
	Normalizers    []*component `json:"normalizers"`
	Pretokenizers  []*component `json:"pretokenizers"`
	Processors     []*component `json:"processors"`
	Decoders       []*component `json:"decoders"`
	Pattern        struct{ Regex, String *string }
	Behavior       string  `json:"behavior"`
	Invert         bool    `json:"invert"`
	AddPrefixSpace *bool   `json:"add_prefix_space"`
	UseRegex       bool    `json:"use_regex"`
	Prepend        string  `json:"prepend"`     // Prepend normalizer
	Content        string  `json:"content"`     // Replace normalizer and decoder, Strip decoder
	Replacement    string  `json:"replacement"` // Metaspace
	PrependScheme  *string `json:"prepend_scheme"`
	Split          *bool   `json:"split"`
	Start, Stop    int     // Strip decoder
	// TemplateProcessing: the single-sequence template and its special tokens.
	Single        json.RawMessage                `json:"single"`
	SpecialTokens map[string]struct{ IDs []int } `json:"special_tokens"`
}

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// parse builds a tokenizer from the bytes of a tokenizer.json. The decoder tells the family:
// ByteLevel for byte-level BPE, a chain of Replace/ByteFallback/Fuse/Strip/Metaspace for
// SentencePiece-style BPE.
func parse(data []byte) (*BPE, error) {
	var f fileJSON
	vocab, merges, err := scanFile(data, &f)
	if err != nil {
		return nil, fmt.Errorf("not a valid tokenizer.json: %w", err)
	}
	t := &BPE{}
	if t.norm, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	byteLevel := f.Decoder != nil && f.Decoder.Type == "ByteLevel"
	if byteLevel {
		var sp splitter
		sp, err = parsePreTokenizer(f.PreTokenizer)
		t.pre = &sp
	} else {
		if t.decoder, err = parseDecoders(f.Decoder); err == nil {
			t.pre, err = parseSPPreTokenizer(f.PreTokenizer)
		}
	}
	if err != nil {
		return nil, err
	}
	if t.post, err = parsePostProcessor(f.PostProcessor); err != nil {
		return nil, err
	}
	if s := string(f.Truncation); s != "" && s != "null" {
		return nil, unsupported("truncation settings (%s)", s)
	}
	if s := string(f.Padding); s != "" && s != "null" {
		return nil, unsupported("padding settings (%s)", s)
	}
	m := &f.Model
	switch {
	case m.Type != "BPE" && m.Type != "":
		return nil, unsupported("model %s (only BPE)", m.Type)
	case m.Dropout != nil && *m.Dropout != 0:
		return nil, unsupported("BPE dropout")
	case m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "" ||
		m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "":
		return nil, unsupported("BPE continuing_subword_prefix/end_of_word_suffix")
	case byteLevel && m.ByteFallback:
		return nil, unsupported("BPE byte_fallback with the ByteLevel decoder")
	}
	if byteLevel {
		err = t.buildModel(vocab, merges, m.IgnoreMerges)
	} else {
		err = t.buildSPModel(vocab, merges, m)
	}
	if err != nil {
		return nil, err
	}
	if err := t.post.resolve(); err != nil {
		return nil, err
	}
	if err := checkAddedIDs(f.AddedTokens, vocab); err != nil {
		return nil, err
	}
	initClasses()
	t.buildAdded(f.AddedTokens)
	return t, nil
}

// checkAddedIDs refuses added tokens whose ids differ from those the reference gives them when
// it loads the file: the id of the same content in the vocab, else the next one after the
// vocab and the tokens added before. (The reference silently renumbers; a file where that
// happens does not match its model.)
func checkAddedIDs(tokens []addedTokenJSON, vocab map[string]int32) error {
	assigned := map[string]int{}
	maxAdded := -1
	for _, tok := range tokens {
		if tok.Content == "" {
			continue
		}
		want, ok := assigned[tok.Content]
		if !ok {
			if id, inVocab := vocab[tok.Content]; inVocab {
				want = int(id)
			} else if maxAdded >= len(vocab) || len(vocab) == 0 {
				want = maxAdded + 1
			} else {
				want = len(vocab)
			}
		}
		if tok.ID != want {
			return fmt.Errorf("added token %q has id %d where the reference library gives it %d: the file's ids are inconsistent", tok.Content, tok.ID, want)
		}
		assigned[tok.Content] = want
		maxAdded = max(maxAdded, want)
	}
	return nil
}

func (c *component) name() string {
	if c == nil {
		return "none"
	}
	return c.Type
}

func parseNormalizer(c *component) (normalizer, error) {
	if c == nil {
		return nil, nil
	}
	switch c.Type {
	case "NFC":
		return normalizer{{kind: normNFC}}, nil
	case "Prepend":
		return normalizer{{kind: normPrepend, to: c.Prepend}}, nil
	case "Replace":
		if c.Pattern.String == nil || *c.Pattern.String == "" {
			return nil, unsupported("normalizer Replace with a regex or empty pattern")
		}
		return normalizer{{kind: normReplace, from: *c.Pattern.String, to: c.Content}}, nil
	case "Sequence":
		var n normalizer
		for _, c := range c.Normalizers {
			one, err := parseNormalizer(c)
			if err != nil {
				return nil, err
			}
			n = append(n, one...)
		}
		return n, nil
	}
	return nil, unsupported("normalizer %s (only NFC, Prepend, Replace and Sequence)", c.name())
}

// parsePreTokenizer accepts Split pre-tokenizers with known regexes followed by a ByteLevel
// one that only maps bytes (use_regex false, no prefix space), alone or in a Sequence.
func parsePreTokenizer(c *component) (splitter, error) {
	var sp splitter
	if c == nil {
		return sp, unsupported("missing pre_tokenizer (a byte-level BPE needs ByteLevel)")
	}
	list := []*component{c}
	if c.Type == "Sequence" {
		list = c.Pretokenizers
	}
	for i, p := range list {
		switch p.name() {
		case "Split":
			if p.Pattern.Regex == nil {
				return sp, unsupported("Split pre-tokenizer with a plain string pattern")
			}
			m, ok := splitPatterns[*p.Pattern.Regex]
			if !ok {
				return sp, unsupported("Split pre-tokenizer regex %q", *p.Pattern.Regex)
			}
			if p.Behavior != "Isolated" || p.Invert {
				return sp, unsupported("Split pre-tokenizer behavior %s (invert %v)", p.Behavior, p.Invert)
			}
			sp.levels = append(sp.levels, m)
		case "ByteLevel":
			if i != len(list)-1 {
				return sp, unsupported("ByteLevel pre-tokenizer before other pre-tokenizers")
			}
			if p.AddPrefixSpace != nil && *p.AddPrefixSpace || p.UseRegex {
				return sp, unsupported("ByteLevel pre-tokenizer with add_prefix_space or use_regex (GPT-2 style)")
			}
			return sp, nil
		default:
			return sp, unsupported("pre-tokenizer %s", p.name())
		}
	}
	return sp, unsupported("pre-tokenizer without ByteLevel (only byte-level BPE)")
}

func (t *BPE) buildModel(vocab map[string]int32, merges []mergePair, ignoreMerges bool) error {
	m := &t.model
	m.vocab, m.ignoreMerges = vocab, ignoreMerges
	if ignoreMerges {
		m.raw = make(map[string]int32, len(vocab))
	}
	maxID, err := maxVocabID(vocab)
	if err != nil {
		return err
	}
	d := &t.decoding
	d.kind = make([]uint8, maxID+1)
	d.off = make([]uint32, maxID+2)
	toks := make([]string, maxID+1)
	for tok, id := range vocab {
		toks[id] = tok
		d.kind[id] = kindModel
	}
	d.bytes = make([]byte, 0, len(vocab)*6)
	for id, tok := range toks {
		d.off[id] = uint32(len(d.bytes))
		start := len(d.bytes)
		var ok bool
		d.bytes, ok = appendByteLevelDecode(d.bytes, tok)
		if ok && m.raw != nil {
			m.raw[string(d.bytes[start:])] = int32(id)
		}
	}
	d.off[len(toks)] = uint32(len(d.bytes))
	for b := 0; b < 256; b++ {
		id, ok := vocab[string(byteToRune[b])]
		if !ok {
			return unsupported("vocab without the byte-level symbol %q for byte 0x%02X (not a byte-level BPE)", byteToRune[b], b)
		}
		m.byteID[b] = id
	}
	t.vocabSize = int(maxID) + 1
	return m.buildMerges(merges)
}

// buildMerges indexes the merges by pair; a later duplicate replaces an earlier one, as in
// the reference. The vocab lookups, most of a large file's load time, run on every CPU.
func (m *bpeModel) buildMerges(merges []mergePair) error {
	m.merges = newMergeTable(len(merges))
	keys, vals := make([]uint64, len(merges)), make([]uint64, len(merges))
	workers := min(runtime.GOMAXPROCS(0), 1+len(merges)/20000)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var buf []byte
			for rank := w; rank < len(merges); rank += workers {
				p := merges[rank]
				a, okA := m.vocab[string(p[0])]
				b, okB := m.vocab[string(p[1])]
				buf = append(append(buf[:0], p[0]...), p[1]...)
				c, okC := m.vocab[string(buf)]
				if !okA || !okB || !okC {
					errs[w] = fmt.Errorf("merge %d (%q, %q) uses a token missing from the vocab", rank, p[0], p[1])
					return
				}
				keys[rank], vals[rank] = uint64(uint32(a))<<32|uint64(uint32(b)), uint64(rank)<<32|uint64(uint32(c))
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, k := range keys {
		m.merges.put(k, vals[i])
	}
	return nil
}

// maxVocabID is the largest id in vocab (-1 when it is empty); a negative id is an error.
func maxVocabID(vocab map[string]int32) (int32, error) {
	maxID := int32(-1)
	for tok, id := range vocab {
		if id < 0 {
			return 0, fmt.Errorf("vocab entry %q has negative id %d", tok, id)
		}
		maxID = max(maxID, id)
	}
	return maxID, nil
}
