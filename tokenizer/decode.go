package tokenizer

import (
	"unicode/utf8"
)

// byteToRune is GPT-2's byte-level alphabet: printable bytes stand for themselves, the other
// 68 for U+0100 onwards. runeToByte is its inverse.
var byteToRune, runeToByte = byteLevelAlphabet()

func byteLevelAlphabet() (b2r [256]rune, r2b [0x100 + 68]byte) {
	n := rune(0)
	for b := 0; b < 256; b++ {
		printable := b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE
		if printable {
			b2r[b] = rune(b)
		} else {
			b2r[b] = 256 + n
			n++
		}
		r2b[b2r[b]] = byte(b)
	}
	return b2r, r2b
}

// appendByteLevelDecode appends the bytes a model token stands for. As in the reference, a
// token with a character outside the alphabet is taken as its own UTF-8 bytes (ok false).
func appendByteLevelDecode(dst []byte, tok string) (_ []byte, ok bool) {
	start := len(dst)
	for _, r := range tok {
		var b byte
		if r < 0x100 && byteToRune[r] == r {
			b = byte(r)
		} else if r >= 0x100 && r < 0x100+68 {
			b = runeToByte[r]
		} else {
			return append(dst[:start], tok...), false
		}
		dst = append(dst, b)
	}
	return dst, true
}

// Kinds of id in the decode table.
const (
	kindNone uint8 = iota
	kindModel
	kindAdded
)

// decodeTable holds what every id decodes to: the reference's id_to_token (an added token's
// content, else the model's token) and whether skip_special drops it (its text is the content
// of a special added token).
type decodeTable struct {
	kind    []uint8
	special []bool
	toks    []string // token strings by id
	// For the byte-level fast path (decoder ByteLevel alone): model tokens' bytes, back to
	// back; id's bytes are bytes[off[id]:off[id+1]].
	bytes []byte
	off   []uint32
}

// appendID appends the text of id to out, with pending holding the bytes of model tokens
// not yet converted to text (added tokens flush them first, as the reference does). It
// returns the new out and pending.
func (d *decodeTable) appendID(out, pending []byte, id int, skipSpecial bool) ([]byte, []byte) {
	if id < 0 || id >= len(d.kind) || skipSpecial && d.special[id] {
		return out, pending
	}
	switch d.kind[id] {
	case kindModel:
		pending = append(pending, d.bytes[d.off[id]:d.off[id+1]]...)
	case kindAdded:
		out = appendLossy(out, pending)
		out = append(out, d.toks[id]...)
		pending = pending[:0]
	}
	return out, pending
}

// tokens appends the token strings of ids to dst, as the reference hands them to its decoder:
// special ones left out with skipSpecial, unknown ids dropped.
func (d *decodeTable) tokens(dst []string, ids []int, skipSpecial bool) []string {
	for _, id := range ids {
		if id < 0 || id >= len(d.kind) || d.kind[id] == kindNone || skipSpecial && d.special[id] {
			continue
		}
		dst = append(dst, d.toks[id])
	}
	return dst
}

// Decode turns ids back into text; skipSpecial drops special tokens. The decoder of
// tokenizer.json runs as in the reference; for byte-level BPE bytes that do not form valid
// UTF-8 become U+FFFD, one per maximal invalid sequence.
func (t *Pipeline) Decode(ids []int, skipSpecial bool) string {
	if t.dec.byteLevelOnly {
		var out, pending []byte
		d := t.decoding()
		for _, id := range ids {
			out, pending = d.appendID(out, pending, id, skipSpecial)
		}
		return string(appendLossy(out, pending))
	}
	return t.dec.decode(t.decoding().tokens(nil, ids, skipSpecial), true)
}

// appendLossy appends b to dst with every maximal invalid UTF-8 subsequence replaced by one
// U+FFFD, as Rust's String::from_utf8_lossy does (Go's own conversions replace each byte).
func appendLossy(dst, b []byte) []byte {
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			dst = append(dst, b[0])
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r != utf8.RuneError || size > 1 {
			dst = append(dst, b[:size]...)
			b = b[size:]
			continue
		}
		dst = append(dst, "\uFFFD"...)
		b = b[validPrefix(b):]
	}
	return dst
}

// validPrefix returns how many bytes at the start of b begin a well-formed UTF-8 sequence
// (at least 1): the maximal subpart that one U+FFFD replaces, or a whole incomplete tail.
func validPrefix(b []byte) int {
	need, lo, hi := SeqShape(b[0])
	if need == 0 {
		return 1
	}
	k := 1
	for k < need && k < len(b) {
		if k > 1 {
			lo, hi = 0x80, 0xBF
		}
		if b[k] < lo || b[k] > hi {
			break
		}
		k++
	}
	return k
}

// SeqShape returns the length of the UTF-8 sequence that lead byte c starts and the allowed
// range of its second byte; need is 0 for a byte that cannot start one (an ASCII byte, a
// continuation byte, or a byte UTF-8 never uses).
func SeqShape(c byte) (need int, lo, hi byte) {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 2, 0x80, 0xBF
	case c == 0xE0:
		return 3, 0xA0, 0xBF
	case c == 0xED:
		return 3, 0x80, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		return 3, 0x80, 0xBF
	case c == 0xF0:
		return 4, 0x90, 0xBF
	case c >= 0xF1 && c <= 0xF3:
		return 4, 0x80, 0xBF
	case c == 0xF4:
		return 4, 0x80, 0x8F
	}
	return 0, 0, 0
}

// incompleteTail returns where a trailing, still completable UTF-8 sequence starts in b, or
// len(b) when b does not end inside one.
func incompleteTail(b []byte) int {
	for back := 1; back <= 3 && back <= len(b); back++ {
		i := len(b) - back
		if b[i] < 0x80 {
			return len(b)
		}
		if b[i] >= 0xC0 {
			need, _, _ := SeqShape(b[i])
			if need > back && validPrefix(b[i:]) == back {
				return i
			}
			return len(b)
		}
	}
	return len(b)
}
