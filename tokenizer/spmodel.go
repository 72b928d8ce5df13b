package tokenizer

import "fmt"

// buildSPModel sets up a SentencePiece-style BPE model: the vocab as it is in the file, the
// character and <0xNN> lookups, unk and the merges.
func (t *BPE) buildSPModel(vocab map[string]int32, merges []mergePair, mj *modelJSON) error {
	m := &t.model
	m.sp, m.vocab, m.ignoreMerges = true, vocab, mj.IgnoreMerges
	m.byteFallback, m.fuseUnk, m.unk = mj.ByteFallback, mj.FuseUnk, -1
	maxID, err := maxVocabID(vocab)
	if err != nil {
		return err
	}
	d := &t.decoding
	d.kind = make([]uint8, maxID+1)
	d.toks = make([]string, maxID+1)
	for tok, id := range vocab {
		d.toks[id], d.kind[id] = tok, kindModel
	}
	for c := range m.ascii {
		m.ascii[c] = lookup(vocab, string(rune(c)))
	}
	for b := range m.fallback {
		m.fallback[b] = lookup(vocab, fmt.Sprintf("<0x%02X>", b))
	}
	if mj.UnkToken != nil {
		m.unk = lookup(vocab, *mj.UnkToken)
	}
	t.vocabSize = int(maxID) + 1
	return m.buildMerges(merges)
}

func lookup(vocab map[string]int32, tok string) int32 {
	if id, ok := vocab[tok]; ok {
		return id
	}
	return -1
}

// spTokens appends the token strings of ids to dst, as the reference hands them to its
// decoder: added tokens by their content, special ones left out with skipSpecial, unknown ids
// dropped.
func (d *decodeTable) spTokens(dst []string, ids []int, skipSpecial bool) []string {
	for _, id := range ids {
		if id < 0 || id >= len(d.kind) {
			continue
		}
		switch d.kind[id] {
		case kindModel:
			dst = append(dst, d.toks[id])
		case kindSpecial:
			if skipSpecial {
				continue
			}
			fallthrough
		case kindAdded:
			dst = append(dst, d.added[id])
		}
	}
	return dst
}
