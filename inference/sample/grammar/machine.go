package grammar

import "edgechat/tokenizer"

// The matcher is a pushdown automaton over bytes: a stack of frames, one per JSON value
// being written, the innermost on top. anyOf makes it nondeterministic, so a state is a set
// of stacks (usually one), each advanced by every byte; stacks that refuse a byte drop out.

// mode is what a frame is in the middle of.
type mode uint8

const (
	mValue   mode = iota // a value of n is next (whitespace first is allowed)
	mObject              // inside an object of n
	mArray               // inside an array of n
	mString              // inside a string value of n
	mKey                 // inside a key of the object n below
	mNumber              // inside a number of n
	mLiteral             // inside one of n's literal texts
)

// Object states.
const (
	oOpen  uint8 = iota // after '{'
	oInKey              // a key frame is above
	oColon              // after a key
	oAfter              // a value frame is above, or its value ended
	oComma              // after ','
)

// Array states.
const (
	aOpen  uint8 = iota // after '['
	aAfter              // an item frame is above, or its item ended
	aComma              // after ','
)

// String states.
const (
	sNormal uint8 = iota
	sEsc          // after '\'
	sHex          // in \uXXXX; u hex digits read
	sCont         // in a UTF-8 sequence; u continuation bytes left, the next in [lo, hi]
)

// Number states.
const (
	nStart uint8 = iota
	nMinus
	nZero
	nInt
	nDot
	nFrac
	nE
	nESign
	nExp
)

// Limits that keep any output finite and the states few.
const (
	maxIndent   = 20 // spaces or tabs after a newline between tokens
	maxDigits   = 15 // digits in a number's integer or fraction part
	maxExpDigit = 3
	maxDepth    = 64
)

// frame is one value being written.
type frame struct {
	n    *node
	mode mode
	st   uint8
	ws   uint8 // whitespace bytes in the current gap
	u    uint8 // string: see sHex, sCont; number: digits in the current part
	lo   byte
	hi   byte
	cnt  int32  // string: characters (with length limits); array: items; literal, key: trie node (-1: a key off the trie)
	key  int32  // object: the property whose value is above (-1: an additional key)
	seen uint64 // object: properties written
}

type status uint8

const (
	ok status = iota
	dead
	fork // the top frame is a value of an anyOf: try each alternative
)

