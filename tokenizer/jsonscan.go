package tokenizer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// A hand-written reader for the bulk of tokenizer.json (the model's vocab and merges, ~10 MB):
// encoding/json alone takes most of the 300 ms load budget. Everything else in the file goes
// through encoding/json.

var errSyntax = errors.New("invalid JSON")

type scanner struct {
	data  []byte
	pos   int
	fresh bool // the last string read was unescaped into a new slice, not one of data
	// runs are the last two runs of white space skipped (up to 16 bytes each): a
	// pretty-printed file repeats the same few between its tokens (a newline and the
	// indentation of the next line), and comparing with them is quicker than reading a run
	// byte by byte. next is the one to replace next.
	runs [2]wsRun
	next int
}

// wsRun is a run of white space: n bytes (none when n is 0), which read little-endian as two
// words masked by loMask and hiMask are lo and hi.
type wsRun struct {
	lo, hi, loMask, hiMask uint64
	n                      int
}

// ws skips white space.
func (s *scanner) ws() {
	if s.pos < len(s.data) && s.data[s.pos] > ' ' { // none: the common case between tokens
		return
	}
	s.skipWS()
}

// skipWS skips a run of white space, ws's slow path.
func (s *scanner) skipWS() {
	if s.pos+17 <= len(s.data) {
		lo := binary.LittleEndian.Uint64(s.data[s.pos:])
		hi := binary.LittleEndian.Uint64(s.data[s.pos+8:])
		// A run matches when its bytes come next and a byte that is not white space follows
		// them (else a longer run continues).
		if r := &s.runs[0]; lo&r.loMask == r.lo && hi&r.hiMask == r.hi && r.n != 0 && notWS(s.data[s.pos+r.n]) {
			s.pos += r.n
			return
		}
		if r := &s.runs[1]; lo&r.loMask == r.lo && hi&r.hiMask == r.hi && r.n != 0 && notWS(s.data[s.pos+r.n]) {
			s.pos += r.n
			return
		}
	}
	start := s.pos
	s.wsLoop()
	if n := s.pos - start; n > 0 && n <= 16 && start+17 <= len(s.data) {
		r := &s.runs[s.next]
		r.n, r.loMask, r.hiMask = n, ^uint64(0), 0
		if n < 8 {
			r.loMask = 1<<(8*n) - 1
		} else if n > 8 {
			r.hiMask = ^uint64(0) >> (128 - 8*n)
		}
		r.lo = binary.LittleEndian.Uint64(s.data[start:]) & r.loMask
		r.hi = binary.LittleEndian.Uint64(s.data[start+8:]) & r.hiMask
		s.next ^= 1
	}
}

// notWS reports whether c is not JSON white space.
func notWS(c byte) bool { return c > ' ' || c != ' ' && c != '\n' && c != '\t' && c != '\r' }

// wsLoop skips white space by reading it.
func (s *scanner) wsLoop() {
	// Eight bytes at a time while they are all white space (pretty-printed files indent every
	// line: most of Gemma 3's merges array is indentation).
	for s.pos+8 <= len(s.data) {
		w := binary.LittleEndian.Uint64(s.data[s.pos:])
		m := zeroBytes(w^0x2020202020202020) | zeroBytes(w^0x0a0a0a0a0a0a0a0a) |
			zeroBytes(w^0x0909090909090909) | zeroBytes(w^0x0d0d0d0d0d0d0d0d)
		if m != 0x8080808080808080 {
			s.pos += bits.TrailingZeros64(^m&0x8080808080808080) / 8
			return
		}
		s.pos += 8
	}
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// zeroBytes has the high bit of each byte of x that is zero set, and no other bit.
func zeroBytes(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ^((x&low7 + low7) | x | low7)
}

// expect skips white space and one byte c.
func (s *scanner) expect(c byte) error {
	s.ws()
	if s.pos >= len(s.data) || s.data[s.pos] != c {
		return fmt.Errorf("%w at byte %d: want %q", errSyntax, s.pos, c)
	}
	s.pos++
	return nil
}

// more reports whether a list continues: it consumes a ',' (true) or the closing byte (false).
func (s *scanner) more(closing byte) (bool, error) {
	s.ws()
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',':
			s.pos++
			return true, nil
		case closing:
			s.pos++
			return false, nil
		}
	}
	return false, fmt.Errorf("%w at byte %d: want ',' or %q", errSyntax, s.pos, closing)
}

// peekClose consumes closing if it comes next (an empty object or array).
func (s *scanner) peekClose(closing byte) bool {
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == closing {
		s.pos++
		return true
	}
	return false
}

