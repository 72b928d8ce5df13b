package tokenizer

import "strings"

// StreamDecoder turns ids into text as they arrive, never emitting a broken UTF-8 sequence:
// bytes of an unfinished character are held back until it completes, and Flush returns what
// is left. The texts it returns, joined, equal Decode of all the ids. One goroutine owns it.
type StreamDecoder struct {
	t           Tokenizer
	table       *decodeTable // nil for tokenizers other than *BPE
	skipSpecial bool
	out         []byte
	pending     []byte
	ids         []int // generic path: ids whose text is not complete yet
}

// NewStreamDecoder returns a decoder for the ids of t; skipSpecial drops special tokens.
func NewStreamDecoder(t Tokenizer, skipSpecial bool) *StreamDecoder {
	d := &StreamDecoder{t: t, skipSpecial: skipSpecial}
	if b, ok := t.(*BPE); ok {
		d.table = &b.decoding
	}
	return d
}

// Add takes the next id and returns the text it completes (maybe "").
func (d *StreamDecoder) Add(id int) string {
	if d.table == nil {
		return d.addGeneric(id)
	}
	d.out, d.pending = d.table.appendID(d.out[:0], d.pending, id, d.skipSpecial)
	cut := incompleteTail(d.pending)
	d.out = appendLossy(d.out, d.pending[:cut])
	d.pending = append(d.pending[:0], d.pending[cut:]...)
	return string(d.out)
}

// Flush returns whatever is held back, invalid bytes as U+FFFD, and resets the decoder.
func (d *StreamDecoder) Flush() string {
	if d.table == nil {
		s := d.t.Decode(d.ids, d.skipSpecial)
		d.ids = d.ids[:0]
		return s
	}
	s := string(appendLossy(nil, d.pending))
	d.pending = d.pending[:0]
	return s
}

// addGeneric works through Decode for tokenizers without a decode table: it holds ids back
// while their text ends in U+FFFD (possibly an unfinished character), at most a few ids.
func (d *StreamDecoder) addGeneric(id int) string {
	d.ids = append(d.ids, id)
	s := d.t.Decode(d.ids, d.skipSpecial)
	if strings.HasSuffix(s, "\uFFFD") && len(d.ids) < 4 {
		return ""
	}
	d.ids = d.ids[:0]
	return s
}
