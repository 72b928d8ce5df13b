package extract

import (
	"strings"
	"unicode/utf8"
)

// mathFrame is an open equation element whose parts are written in a linear form once it
// ends: a fraction (m:f: num, den), scripts (m:sSup, m:sSub, m:sSubSup: e, sub, sup), a
// radical (m:rad: deg, e), an n-ary operator (m:nary: sub, sup, e) or a function applied
// (m:func: fName, e: "cos x"). Its parts' text is
// written as it comes; at its end the text from start on is written again from the parts.
type mathFrame struct {
	kind  string
	depth int
	text  *strings.Builder
	start int
	parts map[string][2]int // a part's start and end in text
	sign  string            // an n-ary operator's sign
}

// mathLinear holds the elements written in a linear form and the parts each has.
var mathLinear = map[string][]string{
	"f":       {"num", "den"},
	"sSup":    {"e", "sup"},
	"sSub":    {"e", "sub"},
	"sSubSup": {"e", "sub", "sup"},
	"rad":     {"deg", "e"},
	"nary":    {"sub", "sup", "e"},
	"func":    {"fName", "e"},
}

func (m *wordMath) frameStart(name string, text *strings.Builder) {
	if n := len(m.frames); n > 0 && m.depth == m.frames[n-1].depth+1 && text == m.frames[n-1].text && text != nil {
		f := &m.frames[n-1]
		if isPart(f.kind, name) {
			f.parts[name] = [2]int{text.Len(), -1}
		}
	}
	if _, ok := mathLinear[name]; ok {
		start := 0
		if text != nil {
			start = text.Len()
		}
		m.frames = append(m.frames, mathFrame{kind: name, depth: m.depth, text: text, start: start, parts: map[string][2]int{}})
	}
}

func (m *wordMath) frameEnd(name string, text *strings.Builder) {
	n := len(m.frames)
	if n == 0 {
		return
	}
	f := &m.frames[n-1]
	switch {
	case m.depth == f.depth+1 && name == "naryPr" && f.kind == "nary":
		f.sign = m.nary
	case m.depth == f.depth+1 && isPart(f.kind, name):
		if p, ok := f.parts[name]; ok && text == f.text && text != nil {
			f.parts[name] = [2]int{p[0], text.Len()}
		}
	case m.depth == f.depth && name == f.kind:
		m.frames = m.frames[:n-1]
		if text == nil || text != f.text || text.Len() < f.start {
			return
		}
		s := text.String()
		part := func(name string) string {
			p, ok := f.parts[name]
			if !ok || p[1] < p[0] || p[1] > len(s) {
				return ""
			}
			return s[p[0]:p[1]]
		}
		var out string
		switch f.kind {
		case "f":
			out = grouped(part("num")) + "/" + grouped(part("den"))
		case "sSup":
			out = part("e") + script(part("sup"), true)
		case "sSub":
			out = part("e") + script(part("sub"), false)
		case "sSubSup":
			out = part("e") + script(part("sub"), false) + script(part("sup"), true)
		case "rad":
			out = root(part("deg")) + grouped(part("e"))
		case "nary":
			out = f.sign + script(part("sub"), false) + script(part("sup"), true) + part("e")
		case "func":
			out = part("fName") + " " + part("e")
		}
		text.Reset()
		text.WriteString(s[:f.start] + out)
	}
}

func isPart(kind, name string) bool {
	for _, p := range mathLinear[kind] {
		if p == name {
			return true
		}
	}
	return false
}

// Superscript and subscript forms of the characters a script is written with where it is
// made of them only, as pandoc writes them ("x²", "a₁"); other scripts are written
// "^(…)" and "_(…)" ("x_(i)", "e^(iπ)").
var (
	supChars = map[rune]rune{'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹', '+': '⁺', '-': '⁻', '−': '⁻', '=': '⁼', '(': '⁽', ')': '⁾'}
	subChars = map[rune]rune{'0': '₀', '1': '₁', '2': '₂', '3': '₃', '4': '₄', '5': '₅', '6': '₆', '7': '₇', '8': '₈', '9': '₉', '+': '₊', '-': '₋', '−': '₋', '=': '₌', '(': '₍', ')': '₎'}
)

// script writes a superscript (sup) or subscript s.
func script(s string, sup bool) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	chars, mark := subChars, "_("
	if sup {
		chars, mark = supChars, "^("
	}
	var b strings.Builder
	for _, r := range s {
		c, ok := chars[r]
		if !ok {
			return mark + s + ")"
		}
		b.WriteRune(c)
	}
	return b.String()
}

// grouped puts a fraction's part, or a radical's argument, in brackets where it is more
// than one character and holds an operator or a space: "(a+b)/c", "x²/2!", "√(x+1)".
func grouped(s string) string {
	if utf8.RuneCountInString(s) > 1 && strings.ContainsAny(s, " +-−=±∓×÷·/<>≤≥,") {
		return "(" + s + ")"
	}
	return s
}

// root is a radical's sign for its degree: √, ∛, ∜, else the degree as a superscript
// before √ ("⁵√").
func root(deg string) string {
	switch deg = strings.TrimSpace(deg); deg {
	case "", "2":
		return "√"
	case "3":
		return "∛"
	case "4":
		return "∜"
	}
	if s := script(deg, true); !strings.HasPrefix(s, "^(") {
		return s + "√"
	}
	return "(" + deg + ")√"
}