// str reads a string.
func (s *scanner) str() (string, error) {
	b, err := s.bytes()
	return string(b), err
}

// bytes reads a string without copying it when it has no escapes (escaped ones are unescaped
// as encoding/json does); the result may point into the file's bytes.
func (s *scanner) bytes() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	start, escaped := s.pos, false
	for s.pos < len(s.data) {
		if s.pos+8 <= len(s.data) { // eight bytes at a time up to a quote or backslash
			w := binary.LittleEndian.Uint64(s.data[s.pos:])
			m := zeroBytes(w^0x2222222222222222) | zeroBytes(w^0x5c5c5c5c5c5c5c5c)
			if m == 0 {
				s.pos += 8
				continue
			}
			s.pos += bits.TrailingZeros64(m) / 8
		}
		switch s.data[s.pos] {
		case '\\':
			escaped = true
			s.pos += 2
			continue
		case '"':
			s.pos++
			s.fresh = escaped
			if !escaped {
				return s.data[start : s.pos-1], nil
			}
			if v, ok := unescape(make([]byte, 0, s.pos-1-start), s.data[start:s.pos-1]); ok {
				return v, nil
			}
			var v string
			err := json.Unmarshal(s.data[start-1:s.pos], &v)
			return []byte(v), err
		}
		s.pos++
	}
	return nil, fmt.Errorf("%w: unterminated string", errSyntax)
}

// unescape appends the body of a JSON string (between its quotes) to dst as encoding/json
// decodes it; ok is false for what it leaves to encoding/json: surrogate escapes, control
// characters, invalid UTF-8, bad escapes.
func unescape(dst, q []byte) ([]byte, bool) {
	if !utf8.Valid(q) {
		return dst, false
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c < 0x20 {
			return dst, false
		}
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		if i++; i >= len(q) {
			return dst, false
		}
		switch q[i] {
		case '"', '\\', '/':
			dst = append(dst, q[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			if i+5 > len(q) {
				return dst, false
			}
			r := rune(0)
			for _, h := range q[i+1 : i+5] {
				switch {
				case h >= '0' && h <= '9':
					r = r<<4 | rune(h-'0')
				case h|0x20 >= 'a' && h|0x20 <= 'f':
					r = r<<4 | rune(h|0x20-'a'+10)
				default:
					return dst, false
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				return dst, false
			}
			dst = utf8.AppendRune(dst, r)
			i += 4
		default:
			return dst, false
		}
	}
	return dst, true
}

// integer reads a non-negative integer.
func (s *scanner) integer() (int, error) {
	s.ws()
	start, n := s.pos, 0
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		n = n*10 + int(s.data[s.pos]-'0')
		s.pos++
	}
	if s.pos == start || s.pos-start > 9 {
		return 0, fmt.Errorf("%w at byte %d: want a token id", errSyntax, start)
	}
	if s.pos < len(s.data) && (s.data[s.pos] == '.' || s.data[s.pos]|0x20 == 'e') {
		return 0, fmt.Errorf("%w at byte %d: a token id is not a whole number", errSyntax, start)
	}
	return n, nil
}

// skip passes over one value and returns its bytes.
func (s *scanner) skip() ([]byte, error) {
	s.ws()
	start, depth := s.pos, 0
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			if err := s.skipString(); err != nil {
				return nil, err
			}
		case c == '{' || c == '[':
			depth++
			s.pos++
		case c == '}' || c == ']':
			if depth == 0 { // the end of the enclosing container ends a scalar
				return s.data[start:s.pos], nil
			}
			depth--
			s.pos++
		case c == ',' && depth == 0:
			return s.data[start:s.pos], nil
		default:
			s.pos++
		}
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return s.data[start:s.pos], nil
		}
	}
	return nil, fmt.Errorf("%w: unexpected end", errSyntax)
}

func (s *scanner) skipString() error {
	for s.pos++; s.pos < len(s.data); s.pos++ {
		switch s.data[s.pos] {
		case '\\':
			s.pos++
		case '"':
			s.pos++
			return nil
		}
	}
	return fmt.Errorf("%w: unterminated string", errSyntax)
}

// object calls f for every key of an object, with the scanner on the value; f must read it.
func (s *scanner) object(f func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peekClose('}') {
		return nil
	}
	for {
		k, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := f(k); err != nil {
			return err
		}
		if more, err := s.more('}'); err != nil || !more {
			return err
		}
	}
}

