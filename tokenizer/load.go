package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
)

// ErrUnsupported is wrapped by Load's error when tokenizer.json uses a part this package does
// not implement; the message names the part. Such a file is refused rather than encoded wrong.
var ErrUnsupported = errors.New("unsupported tokenizer")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// Load reads a tokenizer from path: a tokenizer.json file, or a model folder holding one — or,
// where a folder has none, the files transformers builds one from: vocab.json and merges.txt
// (GPT-2 style byte-level BPE) or tokenizer.model (a SentencePiece model). The folder's
// tokenizer_config.json, chat_template.jinja or chat_template.json supply the chat template and
// special tokens.
func Load(path string) (*Pipeline, error) {
	src, err := findSource(path)
	if err != nil {
		return nil, err
	}
	t, err := src.build()
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", src.describe(), err)
	}
	cfg, err := ReadFolderConfig(src.dir)
	if err != nil {
		return nil, err
	}
	t.chatTemplate, t.special = cfg.ChatTemplate, cfg.Special
	return t, nil
}

// parse builds a tokenizer from the bytes of a tokenizer.json.
func parse(data []byte) (*Pipeline, error) {
	f, err := scanFile(data)
	if err != nil {
		return nil, fmt.Errorf("not a valid tokenizer.json: %w", err)
	}
	return f.build()
}

// fileJSON is a tokenizer.json as scanned: every top-level value but the model, the model's
// options, and its vocabulary and merges (read by hand: most of the file).
type fileJSON struct {
	top     map[string]json.RawMessage
	model   map[string]json.RawMessage
	vocab   *vocabTable   // BPE, WordPiece, WordLevel
	pieces  []scoredPiece // Unigram
	merges  mergeList
	isArray bool // the vocab was a list (Unigram)
}

