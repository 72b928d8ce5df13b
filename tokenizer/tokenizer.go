// Package tokenizer turns text into token ids and back for BPE models, reading a Hugging Face
// tokenizer.json and matching the Hugging Face implementation token for token.
//
// Two entry points keep special tokens where the app puts them: EncodeSpecial for text the app
// controls (a rendered chat template, where "<|im_start|>" becomes its special id) and Encode for
// user content, where the same characters are ordinary text.
//
// Two families are supported. Byte-level BPE (Qwen2/2.5/3, Llama 3, DeepSeek-V3, GPT-4o style):
// Split pre-tokenizers with the regexes of those tokenizers, matched by hand-written code with
// the reference's semantics, and ByteLevel. SentencePiece-style BPE (Llama 2, Mistral, Phi-3,
// TinyLlama, Gemma): normalizers Prepend and Replace, no pre-tokenizer, Metaspace or a Split on
// a literal string, byte_fallback to <0xNN> tokens, unk and fuse_unk, and the decoders Replace,
// ByteFallback, Fuse, Strip and Metaspace. Both: NFC and Sequence normalizers, BPE merges by
// rank (as "a b" strings or [a, b] pairs), ignore_merges, added tokens with single_word,
// lstrip, rstrip and normalized, and the TemplateProcessing post-processor (AddSpecialTokens).
// Load refuses anything else, naming it (ErrUnsupported). The reference's Unicode versions are kept: its regex classes are Unicode
// 16.0 (unicode_tables.go) and its NFC is Unicode 9.0 with no stream-safe limit (normalize.go).
package tokenizer

import (
	"sync"
	"unicode/utf8"
)

// Tokenizer is what the engine needs from a tokenizer. *BPE implements it; so does the
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

// BPE is a byte-level BPE tokenizer loaded from a tokenizer.json. It is safe for concurrent use.
type BPE struct {
	model    bpeModel
	norm     normalizer
	pre      preTokenizer
	added    addedVocab
	decoding decodeTable
	decoder  decoderChain // SentencePiece-style decoders; nil for byte-level BPE
	post     postProcessor

	vocabSize    int
	chatTemplate string
	special      SpecialTokens

	pool sync.Pool // *encodeState
}

var _ Tokenizer = (*BPE)(nil)

// ChatTemplate is the chat_template of tokenizer_config.json ("" if none).
func (t *BPE) ChatTemplate() string { return t.chatTemplate }

// SpecialTokens returns the BOS, EOS, PAD and UNK tokens named in tokenizer_config.json.
func (t *BPE) SpecialTokens() SpecialTokens { return t.special }

// VocabSize is the highest id + 1, including added tokens.
func (t *BPE) VocabSize() int { return t.vocabSize }

// TokenID returns the id of token: an added token first, then the model's vocabulary (whose
// entries are in byte-level form, e.g. "Ġthe").
func (t *BPE) TokenID(token string) (int, bool) {
	if id, ok := t.added.byContent[token]; ok {
		return id, true
	}
	id, ok := t.model.vocab[token]
	return int(id), ok
}

// IsSpecial reports whether id is an added token marked special.
func (t *BPE) IsSpecial(id int) bool {
	return id >= 0 && id < len(t.decoding.kind) && t.decoding.kind[id] == kindSpecial
}

// Encode tokenizes user content: no added or special token is matched.
func (t *BPE) Encode(text string) []int {
	st := t.state()
	defer t.pool.Put(st)
	return t.encodeNormalized(st, t.normalize(validUTF8(text)), true, nil)
}

// EncodeSpecial tokenizes app-controlled text: added tokens (special or not) become their ids,
// found as Hugging Face does: first the tokens matched on the raw text, then, in what remains
// after normalization, the tokens marked "normalized".
func (t *BPE) EncodeSpecial(text string) []int {
	return t.EncodeParts([]Part{{Text: text, Special: true}})
}

// encodeNormalized pre-tokenizes normalized text and runs BPE on every piece; first tells
// whether the text starts the input.
func (t *BPE) encodeNormalized(st *encodeState, text string, first bool, ids []int) []int {
	if ids == nil {
		ids = make([]int, 0, len(text)/3+1)
	}
	st.ids = ids
	t.pre.split(text, first, st.emit)
	ids = st.ids
	st.ids = nil
	return ids
}

func (t *BPE) state() *encodeState {
	if st, ok := t.pool.Get().(*encodeState); ok {
		return st
	}
	st := &encodeState{model: &t.model}
	st.emit = st.encodePiece
	return st
}

// encodeState is the scratch space of one Encode call.
type encodeState struct {
	model *bpeModel
	ids   []int
	emit  func(piece string)
	work  bpeWork
}

func (st *encodeState) encodePiece(piece string) {
	st.ids = st.model.encodeWord(&st.work, piece, st.ids)
}

// validUTF8 replaces invalid bytes with U+FFFD, as a Rust String (what the reference takes)
// would have them.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string(appendLossy(nil, []byte(s)))
}