// array calls f for every element, with the scanner on it; f must read it.
func (s *scanner) array(f func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peekClose(']') {
		return nil
	}
	for {
		if err := f(); err != nil {
			return err
		}
		if more, err := s.more(']'); err != nil || !more {
			return err
		}
	}
}

// scanFile reads tokenizer.json: the model's vocab and merges by hand, every other value as
// raw JSON.
func scanFile(data []byte) (*fileJSON, error) {
	s := &scanner{data: data}
	f := &fileJSON{top: map[string]json.RawMessage{}, model: map[string]json.RawMessage{}}
	err := s.object(func(key string) error {
		if key != "model" {
			v, err := s.skip()
			f.top[key] = json.RawMessage(v)
			return err
		}
		return s.object(func(key string) error {
			switch key {
			case "vocab":
				return s.vocab(f, len(data))
			case "merges":
				if s.ws(); s.pos < len(s.data) && s.data[s.pos] != '[' {
					return errors.New("the model's merges are not a list")
				}
				return s.merges(&f.merges)
			}
			v, err := s.skip()
			f.model[key] = json.RawMessage(v)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	if f.vocab == nil && f.pieces == nil {
		return nil, errors.New("the model has no vocab")
	}
	return f, nil
}

// vocab reads the model's vocab: an object of token → id, or Unigram's list of [token, score].
func (s *scanner) vocab(f *fileJSON, size int) error {
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '[' {
		f.isArray = true
		f.pieces = make([]scoredPiece, 0, sizeHint(size, 30))
		return s.array(func() error {
			var p scoredPiece
			n := 0
			err := s.array(func() error {
				var err error
				switch n {
				case 0:
					p.token, err = s.str()
				case 1:
					p.score, err = s.float()
				default:
					err = fmt.Errorf("%w at byte %d: a vocab entry has more than a token and a score", errSyntax, s.pos)
				}
				n++
				return err
			})
			if err == nil && n != 2 {
				err = fmt.Errorf("%w at byte %d: a vocab entry needs a token and a score", errSyntax, s.pos)
			}
			f.pieces = append(f.pieces, p)
			return err
		})
	}
	if s.pos < len(s.data) && s.data[s.pos] != '{' {
		return errors.New("the model's vocab is neither an object nor a list")
	}
	f.vocab = newVocabTable(sizeHint(size, 100))
	if err := s.expect('{'); err != nil || s.peekClose('}') {
		return err
	}
	var toks [lookupBatch][]byte
	var ids [lookupBatch]int32
	n := 0
	for {
		tok, err := s.bytes()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		id, err := s.integer()
		if err != nil {
			return err
		}
		toks[n], ids[n] = tok, int32(id)
		if n++; n == lookupBatch {
			f.vocab.addMany(toks[:n], ids[:n])
			n = 0
		}
		more, err := s.more('}')
		if err != nil || !more {
			f.vocab.addMany(toks[:n], ids[:n])
			return err
		}
	}
}

// float reads a JSON number as the reference's JSON parser does (see serdeFloat).
func (s *scanner) float() (float64, error) {
	s.ws()
	start := s.pos
	for s.pos < len(s.data) && (s.data[s.pos] >= '0' && s.data[s.pos] <= '9' || bytes.IndexByte([]byte("+-.eE"), s.data[s.pos]) >= 0) {
		s.pos++
	}
	f, ok := serdeFloat(string(s.data[start:s.pos]))
	if !ok {
		return 0, fmt.Errorf("%w at byte %d: want a number", errSyntax, start)
	}
	return f, nil
}

// sizeHint guesses how many vocab entries or merges a file of n bytes holds, from about one
// per perEntry bytes (real files: 70–130 bytes a vocab entry), so that the map and slice are
// rarely grown while filling.
func sizeHint(n, perEntry int) int { return min(max(n/perEntry, 1<<12), 1<<20) }

// mergePair is a merge's two tokens, possibly pointing into the file's bytes.
type mergePair [2][]byte

// mergeList is a BPE model's merges: pairs read from another file, or those of a
// tokenizer.json as offsets into its bytes (no slice or copy kept per merge).
type mergeList struct {
	pairs []mergePair
	spans []uint32 // per merge: a's start and end, b's start and end in the file or, from len(file) on, in extra
	file  []byte
	extra []byte // the tokens that had escapes, unescaped
	isSet bool
}

// present reports whether the model had merges.
func (l *mergeList) present() bool { return l.pairs != nil || l.isSet }

// count is the number of merges.
func (l *mergeList) count() int { return len(l.pairs) + len(l.spans)/4 }

// pair returns merge i.
func (l *mergeList) pair(i int) (a, b []byte) {
	if l.pairs != nil {
		return l.pairs[i][0], l.pairs[i][1]
	}
	sp := l.spans[4*i : 4*i+4]
	return l.token(sp[0], sp[1]), l.token(sp[2], sp[3])
}

// reuse returns the memory of the merges' offsets as one entry per merge, for the caller to
// overwrite merge by merge once it has read it (pair then reads garbage), or nil when the
// merges are not held as offsets.
func (l *mergeList) reuse() []mergeSlot {
	if len(l.spans) == 0 || l.pairs != nil {
		return nil
	}
	// Four uint32 per merge are the size of a mergeSlot; a large allocation is 8-byte aligned,
	// and a small one of 16 bytes or more too.
	return unsafe.Slice((*mergeSlot)(unsafe.Pointer(unsafe.SliceData(l.spans))), len(l.spans)/4)
}

func (l *mergeList) token(start, end uint32) []byte {
	if n := uint32(len(l.file)); start >= n {
		return l.extra[start-n : end-n]
	}
	return l.file[start:end]
}

// merges reads tokenizer.json's merges array into l.
func (s *scanner) merges(l *mergeList) error {
	if s.ws(); s.pos < len(s.data) && s.data[s.pos] != '[' {
		return errors.New("the model's merges are not a list")
	}
	if len(s.data) >= 1<<31 {
		return errors.New("tokenizer.json is larger than 2 GB")
	}
	l.isSet, l.file = true, s.data
	l.spans = make([]uint32, 0, 4*sizeHint(len(s.data), 60))
	adviseHuge(l.spans[:cap(l.spans)])
	if err := s.expect('['); err != nil || s.peekClose(']') {
		return err
	}
	var lay mergeLayout
	prevEnd := -1 // where the last merge ended
	for {
		if prevEnd >= 0 {
			if p, ok := s.layoutMerge(&lay); ok {
				l.spans = append(l.spans, uint32(cap(s.data)-cap(p[0])), uint32(cap(s.data)-cap(p[0])+len(p[0])),
					uint32(cap(s.data)-cap(p[1])), uint32(cap(s.data)-cap(p[1])+len(p[1])))
				prevEnd = s.pos
				continue
			}
			if more, err := s.more(']'); err != nil || !more {
				return err
			}
		}
		p, fresh, ok := s.mergePair()
		if ok && !fresh[0] && !fresh[1] && prevEnd >= 0 {
			lay.learn(s.data, prevEnd, p, s.pos)
		}
		if !ok { // anything unusual, errors included, goes the general way
			var skip bool
			var err error
			if p, fresh, skip, err = s.merge(); err != nil {
				return err
			}
			if skip {
				prevEnd = s.pos
				continue
			}
		}
		for i, v := range p {
			start := cap(s.data) - cap(v)
			if fresh[i] {
				start = len(l.file) + len(l.extra)
				l.extra = append(l.extra, v...)
			}
			l.spans = append(l.spans, uint32(start), uint32(start+len(v)))
		}
		if len(l.file)+len(l.extra) >= 1<<31 {
			return errors.New("the merges' escaped tokens pass 2 GB")
		}
		prevEnd = s.pos
	}
}

// mergeLayout is the text between the merges of a tokenizer.json as the last one read showed
// it: open from the end of the merge before to the first token's opening quote (the comma,
// white space and, for a pair, its "["), mid from the first token's closing quote to the
// second's opening one, close from the second's closing quote to the merge's end. A
// pretty-printed file repeats the same between all its merges: comparing with them reads a
// merge without going byte by byte through its white space (Gemma 3's 515k merges take 33
// bytes of it each).
type mergeLayout struct {
	open, mid, close []byte
	pair             bool // ["a", "b"], else "a b"
}

// learn records the layout of merge p, which spans data[prevEnd:end] with the separating
// comma, its tokens unescaped slices of data.
func (lay *mergeLayout) learn(data []byte, prevEnd int, p mergePair, end int) {
	aStart, bStart := cap(data)-cap(p[0]), cap(data)-cap(p[1])
	aEnd, bEnd := aStart+len(p[0]), bStart+len(p[1])
	if bEnd > end || aStart < prevEnd || aStart-prevEnd > 64 || end-bEnd > 64 || bStart-aEnd > 64 {
		lay.open = nil
		return
	}
	lay.open, lay.mid, lay.close = data[prevEnd:aStart], data[aEnd:bStart], data[bEnd:end]
	lay.pair = data[aEnd] == '"'
}

// layoutMerge reads a merge laid out as the last one learned; ok is false, and nothing read,
// when it is not (then the general way reads it).
func (s *scanner) layoutMerge(lay *mergeLayout) (p mergePair, ok bool) {
	if len(lay.open) == 0 || !bytes.HasPrefix(s.data[s.pos:], lay.open) {
		return p, false
	}
	at := s.pos
	s.pos += len(lay.open)
	a, ok := s.plainBody()
	if ok && !lay.pair { // "a b"
		x, y, cut := bytes.Cut(a, []byte(" "))
		if cut && bytes.IndexByte(y, ' ') < 0 && !bytes.HasPrefix(a, []byte("#version")) {
			s.pos++ // the closing quote
			return mergePair{x, y}, true
		}
		ok = false
	}
	if ok && bytes.HasPrefix(s.data[s.pos:], lay.mid) {
		s.pos += len(lay.mid)
		var b []byte
		if b, ok = s.plainBody(); ok && bytes.HasPrefix(s.data[s.pos:], lay.close) {
			s.pos += len(lay.close)
			return mergePair{a, b}, true
		}
	}
	s.pos = at
	return p, false
}

// plainBody reads the body of a string up to its closing quote, left next; ok is false when
// the string has an escape or no end.
func (s *scanner) plainBody() ([]byte, bool) {
	start := s.pos
	for s.pos+8 <= len(s.data) {
		w := binary.LittleEndian.Uint64(s.data[s.pos:])
		if m := zeroBytes(w^0x2222222222222222) | zeroBytes(w^0x5c5c5c5c5c5c5c5c); m != 0 {
			s.pos += bits.TrailingZeros64(m) / 8
			return s.data[start:s.pos], s.data[s.pos] == '"'
		}
		s.pos += 8
	}
	for ; s.pos < len(s.data); s.pos++ {
		switch s.data[s.pos] {
		case '"':
			return s.data[start:s.pos], true
		case '\\':
			return nil, false
		}
	}
	return nil, false
}

// mergePair reads a merge, ["a", "b"] or "a b", on the fast path: ok is false, and nothing
// read, for a "#version" line and for an error (merge handles them).
func (s *scanner) mergePair() (p mergePair, fresh [2]bool, ok bool) {
	at := s.pos
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '"' { // "a b"
		l, err := s.bytes()
		a, b, cut := bytes.Cut(l, []byte(" "))
		if err != nil || !cut || bytes.IndexByte(b, ' ') >= 0 || bytes.HasPrefix(l, []byte("#version")) {
			s.pos = at
			return p, fresh, false
		}
		return mergePair{a, b}, [2]bool{s.fresh, s.fresh}, true
	}
	if s.pos >= len(s.data) || s.data[s.pos] != '[' {
		s.pos = at
		return p, fresh, false
	}
	s.pos++
	for i := range p {
		v, err := s.bytes()
		if err != nil {
			s.pos = at
			return p, fresh, false
		}
		p[i], fresh[i] = v, s.fresh
		if s.ws(); s.pos >= len(s.data) || s.data[s.pos] != ",]"[i] {
			s.pos = at
			return p, fresh, false
		}
		s.pos++
	}
	return p, fresh, true
}

// merge reads one merge, "a b" or ["a", "b"]; skip is true for a "#version" line, which the
// reference leaves out of the legacy string form.
// fresh tells which tokens are new slices (unescaped) rather than slices of the file.
func (s *scanner) merge() (p mergePair, fresh [2]bool, skip bool, err error) {
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '[' {
		n := 0
		err := s.array(func() error {
			v, err := s.bytes()
			if n < 2 {
				p[n], fresh[n] = v, s.fresh
			}
			n++
			return err
		})
		if err == nil && n != 2 {
			err = fmt.Errorf("merge %q has %d parts, want 2", p[0], n)
		}
		return p, fresh, false, err
	}
	l, err := s.bytes()
	if err != nil {
		return p, fresh, false, err
	}
	if bytes.HasPrefix(l, []byte("#version")) {
		return p, fresh, true, nil
	}
	a, b, ok := bytes.Cut(l, []byte(" "))
	if !ok || bytes.IndexByte(b, ' ') >= 0 {
		return p, fresh, false, fmt.Errorf("merge %q is not two tokens separated by a space", l)
	}
	return mergePair{a, b}, [2]bool{s.fresh, s.fresh}, false, nil
}