func isWS(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// String byte results.
const (
	strOK status = iota
	strDead
	strClosed
)

// strByte advances a string or key frame by b; start reports that b starts a character.
func strByte(f *frame, b byte) (st status, start bool) {
	switch f.st {
	case sNormal:
		switch {
		case b == '"':
			return strClosed, false
		case b == '\\':
			f.st = sEsc
			return strOK, true
		case b < 0x20:
			return strDead, false
		case b < 0x80:
			return strOK, true
		}
		need, lo, hi := utf8Lead(b)
		if need == 0 {
			return strDead, false
		}
		f.st, f.u, f.lo, f.hi = sCont, need, lo, hi
		return strOK, true
	case sEsc:
		switch b {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			f.st = sNormal
		case 'u':
			f.st, f.u = sHex, 0
		default:
			return strDead, false
		}
		return strOK, false
	case sHex:
		if !isHex(b) {
			return strDead, false
		}
		if f.u++; f.u == 4 {
			f.st, f.u = sNormal, 0
		}
		return strOK, false
	case sCont:
		if b < f.lo || b > f.hi {
			return strDead, false
		}
		f.lo, f.hi = 0x80, 0xBF
		if f.u--; f.u == 0 {
			f.st, f.lo, f.hi = sNormal, 0, 0
		}
		return strOK, false
	}
	return strDead, false
}

// utf8Lead returns how many continuation bytes lead byte b needs and the range of the first.
func utf8Lead(b byte) (need uint8, lo, hi byte) {
	n, lo, hi := tokenizer.SeqShape(b)
	if n == 0 {
		return 0, 0, 0
	}
	return uint8(n - 1), lo, hi
}

func isHex(b byte) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' }

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// stackSet holds stacks back to back: stack i is frames[end[i-1]:end[i]].
type stackSet struct {
	frames []frame
	end    []int32
}

func (s *stackSet) reset() { s.frames, s.end = s.frames[:0], s.end[:0] }

func (s *stackSet) stack(i int) []frame {
	start := int32(0)
	if i > 0 {
		start = s.end[i-1]
	}
	return s.frames[start:s.end[i]]
}

func (s *stackSet) copyFrom(o *stackSet) {
	s.frames = append(s.frames[:0], o.frames...)
	s.end = append(s.end[:0], o.end...)
}

// advance sets dst to src advanced by b; it reports whether any stack survived.
func (g *Grammar) advance(dst, src *stackSet, b byte) bool {
	dst.reset()
	for i := range src.end {
		g.push(dst, src.stack(i), b)
	}
	if len(dst.end) > 1 {
		dedupe(dst)
	}
	return len(dst.end) > 0
}

// push appends to dst the stacks that stk becomes when fed b.
func (g *Grammar) push(dst *stackSet, stk []frame, b byte) {
	start := len(dst.frames)
	dst.frames = append(dst.frames, stk...)
	switch g.feed(dst, start, b) {
	case ok:
		dst.end = append(dst.end, int32(len(dst.frames)))
	case dead:
		dst.frames = dst.frames[:start]
	case fork:
		own := append([]frame(nil), dst.frames[start:]...)
		dst.frames = dst.frames[:start]
		top := &own[len(own)-1]
		for _, alt := range top.n.alts {
			top.n = alt
			g.push(dst, own, b)
		}
	}
}

// dedupe drops stacks equal to an earlier one.
func dedupe(s *stackSet) {
	var out stackSet
	for i := range s.end {
		st := s.stack(i)
		dup := false
		for j := range out.end {
			if equalStacks(out.stack(j), st) {
				dup = true
				break
			}
		}
		if !dup {
			out.frames = append(out.frames, st...)
			out.end = append(out.end, int32(len(out.frames)))
		}
	}
	s.copyFrom(&out)
}

func equalStacks(a, b []frame) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// feed advances the stack s.frames[start:] by b in place.
func (g *Grammar) feed(s *stackSet, start int, b byte) status {
	for {
		if len(s.frames) == start {
			return dead // the value is complete: nothing may follow
		}
		f := &s.frames[len(s.frames)-1]
		switch f.mode {
		case mValue:
			if isWS(b) {
				return f.space(b)
			}
			if f.n.kind == kAnyOf {
				return fork
			}
			if !g.begin(f, b) {
				return dead
			}
			if f.mode == mNumber || f.mode == mLiteral {
				continue // b is the value's first byte
			}
			return ok
		case mObject:
			return objectByte(s, f, b, len(s.frames)-start)
		case mArray:
			if f.st != aAfter && !isWS(b) && b != ']' && b != ',' {
				// An item starts with b.
				if len(s.frames)-start >= maxDepth {
					return dead
				}
				item := f.n.item(int(f.cnt))
				if item == nil || (f.n.maxItems >= 0 && int(f.cnt) >= f.n.maxItems) {
					return dead
				}
				f.st, f.ws = aAfter, 0
				f.cnt++
				s.frames = append(s.frames, frame{n: item, mode: mValue})
				continue
			}
			return arrayByte(s, f, b)
		case mString:
			st, charStart := strByte(f, b)
			switch st {
			case strDead:
				return dead
			case strClosed:
				if int(f.cnt) < f.n.minLen {
					return dead
				}
				s.frames = s.frames[:len(s.frames)-1]
				return ok
			}
			if charStart && (f.n.minLen > 0 || f.n.maxLen >= 0) {
				if f.n.maxLen >= 0 && int(f.cnt) >= f.n.maxLen {
					return dead
				}
				f.cnt++
			}
			return ok
		case mKey:
			return keyByte(s, f, b)
		case mNumber:
			if numberByte(f, b) {
				return ok
			}
			if !numberDone(f.st) {
				return dead
			}
			s.frames = s.frames[:len(s.frames)-1]
			continue // b belongs to the value around the number
		case mLiteral:
			t := f.n.lits
			if next := t.next(f.cnt, b); next >= 0 {
				f.cnt = next
				if t.nodes[next].n == 0 {
					s.frames = s.frames[:len(s.frames)-1] // complete, and nothing can extend it
				}
				return ok
			}
			if t.nodes[f.cnt].term < 0 {
				return dead
			}
			s.frames = s.frames[:len(s.frames)-1]
			continue
		}
		return dead
	}
}

// space takes a whitespace byte of the frame's current gap. A gap is, as in llama.cpp's JSON
// grammar, nothing, one space, or a newline and up to maxIndent spaces or tabs: what JSON
// writers put there, and too little for a model to wander off in. ws counts: 1 after the
// space, 2 + the indent after a newline.
func (f *frame) space(b byte) status {
	switch {
	case f.ws == 0 && b == ' ':
		f.ws = 1
	case f.ws == 0 && b == '\n':
		f.ws = 2
	case f.ws >= 2 && (b == ' ' || b == '\t') && f.ws < 2+maxIndent:
		f.ws++
	default:
		return dead
	}
	return ok
}

// begin turns a value frame into the frame of the value b starts.
func (g *Grammar) begin(f *frame, b byte) bool {
	n := f.n
	if n.kind == kAny {
		switch {
		case b == '{':
			n = g.anyObject
		case b == '[':
			n = g.anyArray
		case b == '"':
			n = g.anyString
		case b == '-' || isDigit(b):
			n = g.anyNumber
		default:
			n = g.anyLiteral
		}
	}
	*f = frame{n: n}
	switch n.kind {
	case kObject:
		f.mode, f.st = mObject, oOpen
		return b == '{'
	case kArray:
		f.mode, f.st = mArray, aOpen
		return b == '['
	case kString:
		f.mode = mString
		return b == '"'
	case kNumber, kInteger:
		f.mode, f.st = mNumber, nStart
		return true
	case kLiteral:
		f.mode = mLiteral
		return true
	}
	return false
}

// item is the schema of the array's item at index i, or nil when there may be none.
func (n *node) item(i int) *node {
	if i < len(n.prefix) {
		return n.prefix[i]
	}
	return n.items
}

// objectByte advances an object frame; depth is the stack's height.
func objectByte(s *stackSet, f *frame, b byte, depth int) status {
	if isWS(b) && f.st != oInKey {
		return f.space(b)
	}
	n := f.n
	switch {
	case f.st == oOpen && b == '}' || f.st == oAfter && b == '}':
		if f.seen&n.required != n.required {
			return dead
		}
		s.frames = s.frames[:len(s.frames)-1]
		return ok
	case (f.st == oOpen || f.st == oComma) && b == '"':
		if !n.keyPossible(f.seen) {
			return dead
		}
		f.st, f.ws = oInKey, 0
		s.frames = append(s.frames, frame{n: n, mode: mKey})
		return ok
	case f.st == oColon && b == ':':
		if depth >= maxDepth {
			return dead
		}
		var v *node
		if f.key >= 0 {
			v = n.props[f.key].node
			f.seen |= 1 << f.key
		} else {
			v = n.additional
		}
		f.st, f.ws = oAfter, 0
		s.frames = append(s.frames, frame{n: v, mode: mValue})
		return ok
	case f.st == oAfter && b == ',':
		if !n.keyPossible(f.seen) {
			return dead
		}
		f.st, f.ws = oComma, 0
		return ok
	}
	return dead
}

// keyPossible reports whether another key may be written after the properties in seen.
func (n *node) keyPossible(seen uint64) bool {
	if n.ordered {
		return seen != n.required
	}
	return n.additional != nil || n.keys.below[0]&n.finiteProps&^seen != 0
}

// allowedKeys is the set of properties whose key may come next.
func (n *node) allowedKeys(seen uint64) uint64 {
	if n.ordered {
		next := ^seen & n.required
		return next & -next // the lowest unwritten one
	}
	return ^seen & n.finiteProps
}

func arrayByte(s *stackSet, f *frame, b byte) status {
	if isWS(b) {
		return f.space(b)
	}
	n := f.n
	switch {
	case b == ']' && (f.st == aOpen || f.st == aAfter):
		if int(f.cnt) < n.minItems {
			return dead
		}
		s.frames = s.frames[:len(s.frames)-1]
		return ok
	case b == ',' && f.st == aAfter:
		if (n.maxItems >= 0 && int(f.cnt) >= n.maxItems) || n.item(int(f.cnt)) == nil {
			return dead
		}
		f.st, f.ws = aComma, 0
		return ok
	}
	return dead
}

// keyByte advances a key frame: its string, and where it is on the object's key trie.
func keyByte(s *stackSet, f *frame, b byte) status {
	obj := f.n
	t := obj.keys
	parent := &s.frames[len(s.frames)-2]
	wasNormal := f.st == sNormal
	st, _ := strByte(f, b)
	switch st {
	case strDead:
		return dead
	case strClosed:
		key := int32(-1)
		if f.cnt >= 0 {
			if next := t.next(f.cnt, '"'); next >= 0 {
				key = t.nodes[next].term
			}
		}
		if key >= 0 {
			if obj.allowedKeys(parent.seen)&(1<<key) == 0 {
				return dead
			}
		} else if obj.additional == nil || obj.ordered {
			return dead
		}
		s.frames = s.frames[:len(s.frames)-1]
		parent.st, parent.key, parent.ws = oColon, key, 0
		return ok
	}
	if f.cnt < 0 {
		return ok
	}
	next := t.next(f.cnt, b)
	if next >= 0 && (obj.additional != nil && !obj.ordered || t.below[next]&obj.allowedKeys(parent.seen) != 0) {
		f.cnt = next
		return ok
	}
	// Off the trie: an additional key, written without escapes so that it cannot spell a
	// property's name another way.
	if obj.additional == nil || obj.ordered || (b == '\\' && wasNormal && len(obj.props) > 0) {
		return dead
	}
	f.cnt = -1
	return ok
}

// numberByte advances a number frame by b; false means b is not part of the number.
func numberByte(f *frame, b byte) bool {
	integer := f.n.kind == kInteger
	switch f.st {
	case nStart, nMinus:
		switch {
		case b == '-' && f.st == nStart && !f.n.unsigned:
			f.st = nMinus
		case b == '0':
			f.st = nZero
		case b >= '1' && b <= '9':
			f.st, f.u = nInt, 1
		default:
			return false
		}
		return true
	case nZero, nInt:
		switch {
		case f.st == nInt && isDigit(b) && f.u < maxDigits:
			f.u++
		case b == '.' && !integer:
			f.st, f.u = nDot, 0
		case (b == 'e' || b == 'E') && !integer:
			f.st, f.u = nE, 0
		default:
			return false
		}
		return true
	case nDot:
		if !isDigit(b) {
			return false
		}
		f.st, f.u = nFrac, 1
		return true
	case nFrac:
		switch {
		case isDigit(b) && f.u < maxDigits:
			f.u++
		case b == 'e' || b == 'E':
			f.st, f.u = nE, 0
		default:
			return false
		}
		return true
	case nE:
		if b == '+' || b == '-' {
			f.st = nESign
			return true
		}
		fallthrough
	case nESign:
		if !isDigit(b) {
			return false
		}
		f.st, f.u = nExp, 1
		return true
	case nExp:
		if isDigit(b) && f.u < maxExpDigit {
			f.u++
			return true
		}
	}
	return false
}

// numberFull reports whether no byte can extend number frame f: its digit limits are reached
// or, for an integer, it is "0" or "-0".
func numberFull(f frame) bool {
	for _, b := range []byte("0.e") {
		if g := f; numberByte(&g, b) {
			return false
		}
	}
	return true
}

// numberDone reports whether a number may end in state st.
func numberDone(st uint8) bool { return st == nZero || st == nInt || st == nFrac || st == nExp }
