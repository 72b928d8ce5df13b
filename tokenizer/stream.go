package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// StreamDecoder turns ids into text as they arrive, never emitting a broken UTF-8 sequence:
// bytes of an unfinished character are held back until it completes, and Flush returns what
// is left. The texts it returns, joined, equal Decode of all the ids: a decoder that strips
// the output's first space (Llama 2's Strip, Metaspace) strips it once, not from every token.
// One goroutine owns it.
type StreamDecoder struct {
	t           Tokenizer
	table       *decodeTable // byte-level *Pipeline (ByteLevel decoder alone)
	chain       *decoder     // *Pipeline whose decoder works token by token
	skipSpecial bool
	out         []byte
	pending     []byte
	ids         []int    // ids whose text is not returned yet (generic and SentencePiece paths)
	first       bool     // SentencePiece path: ids start the output
	toks        []string // SentencePiece path: scratch
	prefix      string   // generic path: text of the ids already returned that ids starts with
	prefixIDs   int      // generic path: how many of ids that is
}

// NewStreamDecoder returns a decoder for the ids of t; skipSpecial drops special tokens.
func NewStreamDecoder(t Tokenizer, skipSpecial bool) *StreamDecoder {
	d := &StreamDecoder{t: t, skipSpecial: skipSpecial, first: true}
	if b, ok := t.(*Pipeline); ok {
		switch {
		case b.dec.byteLevelOnly:
			d.table = b.decoding()
		case b.dec.streamable():
			d.table, d.chain = b.decoding(), &b.dec
		}
	}
	return d
}

// NewStreamDecoderAfter returns a decoder for ids that continue prev, such as a raw
// completion's continuation of its prompt: the texts it returns, joined, are what Decode of
// prev and the ids gives beyond Decode of prev, so a decoder that strips the output's first
// space (Llama 2) keeps the space between the prompt and the first new word.
func NewStreamDecoderAfter(t Tokenizer, skipSpecial bool, prev []int) *StreamDecoder {
	d := NewStreamDecoder(t, skipSpecial)
	switch {
	case d.table == nil:
		// The reference's DecodeStream primed with the last few ids as context.
		d.ids = append(d.ids, prev[max(0, len(prev)-8):]...)
		d.prefixIDs = len(d.ids)
		d.prefix = t.Decode(d.ids, skipSpecial)
	case d.chain != nil:
		d.first = t.Decode(prev, skipSpecial) == ""
	}
	return d
}

// Add takes the next id and returns the text it completes (maybe "").
func (d *StreamDecoder) Add(id int) string {
	switch {
	case d.table == nil:
		return d.addGeneric(id)
	case d.chain != nil:
		return d.addChain(id)
	}
	d.out, d.pending = d.table.appendID(d.out[:0], d.pending, id, d.skipSpecial)
	cut := incompleteTail(d.pending)
	d.out = appendLossy(d.out, d.pending[:cut])
	d.pending = append(d.pending[:0], d.pending[cut:]...)
	return string(d.out)
}

// Flush returns whatever is held back, invalid bytes as U+FFFD, and resets the decoder.
func (d *StreamDecoder) Flush() string {
	switch {
	case d.table == nil:
		s := d.t.Decode(d.ids, d.skipSpecial)
		s = strings.TrimPrefix(s, d.prefix)
		d.ids, d.prefix, d.prefixIDs = d.ids[:0], "", 0
		return s
	case d.chain != nil:
		s := d.decodeWindow()
		d.ids, d.first = d.ids[:0], true
		return s
	}
	s := string(appendLossy(nil, d.pending))
	d.pending = d.pending[:0]
	return s
}

// addChain decodes a window of ids with the SentencePiece decoder chain. A run of <0xNN>
// tokens is held until it ends, since ByteFallback turns the whole run into U+FFFDs when any
// of it is invalid. Once a window gives text, the next one continues it (first false), which
// equals decoding everything at once: every step works per token or per byte run, except
// the strip at the output's start, which has happened by then.
func (d *StreamDecoder) addChain(id int) string {
	d.ids = append(d.ids, id)
	if id < 0 || id >= len(d.table.kind) {
		return ""
	}
	switch d.table.kind[id] {
	case kindNone:
		return ""
	case kindModel:
		if _, ok := byteOf(d.table.toks[id]); ok && d.chain.hasByteFallback() {
			return ""
		}
	}
	if d.skipSpecial && d.table.special[id] {
		return ""
	}
	s := d.decodeWindow()
	if s != "" {
		d.ids, d.first = d.ids[:0], false
	}
	return s
}

func (d *StreamDecoder) decodeWindow() string {
	d.toks = d.table.tokens(d.toks[:0], d.ids, d.skipSpecial)
	return d.chain.decode(d.toks, d.first)
}

func (c *decoder) hasByteFallback() bool {
	for _, st := range c.steps {
		if st.kind == decByteFallback {
			return true
		}
	}
	return false
}

// addGeneric works through Decode for tokenizers without a decode table, as the reference's
// DecodeStream: the ids of the text returned last stay as context, so a decoder that treats
// the output's start specially sees each new id in place. Text ending in U+FFFD (possibly an
// unfinished character) is held back, for at most a few ids.
func (d *StreamDecoder) addGeneric(id int) string {
	d.ids = append(d.ids, id)
	s := d.t.Decode(d.ids, d.skipSpecial)
	if len(s) <= len(d.prefix) || strings.HasSuffix(s, "\uFFFD") && len(d.ids)-d.prefixIDs < 4 {
		return ""
	}
	n := commonPrefix(s, d.prefix)
	out := s[n:]
	d.ids = append(d.ids[:0], d.ids[d.prefixIDs:]...)
	d.prefixIDs = len(d.ids)
	d.prefix = d.t.Decode(d.ids, d.skipSpecial)
	return out
}

// commonPrefix returns the length of the longest common prefix of a and b that ends on a
// character boundary of a.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return n
}
