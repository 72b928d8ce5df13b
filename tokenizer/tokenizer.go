// Package tokenizer turns text into token ids and back, reading a Hugging Face tokenizer.json
// (or the files transformers builds one from: vocab.json with merges.txt, or a SentencePiece
// tokenizer.model) and matching the Hugging Face implementation token for token.
//
// Two entry points keep special tokens where the app puts them: EncodeSpecial for text the app
// controls (a rendered chat template, where "<|im_start|>" becomes its special id) and Encode for
// user content, where the same characters are ordinary text.
//
// The whole pipeline of tokenizer.json is implemented with the reference's semantics and serde
// defaults: normalizers (NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Replace with a
// string or a regex, Prepend, BertNormalizer, Nmt, Precompiled, ByteLevel, Sequence),
// pre-tokenizers (ByteLevel with and without GPT-2's regex and the prefix space, Split with
// every behavior and invert, Digits, Punctuation, Whitespace, WhitespaceSplit, Metaspace,
// BertPreTokenizer, CharDelimiterSplit, Sequence), models (BPE with its prefix and suffix,
// byte fallback, unk and ignore_merges; WordPiece; WordLevel; Unigram with its Viterbi and byte
// fallback), post-processors (TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel,
// Sequence, with token type ids for pairs) and decoders (ByteLevel, WordPiece, Metaspace,
// BPEDecoder, CTC, Replace, Strip, Fuse, ByteFallback, Sequence), and added tokens with
// single_word, lstrip, rstrip and normalized. Load refuses anything else, naming it
// (ErrUnsupported); truncation and padding settings are ignored. The reference's Unicode
// versions are kept: its regex classes, \p{…} properties (every name its regex engine takes:
// scripts and their ISO 15924 codes, general categories, binary properties, POSIX names,
// blocks) and case foldings are Unicode 16.0 (unicode_tables.go, unicode_props.go), its
// NFC is Unicode 9.0 with no stream-safe limit (nfc.go), BERT's character classes Unicode 8.0.
package tokenizer

import (
	"slices"
	"sync"
	"unicode/utf8"
)

// Tokenizer is what the engine needs from a tokenizer. *Pipeline implements it; so does the
// daulet/tokenizers wrapper built with the hftokenizers tag.
type Tokenizer interface {
	// Encode tokenizes user content: added and special tokens are NOT matched, so a user who
	// types "<|im_end|>" gets the ids of that literal text.
	Encode(text string) []int
	// EncodeSpecial tokenizes text the app controls: added tokens become their ids.
	EncodeSpecial(text string) []int
	// Decode turns ids back into text; skipSpecial drops special tokens.
	Decode(ids []int, skipSpecial bool) string
	// VocabSize is the highest id + 1, including added tokens.
	VocabSize() int
	// TokenID is the id of a token string such as "<|im_end|>".
	TokenID(token string) (int, bool)
	// IsSpecial reports whether id is a special added token.
	IsSpecial(id int) bool
}

// SpecialTokens are the named special tokens of tokenizer_config.json ("" when unset).
type SpecialTokens struct {
	BOS, EOS, PAD, UNK string
}

// Pipeline is a tokenizer loaded from a tokenizer.json (or built from the files it is made
// from). It is safe for concurrent use.
type Pipeline struct {
	norm  normalizer
	pre   preTokenizer
	model model
	added addedVocab
	post  postProcessor
	dec   decoder

	// The decode table is built on first use (encoding does not need it): specials are the
	// special tokens' contents it marks.
	decodeOnce sync.Once
	decodeTab  decodeTable
	specials   map[string]bool

	vocabSize    int
	chatTemplate string
	special      SpecialTokens

	pool sync.Pool // *encodeState
}

var _ Tokenizer = (*Pipeline)(nil)

// ChatTemplate is the chat_template of tokenizer_config.json ("" if none).
func (t *Pipeline) ChatTemplate() string { return t.chatTemplate }

