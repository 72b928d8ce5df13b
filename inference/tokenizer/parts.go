package tokenizer

import "strings"

// Part is a piece of a prompt: text the app controls (Special: added tokens are matched) or
// text a person wrote (matched as plain text only).
type Part struct {
	Text    string
	Special bool
}

// EncodeParts tokenizes a prompt made of parts. Added tokens are matched only inside Special
// parts; the plain text between two added tokens is normalized and pre-tokenized as one piece,
// across part boundaries, so the ids equal EncodeSpecial of the joined text wherever the
// non-special parts hold no token strings.
func (t *BPE) EncodeParts(parts []Part) []int {
	st := t.state()
	defer t.pool.Put(st)
	var ids []int
	var buf strings.Builder
	onlyApp := true // the buffered text came from Special parts only
	flush := func() {
		if buf.Len() == 0 {
			return
		}
		text := buf.String()
		buf.Reset()
		if !onlyApp {
			ids = t.encodeText(st, text, ids)
			onlyApp = true
			return
		}
		t.added.normalized.split(t.normalize(text), func(seg string, id int) {
			if id >= 0 {
				ids = append(ids, id)
				return
			}
			ids = t.encodeNormalized(st, seg, ids)
		})
	}
	for _, p := range parts {
		text := validUTF8(p.Text)
		if !p.Special {
			buf.WriteString(text)
			onlyApp = onlyApp && text == ""
			continue
		}
		t.added.raw.split(text, func(seg string, id int) {
			if id < 0 {
				buf.WriteString(seg)
				return
			}
			flush()
			ids = append(ids, id)
		})
	}
	flush()
	return ids
}
