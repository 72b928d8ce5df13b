package tokenizer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// charsmap is the Precompiled normalizer: SentencePiece's precompiled_charsmap, a serialized
// double-array trie (Darts) from strings to replacements stored NUL-terminated after it. As the
// reference does, the text is walked by extended grapheme cluster: a cluster shorter than 6
// bytes is replaced whole if a prefix of it is a key (the shortest key's replacement), else
// each of its characters is looked up alone.
type charsmap struct {
	units      []uint32
	normalized string
}

func newCharsmap(data []byte) (*charsmap, error) {
	if len(data) < 4 {
		return nil, errors.New("precompiled_charsmap is too short")
	}
	size := binary.LittleEndian.Uint32(data)
	if uint64(size) > uint64(len(data)-4) {
		return nil, errors.New("precompiled_charsmap's trie is longer than the blob")
	}
	m := &charsmap{units: make([]uint32, size/4)}
	for i := range m.units {
		m.units[i] = binary.LittleEndian.Uint32(data[4+4*i:])
	}
	rest := data[4+size/4*4:]
	if !utf8.Valid(rest) {
		return nil, errors.New("precompiled_charsmap's replacements are not UTF-8")
	}
	m.normalized = string(rest)
	if len(m.units) == 0 {
		return nil, errors.New("precompiled_charsmap has an empty trie")
	}
	return m, nil
}

func (m *charsmap) name() string {
	return fmt.Sprintf("Precompiled(%d trie units)", len(m.units))
}

// transform returns the replacement of the shortest key that is a prefix of chunk.
func (m *charsmap) transform(chunk string) (string, bool) {
	u := m.units
	pos := uint32(0)
	offset := func(unit uint32) uint32 { return (unit >> 10) << ((unit & (1 << 9)) >> 6) }
	pos ^= offset(u[0])
	for i := 0; i < len(chunk); i++ {
		c := chunk[i]
		if c == 0 {
			break
		}
		pos ^= uint32(c)
		if int(pos) >= len(u) {
			return "", false
		}
		unit := u[pos]
		if unit&(1<<31|0xFF) != uint32(c) {
			return "", false
		}
		pos ^= offset(unit)
		if int(pos) >= len(u) {
			return "", false
		}
		if unit>>8&1 == 1 {
			v := int(u[pos] & (1<<31 - 1))
			if v > len(m.normalized) {
				return "", false
			}
			end := strings.IndexByte(m.normalized[v:], 0)
			if end < 0 {
				end = len(m.normalized) - v
			}
			return m.normalized[v : v+end], true
		}
	}
	return "", false
}

// apply normalizes s. Its start always still stands for the start of the input, even when
// the first characters map to nothing: the Rust library records a removal on the character
// before it, and at the start there is none, so the removal is lost and the first kept
// character keeps original offset 0 (Metaspace's prepend_scheme "first" still prepends).
func (m *charsmap) apply(s string) (string, bool) {
	var b []byte
	changed := false
	for i := 0; i < len(s); {
		n := graphemeLen(s[i:])
		g := s[i : i+n]
		if n < 6 {
			if norm, ok := m.transform(g); ok {
				b = append(b, norm...)
				changed = true
				i += n
				continue
			}
		}
		for j := 0; j < len(g); {
			_, w := utf8.DecodeRuneInString(g[j:])
			if norm, ok := m.transform(g[j : j+w]); ok {
				b = append(b, norm...)
				changed = true
			} else {
				b = append(b, g[j:j+w]...)
			}
			j += w
		}
		i += n
	}
	if !changed {
		return s, true
	}
	return string(b), true
}

// graphemeLen returns the length of the extended grapheme cluster at the start of s (Unicode
// 16.0's rules, without the Indic conjunct rule GB9c, which joins only clusters of 6 bytes or
// more: those are looked up character by character either way).
func graphemeLen(s string) int {
	r, w := utf8.DecodeRuneInString(s)
	if w == 0 {
		return 0
	}
	prev := class2(r)
	gb := gcbOf(prev)
	i := w
	riCount := 0
	if gb == gcbRI {
		riCount = 1
	}
	extPictSeq := prev&c2ExtPict != 0 // ExtPict Extend* so far (for GB11)
	zwjAfterPict := false
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		cur := class2(r)
		pb, cb := gcbOf(prev), gcbOf(cur)
		join := false
		switch {
		case pb == gcbCR && cb == gcbLF:
			join = true
		case pb == gcbControl || pb == gcbCR || pb == gcbLF:
		case cb == gcbControl || cb == gcbCR || cb == gcbLF:
		case pb == gcbL && (cb == gcbL || cb == gcbV || cb == gcbLV || cb == gcbLVT):
			join = true
		case (pb == gcbLV || pb == gcbV) && (cb == gcbV || cb == gcbT):
			join = true
		case (pb == gcbLVT || pb == gcbT) && cb == gcbT:
			join = true
		case cb == gcbExtend || cb == gcbZWJ || cb == gcbSpacingMark:
			join = true
		case pb == gcbPrepend:
			join = true
		case zwjAfterPict && cur&c2ExtPict != 0:
			join = true
		case pb == gcbRI && cb == gcbRI && riCount%2 == 1:
			join = true
		}
		if !join {
			break
		}
		// Track GB11's ExtPict Extend* ZWJ state and GB12/13's RI count.
		switch {
		case cur&c2ExtPict != 0:
			extPictSeq, zwjAfterPict = true, false
		case cb == gcbExtend && extPictSeq:
		case cb == gcbZWJ && extPictSeq:
			zwjAfterPict, extPictSeq = true, false
		default:
			extPictSeq, zwjAfterPict = false, false
		}
		if cb == gcbRI {
			riCount++
		} else {
			riCount = 0
		}
		prev = cur
		i += w
	}
	return i
}