type scoredPiece struct {
	token string
	score float64
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

// build assembles the pipeline: normalizer, pre-tokenizer, model, post-processor and decoder,
// then the added tokens. truncation and padding are ignored: the app sets its own.
func (f *fileJSON) build() (*Pipeline, error) {
	if v, ok := f.top["version"]; ok {
		var s string
		if err := json.Unmarshal(v, &s); err != nil || s != "1.0" {
			return nil, fmt.Errorf("unknown tokenizer.json version %s", v)
		}
	}
	t := &Pipeline{}
	var comps [4]*component
	for i, k := range [...]struct{ key, kind string }{{"normalizer", "normalizer"}, {"pre_tokenizer", "pre-tokenizer"},
		{"post_processor", "post-processor"}, {"decoder", "decoder"}} {
		c, err := parseComponent(k.kind, f.top[k.key])
		if err != nil {
			return nil, err
		}
		comps[i] = c
	}
	var err error
	if t.norm, err = parseNormalizer(comps[0]); err != nil {
		return nil, err
	}
	if t.pre, err = parsePreTokenizer(comps[1]); err != nil {
		return nil, err
	}
	if t.post, err = parsePostProcessor(comps[2]); err != nil {
		return nil, err
	}
	if t.dec, err = parseDecoder(comps[3]); err != nil {
		return nil, err
	}
	if t.model, err = f.buildModel(t.pre.byteLevel); err != nil {
		return nil, err
	}
	var added []addedTokenJSON
	if raw := f.top["added_tokens"]; raw != nil && isNull(raw) {
		return nil, errors.New("added_tokens is null (the reference wants a list)")
	} else if raw != nil {
		var err error
		if added, err = parseAddedTokens(raw); err != nil {
			return nil, fmt.Errorf("added_tokens: %w", err)
		}
	}
	initClasses()
	t.finish(added)
	return t, nil
}

// buildModel reads the model: BPE, WordPiece, WordLevel or Unigram. byteLevel tells that the
// pre-tokenizer hands it raw bytes standing for GPT-2's byte-level characters.
func (f *fileJSON) buildModel(byteLevel bool) (model, error) {
	mc := &component{kind: "model", fields: f.model}
	if t, ok := f.model["type"]; ok {
		if err := json.Unmarshal(t, &mc.Type); err != nil {
			return nil, fmt.Errorf("model type is not a string")
		}
	}
	if mc.Type == "" { // the reference tries each model in turn; the vocab tells them apart
		switch {
		case f.isArray:
			mc.Type = "Unigram"
		case f.merges.present():
			mc.Type = "BPE"
		case f.model["continuing_subword_prefix"] != nil:
			mc.Type = "WordPiece"
		default:
			mc.Type = "WordLevel"
		}
	}
	if f.isArray != (mc.Type == "Unigram") {
		return nil, mc.errorf("vocab is a %s", map[bool]string{true: "list", false: "map"}[f.isArray])
	}
	switch mc.Type {
	case "BPE":
		return newBPE(mc, f.vocab, &f.merges, byteLevel)
	case "WordPiece":
		return newWordPiece(mc, f.vocab.toMap(), byteLevel)
	case "WordLevel":
		return newWordLevel(mc, f.vocab.toMap(), byteLevel)
	case "Unigram":
		return newUnigram(mc, f.pieces, byteLevel)
	}
	return nil, unsupported("model %s", mc.Type)
}

// maxVocabID is the largest id in vocab (-1 when it is empty); a negative id is an error.
func maxVocabID(vocab *vocabInfo) (int32, error) {
	maxID := int32(-1)
	for tok, id := range vocab.all() {
		if id < 0 {
			return 0, fmt.Errorf("vocab entry %q has negative id %d", tok, id)
		}
		maxID = max(maxID, id)
	}
	if maxID >= 1<<24 && int(maxID) > 4*vocab.count() {
		return 0, fmt.Errorf("vocab ids reach %d for %d tokens: the file is damaged", maxID, vocab.count())
	}
	return maxID, nil
}

// sourceKind names what a folder's tokenizer is built from.
type sourceKind uint8

const (
	sourceJSON       sourceKind = iota // tokenizer.json
	sourceVocabMerge                   // vocab.json + merges.txt
	sourceSPModel                      // tokenizer.model or spiece.model
)

// source is where Load found the tokenizer.
type source struct {
	kind sourceKind
	dir  string
	file string // tokenizer.json, vocab.json, tokenizer.model or spiece.model
}

func (s source) describe() string { return s.file }

// TokenizerFiles lists the file sets a tokenizer is read from, in order of preference:
// tokenizer.json, vocab.json with merges.txt, tokenizer.model, spiece.model (the SentencePiece
// model as T5, ALBERT, XLNet, Pegasus and others name it).
var TokenizerFiles = [][]string{{"tokenizer.json"}, {"vocab.json", "merges.txt"}, {"tokenizer.model"}, {"spiece.model"}}

// kindOf names what the file a TokenizerFiles set starts with is read as.
func kindOf(name string) sourceKind {
	switch name {
	case "vocab.json":
		return sourceVocabMerge
	case "tokenizer.model", "spiece.model":
		return sourceSPModel
	}
	return sourceJSON
}

// HasFiles reports whether one of the TokenizerFiles sets is complete, has telling whether a
// file is present.
func HasFiles(has func(name string) bool) bool {
	for _, set := range TokenizerFiles {
		ok := true
		for _, f := range set {
			ok = ok && has(f)
		}
		if ok {
			return true
		}
	}
	return false
}

// findSource locates the tokenizer that path names or holds.
func findSource(path string) (source, error) {
	st, err := os.Stat(path)
	if err != nil {
		return source{}, fmt.Errorf("load tokenizer: %w", err)
	}
	if !st.IsDir() {
		return source{kind: kindOf(filepath.Base(path)), dir: filepath.Dir(path), file: path}, nil
	}
	for _, files := range TokenizerFiles {
		ok := true
		for _, f := range files {
			ok = ok && fileExists(filepath.Join(path, f))
		}
		if ok {
			return source{kind: kindOf(files[0]), dir: path, file: filepath.Join(path, files[0])}, nil
		}
	}
	return source{}, fmt.Errorf("tokenizer.json not found in %s — choose the folder that holds it (or vocab.json with merges.txt, or tokenizer.model or spiece.model)", path)
}

// build reads the source into a pipeline.
func (s source) build() (*Pipeline, error) {
	switch s.kind {
	case sourceVocabMerge:
		return loadVocabMerges(s.file, filepath.Join(s.dir, "merges.txt"))
	case sourceSPModel:
		return loadSentencePiece(s.file)
	}
	data, release, err := readMapped(s.file)
	if err != nil {
		return nil, err
	}
	defer release()
	return parseMapped(data)
}

// minMapped is the size from which a tokenizer.json is memory-mapped where the system allows
// (readMapped): below it a plain read costs less than a mapping.
const minMapped = 1 << 20

// parseMapped is parse of bytes that may be a mapped file, which nothing built may point into
// (every token is copied out). Should the file shrink under the mapping while it is read, the
// fault is an error, not a crash.
func parseMapped(data []byte) (t *Pipeline, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			t, err = nil, errors.New("the file changed while it was read")
		}
	}()
	return parse(data)
}
