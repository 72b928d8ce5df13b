package tokenizer

import (
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalizeForm is NFC, NFD, NFKC or NFKD as the reference computes them, which differs from
// golang.org/x/text/unicode/norm in two ways:
//   - its tables are Unicode 9.0: characters assigned later are left alone and, being
//     starters that combine with nothing, cut the text into parts normalized apart;
//   - it has no stream-safe limit, where norm inserts U+034F (CGJ) after 30 combining marks
//     in a row: a chunk where that happened takes the composition written here.
//
// A string that norm finds normalized is normalized for the reference too.
func normalizeForm(s string, form norm.Form) string {
	if form.IsNormalString(s) {
		return s
	}
	out := make([]byte, 0, len(s))
	start := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if isNewerThanNFC(r) {
			out = appendNF(out, s[start:i], 4096, form)
			out = append(out, s[i:i+w]...)
			start = i + w
		}
		i += w
	}
	return string(appendNF(out, s[start:], 4096, form))
}

// appendNF appends the normal form of s, a string without characters newer than the reference's
// tables, in chunks of about size bytes that end before an ASCII character (which never
// composes with what precedes it, so normalizing the chunks apart gives the same text). A
// chunk where norm inserted a CGJ is redone in the smallest chunks, and those that need it
// take nfcUnbounded.
func appendNF(out []byte, s string, size int, form norm.Form) []byte {
	for len(s) > 0 {
		n := min(len(s), size)
		for n < len(s) && s[n] >= utf8.RuneSelf {
			n++
		}
		part := s[:n]
		chunk := form.String(part)
		switch {
		case strings.Count(chunk, cgj) == strings.Count(part, cgj):
			out = append(out, chunk...)
		case size > 1:
			out = appendNF(out, part, 1, form)
		default:
			out = append(out, nfUnbounded(part, form)...)
		}
		s = s[n:]
	}
	return out
}

const cgj = "\u034F"

func ccc(r rune) uint8 { return norm.NFD.PropertiesString(string(r)).CCC() }

// Hangul syllable arithmetic (Unicode §3.12).
const (
	hangulS, hangulL, hangulV, hangulT = 0xAC00, 0x1100, 0x1161, 0x11A7
	hangulVCount, hangulTCount         = 21, 28
	hangulSCount                       = 11172
)

// decompose appends the full canonical (or, with compat, compatibility) decomposition of r.
func decompose(dst []rune, r rune, compat bool) []rune {
	if si := r - hangulS; si >= 0 && si < hangulSCount {
		dst = append(dst, hangulL+si/(hangulVCount*hangulTCount), hangulV+si%(hangulVCount*hangulTCount)/hangulTCount)
		if ti := si % hangulTCount; ti != 0 {
			dst = append(dst, hangulT+ti)
		}
		return dst
	}
	f := norm.NFD
	if compat {
		f = norm.NFKD
	}
	if d := f.PropertiesString(string(r)).Decomposition(); d != nil {
		for len(d) > 0 {
			x, w := utf8.DecodeRune(d)
			dst = append(dst, x)
			d = d[w:]
		}
		return dst
	}
	return append(dst, r)
}

// nfUnbounded decomposes, orders marks canonically and (for NFC and NFKC) composes, without a
// run limit.
func nfUnbounded(s string, form norm.Form) string {
	compat := form == norm.NFKC || form == norm.NFKD
	var rs []rune
	for _, r := range s {
		rs = decompose(rs, r, compat)
	}
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && ccc(rs[j]) != 0 {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(rs[i:j], func(a, b rune) int { return int(ccc(a)) - int(ccc(b)) })
		}
		i = j + 1
	}
	if form == norm.NFD || form == norm.NFKD {
		return string(rs)
	}
	out := make([]rune, 0, len(rs))
	starter, last := -1, 256
	for _, r := range rs {
		c := int(ccc(r))
		if starter >= 0 && (last < c || last == 0) {
			if p, ok := composePair(out[starter], r); ok {
				out[starter] = p
				continue
			}
		}
		if c == 0 {
			starter = len(out)
		}
		last = c
		out = append(out, r)
	}
	return string(out)
}

