package tokenizer

import (
	"fmt"
	"iter"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// model turns one pre-tokenized piece into ids: BPE, WordPiece, WordLevel or Unigram.
type model interface {
	// encode appends the ids of piece. For a byte-level pipeline the piece is raw bytes, each
	// standing for its GPT-2 byte-level character.
	encode(w *work, piece string, ids []int) []int
	// vocab is the model's vocabulary.
	vocab() *vocabInfo
	// describe names the model and its options, for inspect.
	describe() string
}

// vocabInfo is a model's vocabulary: token → id and id → token, as the reference's
// token_to_id and id_to_token see them.
type vocabInfo struct {
	ids    map[string]int32 // WordPiece, WordLevel, Unigram (small vocabularies)
	table  *vocabTable      // BPE, in place of ids
	tokens []string         // by id; "" where no token has the id (see present); see fillTokens
	has    []bool
	limit  int // the largest id + 1
	size   int // the reference's get_vocab_size: the number of entries, which numbers added tokens
}

// setTokens checks the ids and fills tokens and has from them, for a BPE vocabulary (only
// the decode table reads them) not until fillTokens.
func (v *vocabInfo) setTokens() error {
	maxID, err := maxVocabID(v)
	if err != nil {
		return err
	}
	v.limit = int(maxID) + 1
	if v.table == nil {
		v.fillTokens()
	}
	if v.size == 0 {
		v.size = v.count()
	}
	return nil
}

// fillTokens fills tokens and has, once.
func (v *vocabInfo) fillTokens() {
	if v.tokens != nil {
		return
	}
	v.tokens, v.has = make([]string, v.limit), make([]bool, v.limit)
	for tok, id := range v.all() {
		v.tokens[id], v.has[id] = tok, true
	}
}

// idLimit is the largest id + 1.
func (v *vocabInfo) idLimit() int {
	if v.tokens != nil {
		return len(v.tokens)
	}
	return v.limit
}

func (v *vocabInfo) vocab() *vocabInfo { return v }

// get returns the id of tok.
func (v *vocabInfo) get(tok string) (int32, bool) {
	if v.table != nil {
		return v.table.get(tok)
	}
	id, ok := v.ids[tok]
	return id, ok
}

// all yields every token with its id.
func (v *vocabInfo) all() iter.Seq2[string, int32] {
	if v.table != nil {
		return v.table.all()
	}
	return maps.All(v.ids)
}

// count is the number of tokens.
func (v *vocabInfo) count() int {
	if v.table != nil {
		return v.table.len()
	}
	return len(v.ids)
}

// lookup returns tok's id, or -1 when the vocabulary lacks it (get of a map-backed vocabulary,
// Unigram's or WordLevel's, gives 0 then).
func (v *vocabInfo) lookup(tok string) int32 {
	id, ok := v.get(tok)
	if !ok {
		return -1
	}
	return id
}

// work is the scratch space of one Encode call's model.
type work struct {
	bpeWork
	uni   unigramWork
	buf   []byte
	cache map[string][]int32 // merged words of a BPE model cut at "▁" (bpesplit.go)
}

// byteLevelString appends the GPT-2 byte-level characters of raw bytes to dst.
func byteLevelString(dst []byte, raw string) []byte {
	for i := 0; i < len(raw); i++ {
		dst = utf8.AppendRune(dst, byteToRune[raw[i]])
	}
	return dst
}

// bpeModel is the BPE model. For a byte-level pipeline pieces are handled as raw bytes: the
// byte-level alphabet is a one-to-one renaming of bytes, so each byte's token is looked up in
// a table. Otherwise a piece starts as its characters, each one a vocab entry (with the
// continuing-subword prefix after the first and the end-of-word suffix on the last) or,
// failing that, its <0xNN> byte tokens or unk.
type bpeModel struct {
	vocabInfo
	merges       mergeTable // left<<32|right → rank<<32|merged id
	byteLevel    bool
	prefix       string // continuing_subword_prefix ("" for none)
	suffix       string // end_of_word_suffix
	ignoreMerges bool
	dropout      float64       // the file's BPE dropout, not applied (see newBPE)
	cutMeta      bool          // pieces may be cut before "▁" (bpesplit.go)
	metaJoin     map[rune]bool // not after these characters
	joinsOnce    sync.Once     // joins is built when a long part first needs it
	joins        *runeJoins
	byteFallback bool
	fuseUnk      bool
	unk          int32 // -1 without an unk token

	// Byte-level: the id of each byte as the first, a middle, the last or the only character of
	// a piece, -1 when that token is missing; raw maps tokens as raw bytes to ids (ignore_merges).
	byteFirst, byteMid, byteLast, byteOnly [256]int32
	raw                                    map[string]int32
	// Otherwise: the id of each ASCII character alone, and of each <0xNN> token.
	ascii    [128]int32
	fallback [256]int32
	// bmp remembers the ids of the characters of the Basic Multilingual Plane looked up alone
	// (id+2; 1 when missing, 0 not yet looked up): a plain model starts every piece from its
	// characters, and a lookup in a large vocabulary costs several cache misses.
	bmp []atomic.Int32
}

func (m *bpeModel) describe() string {
	var opts []string
	if m.byteLevel {
		opts = append(opts, "byte-level")
	}
	if m.byteFallback {
		opts = append(opts, "byte_fallback")
	}
	if m.prefix != "" {
		opts = append(opts, fmt.Sprintf("continuing_subword_prefix %q", m.prefix))
	}
	if m.suffix != "" {
		opts = append(opts, fmt.Sprintf("end_of_word_suffix %q", m.suffix))
	}
	if m.ignoreMerges {
		opts = append(opts, "ignore_merges")
	}
	if m.dropout != 0 {
		opts = append(opts, fmt.Sprintf("dropout %v not applied (every merge, as at inference)", m.dropout))
	}
	return describeWith(fmt.Sprintf("BPE (%d tokens, %d merges)", m.table.len(), m.merges.n), opts)
}

func describeWith(s string, opts []string) string {
	if len(opts) == 0 {
		return s
	}
	return s + ", " + strings.Join(opts, ", ")
}

// newBPE builds the BPE model of a tokenizer.json.
func newBPE(c *component, vocab *vocabTable, merges *mergeList, byteLevel bool) (*bpeModel, error) {
	if vocab == nil || !merges.present() {
		return nil, c.errorf("missing vocab or merges")
	}
	m := &bpeModel{vocabInfo: vocabInfo{table: vocab}, byteLevel: byteLevel, unk: -1}
	var dropout *float64
	var unk, prefix, suffix *string
	for _, f := range []struct {
		name string
		v    any
	}{{"dropout", &dropout}, {"unk_token", &unk}, {"continuing_subword_prefix", &prefix},
		{"end_of_word_suffix", &suffix}, {"fuse_unk", &m.fuseUnk}, {"byte_fallback", &m.byteFallback},
		{"ignore_merges", &m.ignoreMerges}} {
		if _, err := c.nullable(f.name, f.v); err != nil {
			return nil, err
		}
	}
	if dropout != nil && (*dropout < 0 || *dropout > 1) {
		return nil, c.errorf("dropout %v is not between 0 and 1", *dropout)
	}
	// BPE dropout skips merges at random, a regularisation for training: a file saved with it
	// (a fine-tune's tokenizer.json) makes the Rust library tokenize differently at every call.
	// The model is run as it is meant to be at inference, with every merge — the tokens the
	// reference gives when no merge happens to be dropped — and inspect says so.
	if dropout != nil {
		m.dropout = *dropout
	}
	if prefix != nil {
		m.prefix = *prefix
	}
	if suffix != nil {
		m.suffix = *suffix
	}
	if unk != nil {
		id, ok := vocab.get(*unk)
		if !ok {
			return nil, fmt.Errorf("BPE unk_token %q is not in the vocab (the reference fails on the first unknown character)", *unk)
		}
		m.unk = id
	}
	if err := m.setTokens(); err != nil {
		return nil, err
	}
	m.buildTables()
	if !byteLevel && m.prefix == "" && m.suffix == "" {
		m.bmp = make([]atomic.Int32, 1<<16)
	}
	m.metaJoin, m.cutMeta = m.metaJoins()
	return m, m.buildMerges(merges)
}

// buildTables fills the per-byte and per-character lookups.
func (m *bpeModel) buildTables() {
	for c := range m.ascii {
		m.ascii[c] = m.lookup(string(rune(c)))
	}
	for b := range m.fallback {
		m.fallback[b] = m.lookup(fmt.Sprintf("<0x%02X>", b))
	}
	if !m.byteLevel {
		return
	}
	for b := range 256 {
		c := string(byteToRune[b])
		m.byteFirst[b] = m.lookup(c)
		m.byteMid[b] = m.lookup(m.prefix + c)
		m.byteLast[b] = m.lookup(m.prefix + c + m.suffix)
		m.byteOnly[b] = m.lookup(c + m.suffix)
	}
	if m.ignoreMerges {
		m.raw = make(map[string]int32, m.table.len())
		var buf []byte
		for tok, id := range m.table.all() {
			var ok bool
			if buf, ok = appendByteLevelDecode(buf[:0], tok); ok {
				m.raw[string(buf)] = id
			}
		}
	}
}

// buildMerges indexes the merges by pair; a later duplicate replaces an earlier one, as in
// the reference. The merged token of (a, b) is a followed by b less the continuing-subword
// prefix's length, as there. The tokens are looked up a batch at a time (see getMany) but for
// the merged one when it is the entry of the last merge's or the next one: the files put
// merges in the order of their merged tokens' ids, and their vocab in id order, so this
// comparison of bytes that lie one after another almost always spares a lookup.
func (m *bpeModel) buildMerges(merges *mergeList) error {
	n := merges.count()
	t := m.table
	m.merges = newMergeTable(n)
	cut := len(m.prefix)
	var keys [3 * lookupBatch]string
	var ents [3 * lookupBatch]int32
	var merged [lookupBatch]int32 // the merged token's entry, or the index of its key (-1-k)
	var buf []byte
	out := merges.reuse() // each merge's pair and value, written once the merge is read
	if out == nil {
		out = make([]mergeSlot, n)
	}
	guess := 0 // the entry of the last merged token found
	for first := 0; first < n; first += lookupBatch {
		batch := min(lookupBatch, n-first)
		buf = buf[:0]
		k := 0
		for i := range batch {
			a, b := merges.pair(first + i)
			keys[k], keys[k+1] = bytesView(a), bytesView(b)
			k += 2
			b = b[min(cut, len(b)):]
			switch {
			case t.isJoin(guess, a, b):
				merged[i] = int32(guess)
			case t.isJoin(guess+1, a, b):
				guess++
				merged[i] = int32(guess)
			default:
				merged[i] = int32(-1 - k)
				at := len(buf)
				buf = append(append(buf, a...), b...)
				keys[k] = bytesView(buf[at:]) // buf's array may move: set again below
				k++
			}
		}
		for i, at := 0, 0; i < batch; i++ { // the keys of merged tokens, now that buf is whole
			if merged[i] < 0 {
				key := -1 - merged[i]
				size := len(keys[key])
				keys[key] = bytesView(buf[at : at+size])
				at += size
			}
		}
		t.getMany(keys[:k], ents[:k])
		for i, k := 0, 0; i < batch; i++ {
			rank, a, b := first+i, ents[k], ents[k+1]
			if a < 0 || b < 0 || len(keys[k+1]) < cut {
				return fmt.Errorf("merge %d (%q, %q) uses a token missing from the vocab", rank, keys[k], keys[k+1])
			}
			c := merged[i]
			if c < 0 {
				if c = ents[k+2]; c < 0 {
					return fmt.Errorf("merge %d (%q, %q) makes %q, missing from the vocab", rank, keys[k], keys[k+1], keys[k+2])
				}
				k++
			}
			guess = int(c)
			k += 2
			out[rank] = mergeSlot{uint64(uint32(t.ents[a].id))<<32 | uint64(uint32(t.ents[b].id)),
				uint64(rank)<<32 | uint64(uint32(t.ents[c].id))}
		}
	}
	m.merges.putAll(out)
	return nil
}

// encode appends the ids of one piece.
func (m *bpeModel) encode(w *work, piece string, ids []int) []int {
	if piece == "" {
		return ids
	}
	if m.byteLevel {
		if m.ignoreMerges {
			if id, ok := m.raw[piece]; ok {
				return append(ids, int(id))
			}
		}
		if syms, ok := m.byteSymbols(w.syms[:0], piece); ok {
			w.syms = syms
			return m.merge(&w.bpeWork, ids)
		}
		w.buf = byteLevelString(w.buf[:0], piece)
		piece = string(w.buf)
	} else if m.ignoreMerges {
		if id, ok := m.table.get(piece); ok {
			return append(ids, int(id))
		}
	} else if m.cutMeta && len(piece) >= splitLongPiece {
		return m.encodeCut(w, piece, ids)
	}
	w.syms = m.symbols(w, piece)
	return m.merge(&w.bpeWork, ids)
}

// byteSymbols appends the starting symbols of a raw-byte piece from the byte tables; ok is
// false when a token is missing (then the general path decides between fallback and unk).
func (m *bpeModel) byteSymbols(syms []int32, piece string) ([]int32, bool) {
	n := len(piece)
	if n == 1 {
		id := m.byteOnly[piece[0]]
		return append(syms, id), id >= 0
	}
	id := m.byteFirst[piece[0]]
	syms = append(syms, id)
	ok := id >= 0
	for i := 1; i < n-1; i++ {
		id = m.byteMid[piece[i]]
		syms = append(syms, id)
		ok = ok && id >= 0
	}
	id = m.byteLast[piece[n-1]]
	return append(syms, id), ok && id >= 0
}

// symbols starts a piece as the reference's merge_word does: each character (with the prefix
// after the first, the suffix on the last) is its id; failing that its bytes' <0xNN> tokens if
// they all exist, else unk (runs of unk fused into one with fuse_unk; a pending unk waits past
// byte tokens, as there); without unk the character is dropped.
func (m *bpeModel) symbols(w *work, piece string) []int32 {
	syms := w.syms[:0]
	unkPending := false
	plain := m.prefix == "" && m.suffix == ""
	for i := 0; i < len(piece); {
		id, n := int32(-1), 1
		c := piece[i]
		if c >= utf8.RuneSelf {
			_, n = utf8.DecodeRuneInString(piece[i:])
		}
		first, last := i == 0, i+n == len(piece)
		var s string
		if plain {
			if c < utf8.RuneSelf {
				id = m.ascii[c]
			} else {
				id = m.charID(piece[i : i+n])
			}
		} else {
			b := w.buf[:0]
			if !first {
				b = append(b, m.prefix...)
			}
			b = append(b, piece[i:i+n]...)
			if last {
				b = append(b, m.suffix...)
			}
			w.buf = b
			if v, ok := m.table.getBytes(b); ok {
				id = v
			}
		}
		if id >= 0 {
			if unkPending {
				syms, unkPending = append(syms, m.unk), false
			}
			syms = append(syms, id)
			i += n
			continue
		}
		if plain {
			s = piece[i : i+n]
		} else {
			s = string(w.buf)
		}
		i += n
		if m.byteFallback && m.hasFallback(s) {
			for j := 0; j < len(s); j++ {
				syms = append(syms, m.fallback[s[j]])
			}
			continue
		}
		if m.unk >= 0 {
			if unkPending && !m.fuseUnk {
				syms = append(syms, m.unk)
			}
			unkPending = true
		}
	}
	if unkPending {
		syms = append(syms, m.unk)
	}
	return syms
}

// charID is the id of the token that is c alone (c is usually one character), -1 when the
// vocabulary lacks it.
func (m *bpeModel) charID(c string) int32 {
	if len(c) == 1 && c[0] < utf8.RuneSelf {
		return m.ascii[c[0]]
	}
	r, n := utf8.DecodeRuneInString(c)
	if n != len(c) || int(r) >= len(m.bmp) || r == utf8.RuneError && n == 1 {
		return m.lookup(c)
	}
	if v := m.bmp[r].Load(); v != 0 {
		return v - 2
	}
	id := m.lookup(c)
	m.bmp[r].Store(id + 2)
	return id
}

func (m *bpeModel) hasFallback(s string) bool {
	for j := 0; j < len(s); j++ {
		if m.fallback[s[j]] < 0 {
			return false
		}
	}
	return true
}
