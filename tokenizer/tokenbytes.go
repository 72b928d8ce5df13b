package tokenizer

// TokenBytes returns the bytes token id adds to a text it continues (not at the text's start,
// where a SentencePiece decoder may strip a space): a byte-level token's bytes, which may be
// part of a UTF-8 character; a SentencePiece piece with "▁" as a space, or a byte-fallback
// token's one byte; an added token's content. It returns false for special tokens and ids
// outside the vocabulary. Constrained decoding matches these bytes against a grammar.
func (t *BPE) TokenBytes(id int) ([]byte, bool) {
	d := &t.decoding
	if id < 0 || id >= len(d.kind) {
		return nil, false
	}
	switch d.kind[id] {
	case kindAdded:
		return []byte(d.added[id]), true
	case kindModel:
		if t.decoder == nil {
			return d.bytes[d.off[id]:d.off[id+1]], true
		}
		tok := d.toks[id]
		if b, ok := byteOf(tok); ok && t.decoder.hasByteFallback() {
			return []byte{b}, true
		}
		return []byte(t.decoder.decode([]string{tok}, false)), true
	}
	return nil, false
}