// composePair returns the primary composite of a starter and the next character, if any.
func composePair(a, b rune) (rune, bool) {
	if li := a - hangulL; li >= 0 && li < 19 {
		if vi := b - hangulV; vi >= 0 && vi < hangulVCount {
			return hangulS + (li*hangulVCount+vi)*hangulTCount, true
		}
	}
	if si := a - hangulS; si >= 0 && si < hangulSCount && si%hangulTCount == 0 {
		if ti := b - hangulT; ti > 0 && ti < hangulTCount {
			return a + ti, true
		}
	}
	c := norm.NFC.String(string([]rune{a, b}))
	if p, w := utf8.DecodeRuneInString(c); w == len(c) && p != a {
		return p, true
	}
	return 0, false
}

// head returns s in the normal form and the length of its start whose offsets lie in the first
// h bytes of s, as the Rust library's offsets give it (see alignHead). Its normalizer emits
// each character of a decomposition after the first as inserted and, when canonical ordering
// moves marks, leaves those flags where the sort put them: a text that starts with marks can
// give the first character's offsets to more or fewer characters than its own normal form.
func (f formStep) head(s string, h int) (string, int) {
	ch := formChanges(s, f.form)
	out, head := alignHead(s, h, ch)
	if want, _ := f.apply(s); out != want { // not expected: then as before
		hs, _ := f.apply(s[:h])
		return want, len(hs)
	}
	return out, head
}

// formChanges is the output of the Rust library's normalizer for s (the
// unicode-normalization-alignments crate) with the change of each character: decomposed
// characters after the first of each decomposition are inserted, marks are sorted stably by
// combining class carrying their flags, and a composition folds the flags of what it joins
// (a composite of two input characters replaces one and removes the other).
func formChanges(s string, form norm.Form) []change {
	compat := form == norm.NFKC || form == norm.NFKD
	type mark struct {
		c   change
		ccc uint8
	}
	var buf []mark // a starter (or the text's first marks) and the marks after it
	var out []change
	flush := func() {
		slices.SortStableFunc(buf, func(a, b mark) int { return int(a.ccc) - int(b.ccc) })
		for _, m := range buf {
			out = append(out, m.c)
		}
		buf = buf[:0]
	}
	var d []rune
	for _, r := range s {
		if d = append(d[:0], r); !isNewerThanNFC(r) {
			d = decompose(d[:0], r, compat)
		}
		for i, x := range d {
			c := refCCC(x)
			if c == 0 {
				flush()
			}
			buf = append(buf, mark{change{x, min(i, 1)}, c})
		}
	}
	flush()
	if form == norm.NFD || form == norm.NFKD {
		return out
	}
	return recompose(out)
}

// recompose is the crate's canonical composition of decomposed characters with their changes:
// marks before any starter pass as they are; a mark blocked from the starter waits with the
// others after it until a starter ends the run.
func recompose(in []change) []change {
	var out, waiting []change
	var composee *change
	lastCCC := -1 // none
	for _, ch := range in {
		c := int(refCCC(ch.r))
		if composee == nil {
			if c != 0 {
				out = append(out, ch)
				continue
			}
			k := ch
			composee = &k
			continue
		}
		if lastCCC < 0 {
			if r, ok := refComposePair(composee.r, ch.r); ok {
				*composee = change{r, composee.n + ch.n - 1}
				continue
			}
			if c == 0 {
				out = append(out, *composee)
				*composee = ch
				continue
			}
			waiting, lastCCC = append(waiting, ch), c
			continue
		}
		if lastCCC >= c {
			if c == 0 {
				out = append(append(out, *composee), waiting...)
				waiting, lastCCC = waiting[:0], -1
				*composee = ch
				continue
			}
			waiting, lastCCC = append(waiting, ch), c
			continue
		}
		if r, ok := refComposePair(composee.r, ch.r); ok {
			*composee = change{r, composee.n + ch.n - 1}
			continue
		}
		waiting, lastCCC = append(waiting, ch), c
	}
	if composee != nil {
		out = append(out, *composee)
	}
	return append(out, waiting...)
}

// refCCC is the canonical combining class in the reference's tables: 0 for a character they
// do not have.
func refCCC(r rune) uint8 {
	if isNewerThanNFC(r) {
		return 0
	}
	return ccc(r)
}

// refComposePair is composePair in the reference's tables.
func refComposePair(a, b rune) (rune, bool) {
	if isNewerThanNFC(a) || isNewerThanNFC(b) {
		return 0, false
	}
	return composePair(a, b)
}