// SpecialTokens returns the BOS, EOS, PAD and UNK tokens named in tokenizer_config.json.
func (t *Pipeline) SpecialTokens() SpecialTokens { return t.special }

// VocabSize is the highest id + 1, including added tokens.
func (t *Pipeline) VocabSize() int { return t.vocabSize }

// TokenID returns the id of token: an added token first, then the model's vocabulary (whose
// entries are in byte-level form, e.g. "Ġthe").
func (t *Pipeline) TokenID(token string) (int, bool) {
	if id, ok := t.added.byContent[token]; ok {
		return id, true
	}
	id, ok := t.model.vocab().get(token)
	return int(id), ok
}

// IsSpecial reports whether id is dropped when decoding with skipSpecial: its text is a special
// added token's.
func (t *Pipeline) IsSpecial(id int) bool {
	special := t.decoding().special
	return id >= 0 && id < len(special) && special[id]
}

// Encode tokenizes user content: no added or special token is matched.
func (t *Pipeline) Encode(text string) []int {
	st := t.state()
	defer t.pool.Put(st)
	text = validUTF8(text)
	norm, keeps := t.norm.applyFirst(text)
	return t.encodeNormalized(st, norm, t.head(text, keeps), nil)
}

// EncodeSpecial tokenizes app-controlled text: added tokens (special or not) become their ids,
// found as Hugging Face does: first the tokens matched on the raw text, then, in what remains
// after normalization, the tokens marked "normalized".
func (t *Pipeline) EncodeSpecial(text string) []int {
	return t.EncodeParts([]Part{{Text: text, Special: true}})
}

// encodeNormalized pre-tokenizes normalized text and runs the model on every piece; first is
// the length of its start that stands for the start of the input (see preStep).
func (t *Pipeline) encodeNormalized(st *encodeState, text string, first int, ids []int) []int {
	if ids == nil {
		ids = make([]int, 0, len(text)/3+1)
	}
	st.ids = ids
	st.run(text, first)
	ids = st.ids
	st.ids = nil
	return ids
}

func (t *Pipeline) state() *encodeState {
	if st, ok := t.pool.Get().(*encodeState); ok {
		return st
	}
	st := &encodeState{model: t.model}
	st.run = t.pre.chain(st.encodePiece)
	return st
}

// encodeState is the scratch space of one Encode call.
type encodeState struct {
	model model
	ids   []int
	run   func(text string, first int)
	work  work
}

func (st *encodeState) encodePiece(piece string) {
	// A piece rarely has more tokens than bytes. Room for them is made by doubling, not by
	// append's gentler growth for large slices: a whole text with no pre-tokenizer
	// (SentencePiece-style BPE) is one piece, and many texts take more than a token per three
	// bytes (copying the ids as they grew was an eighth of encoding 1 MB with Llama 2).
	if len(st.ids)+len(piece) > cap(st.ids) {
		st.ids = slices.Grow(st.ids, max(len(piece), cap(st.ids)))
	}
	st.ids = st.model.encode(&st.work, piece, st.ids)
}

// validUTF8 replaces invalid bytes with U+FFFD, as a Rust String (what the reference takes)
// would have them.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string(appendLossy(nil, []byte(s)))
}

// Components names the parts of a tokenizer, for inspect.
type Components struct {
	Normalizer    []string `json:"normalizer,omitempty"`
	PreTokenizer  []string `json:"pre_tokenizer,omitempty"`
	Model         string   `json:"model"`
	PostProcessor []string `json:"post_processor,omitempty"`
	Decoder       []string `json:"decoder,omitempty"`
	AddedTokens   int      `json:"added_tokens"`
}

// Components describes the pipeline.
func (t *Pipeline) Components() Components {
	return Components{Normalizer: t.norm.names(), PreTokenizer: t.pre.names(), Model: t.model.describe(),
		PostProcessor: t.post.names(), Decoder: t.dec.names(), AddedTokens: len(t.added.byContent)}
}
