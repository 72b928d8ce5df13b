package pdftext

import (
	"strconv"
)

// kind is the type of a content-stream operand.
type kind uint8

const (
	kNull kind = iota
	kNum
	kName
	kString
	kArray
	kDict
	kBool
)

// operand is one value of a content stream: a number, name, string, array or dictionary.
type operand struct {
	kind kind
	num  float64
	str  string // a name or a string's bytes
	arr  []operand
}

// lexer reads the tokens of a content stream (or a CMap) from memory.
type lexer struct {
	data []byte
	pos  int
	// depth bounds nesting of arrays and dictionaries.
	depth int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		if isSpace(c) {
			l.pos++
			continue
		}
		if c == '%' {
			for l.pos < len(l.data) && l.data[l.pos] != '\n' && l.data[l.pos] != '\r' {
				l.pos++
			}
			continue
		}
		return
	}
}

// next reads one operand into op, or returns the operator keyword that ends the operands
// (ok false at the end of the data).
func (l *lexer) next(op *operand) (keyword string, isOp, ok bool) {
	l.skipSpace()
	if l.pos >= len(l.data) {
		return "", false, false
	}
	c := l.data[l.pos]
	switch {
	case c == '/':
		*op = operand{kind: kName, str: l.name()}
	case c == '(':
		*op = operand{kind: kString, str: l.literal()}
	case c == '<' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '<':
		l.pos += 2
		*op = operand{kind: kDict, arr: l.seq(">>")}
	case c == '<':
		*op = operand{kind: kString, str: l.hex()}
	case c == '[':
		l.pos++
		*op = operand{kind: kArray, arr: l.seq("]")}
	case c == '{':
		l.pos++
		*op = operand{kind: kArray, arr: l.seq("}")}
	case c == ']' || c == '>' || c == ')' || c == '}':
		l.pos++ // stray closer
		*op = operand{}
	case c == '+' || c == '-' || c == '.' || ('0' <= c && c <= '9'):
		*op = operand{kind: kNum, num: l.number()}
	default:
		w := l.word()
		switch w {
		case "true", "false":
			*op = operand{kind: kBool, num: map[bool]float64{true: 1}[w == "true"]}
		case "null":
			*op = operand{}
		default:
			return w, true, true
		}
	}
	return "", false, true
}

// nextShallow is next for a reader that stops at a nesting too deep instead of failing the
// page (errNesting is what next panics with): a CMap nesting too deep maps the codes read
// before it, and the page's text is kept.
func (l *lexer) nextShallow(op *operand) (kw string, isOp, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			if p != errNesting {
				panic(p)
			}
			kw, isOp, ok = "", false, false
		}
	}()
	return l.next(op)
}

// seq reads operands up to the closer (a dictionary's keys are names among them).
func (l *lexer) seq(closer string) []operand {
	l.depth++
	defer func() { l.depth-- }()
	var out []operand
	for {
		l.skipSpace()
		if l.pos >= len(l.data) {
			return out
		}
		if l.pos+len(closer) <= len(l.data) && string(l.data[l.pos:l.pos+len(closer)]) == closer {
			l.pos += len(closer)
			return out
		}
		if l.depth > maxNesting {
			panic(errNesting)
		}
		var op operand
		kw, isOp, ok := l.next(&op)
		if !ok {
			return out
		}
		if isOp {
			op = operand{kind: kName, str: kw} // "R" of a reference and other words inside
		}
		out = append(out, op)
	}
}

func (l *lexer) word() string {
	start := l.pos
	for l.pos < len(l.data) && !isSpace(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
		l.pos++
	}
	if l.pos == start { // a delimiter we do not take: skip it
		l.pos++
	}
	return string(l.data[start:l.pos])
}

func (l *lexer) number() float64 {
	start := l.pos
	l.pos++
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		if c == '.' || ('0' <= c && c <= '9') || c == '-' || c == '+' || c == 'e' || c == 'E' {
			l.pos++
			continue
		}
		break
	}
	s := string(l.data[start:l.pos])
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// "--5", "5-3", "1.2.3": take the longest number it starts with, as readers do.
		for i := len(s) - 1; i > 0 && err != nil; i-- {
			f, err = strconv.ParseFloat(s[:i], 64)
		}
	}
	return f
}

func (l *lexer) name() string {
	l.pos++ // '/'
	var b []byte
	for l.pos < len(l.data) && !isSpace(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
		c := l.data[l.pos]
		if c == '#' && l.pos+2 < len(l.data) {
			if v, ok := unhex2(l.data[l.pos+1], l.data[l.pos+2]); ok {
				b = append(b, v)
				l.pos += 3
				continue
			}
		}
		b = append(b, c)
		l.pos++
	}
	return string(b)
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func unhex2(a, b byte) (byte, bool) {
	x, ok1 := unhex(a)
	y, ok2 := unhex(b)
	return x<<4 | y, ok1 && ok2
}

func (l *lexer) hex() string {
	l.pos++ // '<'
	var b []byte
	var hi byte
	half := false
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		if c == '>' {
			break
		}
		v, ok := unhex(c)
		if !ok {
			continue
		}
		if half {
			b = append(b, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		b = append(b, hi<<4)
	}
	return string(b)
}

func (l *lexer) literal() string {
	l.pos++ // '('
	var b []byte
	depth := 1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return string(b)
			}
		case '\\':
			if l.pos >= len(l.data) {
				return string(b)
			}
			c = l.data[l.pos]
			l.pos++
			switch c {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(l.data) && l.data[l.pos] == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			default:
				if '0' <= c && c <= '7' {
					v := c - '0'
					for i := 0; i < 2 && l.pos < len(l.data) && '0' <= l.data[l.pos] && l.data[l.pos] <= '7'; i++ {
						v = v<<3 | (l.data[l.pos] - '0')
						l.pos++
					}
					c = v
				}
			}
		}
		b = append(b, c)
	}
	return string(b)
}

// inlineImage returns an inline image's data, after its ID operator, and moves past its EI:
// length bytes when the image's dictionary gave them (L, PDF 2.0) and an EI follows them,
// else up to the EI that stands alone between white space.
func (l *lexer) inlineImage(length int) []byte {
	if l.pos < len(l.data) && isSpace(l.data[l.pos]) {
		l.pos++
	}
	start := l.pos
	if end := start + length; length > 0 && end <= len(l.data) {
		i := end
		for i < len(l.data) && isSpace(l.data[i]) {
			i++
		}
		if i+1 < len(l.data) && l.data[i] == 'E' && l.data[i+1] == 'I' {
			l.pos = i + 2
			return l.data[start:end]
		}
	}
	for i := l.pos; i+2 <= len(l.data); i++ {
		if l.data[i] == 'E' && l.data[i+1] == 'I' && i > 0 && isSpace(l.data[i-1]) && (i+2 == len(l.data) || isSpace(l.data[i+2]) || isDelim(l.data[i+2])) {
			l.pos = i + 2
			return l.data[start:max(start, i-1)]
		}
	}
	l.pos = len(l.data)
	return l.data[start:]
}
