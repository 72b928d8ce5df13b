package grammar

import "strings"

// minimal returns the shortest text of a value of n (memoized). A schema whose every value
// is infinitely deep (a required property of its own type) has none: an error.
func minimal(n *node) ([]byte, error) {
	if b, ok := minimalOf(n); ok {
		return b, nil
	}
	return nil, schemaErr("#", "no finite value satisfies the schema (a required property that contains itself?)")
}

func minimalOf(n *node) ([]byte, bool) {
	switch n.minState {
	case 2:
		return n.min, true
	case 1:
		return nil, false // a cycle: not finite along this path
	}
	n.minState = 1
	b, ok := computeMinimal(n)
	if !ok {
		n.minState = 0
		return nil, false
	}
	n.min, n.minState = b, 2
	return b, true
}

func computeMinimal(n *node) ([]byte, bool) {
	switch n.kind {
	case kAny, kNumber, kInteger:
		return []byte("0"), true
	case kString:
		return []byte(`"` + strings.Repeat("a", n.minLen) + `"`), true
	case kLiteral:
		tail, _, ok := n.lits.shortest(0, nil)
		return tail, ok
	case kAnyOf:
		var best []byte
		found := false
		for _, a := range n.alts {
			if b, ok := minimalOf(a); ok && (!found || len(b) < len(best)) {
				best, found = b, true
			}
		}
		return best, found
	case kArray:
		out := []byte{'['}
		for i := range n.minItems {
			if i > 0 {
				out = append(out, ',')
			}
			b, ok := minimalOf(n.item(i))
			if !ok {
				return nil, false
			}
			out = append(out, b...)
		}
		return append(out, ']'), true
	case kObject:
		out, ok := n.closeObject([]byte{'{'}, 0, true)
		return out, ok
	}
	return nil, false
}

// closeObject appends to out what ends an object of n whose properties in seen are written:
// the missing required properties, then '}'; first says no property is written yet (no comma
// before the next one).
func (n *node) closeObject(out []byte, seen uint64, first bool) ([]byte, bool) {
	for i, p := range n.props {
		if n.required&(1<<i) == 0 || seen&(1<<i) != 0 {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		v, ok := minimalOf(p.node)
		if !ok {
			return nil, false
		}
		key, _ := canonical(p.name)
		out = append(append(append(out, key...), ':'), v...)
	}
	return append(out, '}'), true
}

// completion returns the shortest bytes that finish the value on every stack's behalf: of
// all stacks, the shortest finish.
func (g *Grammar) completion(s *stackSet) []byte {
	var best []byte
	found := false
	for i := range s.end {
		if b, ok := finishStack(s.stack(i)); ok && (!found || len(b) < len(best)) {
			best, found = b, true
		}
	}
	return best
}

// finishStack returns the bytes that end every value on the stack, top first.
func finishStack(stk []frame) ([]byte, bool) {
	var out []byte
	key := int32(-2) // the key a key frame just finished, for the object below
	for i := len(stk) - 1; i >= 0; i-- {
		f := stk[i]
		var ok bool
		switch f.mode {
		case mValue:
			var b []byte
			if b, ok = minimalOf(f.n); ok {
				out = append(out, b...)
			}
		case mString:
			out = finishString(out, f)
			out = append(out, strings.Repeat("a", max(0, f.n.minLen-int(f.cnt)))...)
			out, ok = append(out, '"'), true
		case mKey:
			out, key, ok = finishKey(out, f, stk[i-1])
		case mNumber:
			if !numberDone(f.st) {
				out = append(out, '0')
			}
			ok = true
		case mLiteral:
			var tail []byte
			if tail, _, ok = f.n.lits.shortest(f.cnt, nil); ok {
				out = append(out, tail...)
			}
		case mObject:
			out, ok = finishObject(out, f, key)
			key = -2
		case mArray:
			out, ok = finishArray(out, f)
		}
		if !ok {
			return nil, false
		}
	}
	return out, true
}

// finishString closes an open escape or character.
func finishString(out []byte, f frame) []byte {
	switch f.st {
	case sEsc:
		out = append(out, 'n')
	case sHex:
		out = append(out, strings.Repeat("0", 4-int(f.u))...)
	case sCont:
		out = append(out, f.lo)
		for range int(f.u) - 1 {
			out = append(out, 0x80)
		}
	}
	return out
}

// finishKey ends a key: the shortest way to a property that may come, else an additional
// key. It returns the property chosen (-1: additional).
func finishKey(out []byte, f, obj frame) ([]byte, int32, bool) {
	out = finishString(out, f)
	n := f.n
	allowed := n.allowedKeys(obj.seen)
	if f.cnt >= 0 {
		if tail, idx, ok := n.keys.shortest(f.cnt, func(i int32) bool { return allowed&(1<<i) != 0 }); ok {
			return append(out, tail...), idx, true
		}
	}
	if n.additional == nil || n.ordered {
		return nil, 0, false
	}
	if f.cnt >= 0 && n.keys.nodes[f.cnt].term >= 0 {
		out = append(out, 'x') // the key so far is a written property's name: make it another
	}
	return append(out, '"'), -1, true
}

// finishObject ends an object frame; key is the property whose key was just finished above
// it (-2: none).
func finishObject(out []byte, f frame, key int32) ([]byte, bool) {
	n := f.n
	st, seen := f.st, f.seen
	if key != -2 {
		st, f.key = oColon, key
	}
	switch st {
	case oColon:
		v := n.additional
		if f.key >= 0 {
			v, seen = n.props[f.key].node, seen|1<<f.key
		}
		b, ok := minimalOf(v)
		if !ok {
			return nil, false
		}
		out = append(append(out, ':'), b...)
		return n.closeObject(out, seen, false)
	case oComma:
		if seen&n.required != n.required {
			return n.closeObject(out, seen, true)
		}
		// A key must follow the comma: the first property not written, else an additional one.
		for i, p := range n.props {
			if n.allowedKeys(seen)&(1<<i) == 0 {
				continue
			}
			v, ok := minimalOf(p.node)
			if !ok {
				continue
			}
			k, _ := canonical(p.name)
			return append(append(append(append(out, k...), ':'), v...), '}'), true
		}
		v, ok := minimalOf(n.additional)
		if n.additional == nil || !ok {
			return nil, false
		}
		name := "x"
		for n.keys.hasKey(name) {
			name += "x"
		}
		return append(append(append(out, `"`+name+`":`...), v...), '}'), true
	}
	return n.closeObject(out, seen, st == oOpen)
}

// hasKey reports whether name is one of the object's properties.
func (t *litTrie) hasKey(name string) bool {
	enc, _ := canonical(name)
	node := int32(0)
	for _, b := range enc[1:] {
		if node = t.next(node, b); node < 0 {
			return false
		}
	}
	return t.nodes[node].term >= 0
}

func finishArray(out []byte, f frame) ([]byte, bool) {
	n := f.n
	i, comma := int(f.cnt), f.st == aAfter
	if f.st == aComma {
		b, ok := minimalOf(n.item(i))
		if !ok {
			return nil, false
		}
		out, i, comma = append(out, b...), i+1, true
	}
	for ; i < n.minItems; i++ {
		if comma {
			out = append(out, ',')
		}
		b, ok := minimalOf(n.item(i))
		if !ok {
			return nil, false
		}
		out, comma = append(out, b...), true
	}
	return append(out, ']'), true
}
