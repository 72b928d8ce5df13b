package tokenizer

// TokenBytes returns the bytes token id adds to a text it continues (not at the text's start,
// where a SentencePiece decoder may strip a space): a byte-level token's bytes, which may be
// part of a UTF-8 character; a SentencePiece piece with "▁" as a space, or a byte-fallback
// token's one byte; an added token's content. It returns false for special tokens and ids
// outside the vocabulary. Constrained decoding matches these bytes against a grammar. For the
// decoders that look across tokens (WordPiece, BPEDecoder, CTC) it is the token decoded alone.
func (t *Pipeline) TokenBytes(id int) ([]byte, bool) {
	d := t.decoding()
	if id < 0 || id >= len(d.kind) || d.special[id] {
		return nil, false
	}
	switch d.kind[id] {
	case kindAdded:
		return []byte(d.toks[id]), true
	case kindModel:
		if t.dec.byteLevelOnly {
			return d.bytes[d.off[id]:d.off[id+1]], true
		}
		tok := d.toks[id]
		if b, ok := byteOf(tok); ok && t.dec.hasByteFallback() {
			return []byte{b}, true
		}
		return []byte(t.dec.decode([]string{tok}, false)), true
	}
	return nil, false
}
