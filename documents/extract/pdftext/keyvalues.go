package pdftext

// Dictionaries with a key and no value. A hand-built catalog "<< /Pages 1 0 R /Catalog >>"
// (format-corpus's T02-01_005: the value of /Type left out, its name kept) makes the object
// reader take ">>" for the last key's value and then fail on "endobj" ("unexpected non-name
// key ... parsing dictionary"), and the file has no catalog; pdftotext passes over the
// stray name and reads the page. withKeyValues gives each such key the value null, which
// a reader takes for a key not there; the offsets move, so the copy is opened through
// rebuiltXref's scan (rereads.go).

// withKeyValues returns a copy of data with " null " put after each key that the dictionary
// of an object's body closes right after, and whether it put any.
func withKeyValues(data []byte) (out []byte, ok bool) {
	w := rewrite{data: data}
	for _, h := range objectHeaders(data) {
		if h.end < w.kept {
			continue // a header inside the text already copied
		}
		l := lexer{data: data, pos: h.end}
		l.skipSpace()
		if l.pos+1 >= len(data) || data[l.pos] != '<' || data[l.pos+1] != '<' {
			continue
		}
		l.pos += 2
		for _, at := range keysWithoutValue(&l) {
			if at >= w.kept {
				w.insert(at, " null ")
			}
		}
	}
	return w.result()
}

// keysWithoutValue reads a dictionary's entries from after its "<<" to its ">>" and
// returns, in order, where its ">>" or that of a dictionary inside it closes the
// dictionary right after a key. It stops at a key that is no name, at a nesting deeper than
// maxNesting and at the end of the data: a fault for other repairs, or none.
func keysWithoutValue(l *lexer) (at []int) {
	defer func() {
		if p := recover(); p != nil {
			if p != errNesting {
				panic(p)
			}
		}
	}()
	l.depth++
	defer func() { l.depth-- }()
	if l.depth > maxNesting {
		return nil
	}
	closes := func() bool {
		l.skipSpace()
		if l.pos+1 < len(l.data) && l.data[l.pos] == '>' && l.data[l.pos+1] == '>' {
			l.pos += 2
			return true
		}
		return false
	}
	for {
		if closes() {
			return at
		}
		if l.pos >= len(l.data) || l.data[l.pos] != '/' {
			return at
		}
		l.name()
		l.skipSpace()
		if l.pos+1 < len(l.data) && l.data[l.pos] == '>' && l.data[l.pos+1] == '>' {
			at = append(at, l.pos)
			continue
		}
		if l.pos+1 < len(l.data) && l.data[l.pos] == '<' && l.data[l.pos+1] == '<' {
			l.pos += 2
			at = append(at, keysWithoutValue(l)...)
			continue
		}
		var op operand
		if _, _, ok := l.next(&op); !ok {
			return at
		}
		if op.kind == kNum { // a reference's "N G R" is one value
			back := l.pos
			var gen operand
			if _, _, ok := l.next(&gen); ok && gen.kind == kNum {
				if kw, isOp, _ := l.next(&op); isOp && kw == "R" {
					continue
				}
			}
			l.pos = back
		}
	}
}
