package chat

import (
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// gonja v2.9.1 parses Jinja's inline if ("A if B else C") only as a whole {{ … }} output or
// {% set %} value; nested in parentheses (Gemma 3: "'\n' + (prefix if loop.first else '')")
// it fails. rewriteInlineIfs turns each such nested one into a call of ifElseName, a global
// that picks between its already evaluated arguments: the same value, since a chat template's
// expressions have no side effects.

const ifElseName = "__edgechat_if_else"

// ifElse is the global behind rewritten inline ifs: ifElse(B, A, C) is "A if B else C".
func ifElse(_ *exec.Evaluator, params *exec.VarArgs) *exec.Value {
	if len(params.Args) != 3 {
		return exec.AsValue(nil)
	}
	if params.Args[0].IsTrue() {
		return params.Args[1]
	}
	return params.Args[2]
}

// rewriteInlineIfs rewrites the inline ifs inside parentheses of a tag's text.
func rewriteInlineIfs(tag string) string {
	if !strings.Contains(tag, "if") {
		return tag
	}
	for {
		out, changed := rewriteOneGroup(tag)
		if !changed {
			return tag
		}
		tag = out
	}
}

// rewriteOneGroup rewrites the first (innermost) parenthesized group that holds an inline if
// at its top level, one comma-separated element at a time.
func rewriteOneGroup(s string) (string, bool) {
	var open []int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			i = skipString(s, i)
		case '(':
			open = append(open, i)
		case ')':
			if len(open) == 0 {
				continue
			}
			o := open[len(open)-1]
			open = open[:len(open)-1]
			inner := s[o+1 : i]
			var parts []string
			changed := false
			for _, el := range splitTopLevel(inner, ',') {
				if r, ok := rewriteElement(el); ok {
					el, changed = r, true
				}
				parts = append(parts, el)
			}
			if changed {
				return s[:o+1] + strings.Join(parts, ",") + s[i:], true
			}
		}
	}
	return s, false
}

// rewriteElement turns "A if B else C" (or "A if B") into ifElseName(B, A, C).
func rewriteElement(el string) (string, bool) {
	words := topLevelWords(el)
	ifAt, elseAt := -1, -1
	for _, w := range words {
		switch {
		case ifAt < 0 && el[w[0]:w[1]] == "if":
			ifAt = w[0]
		case ifAt >= 0 && el[w[0]:w[1]] == "else":
			elseAt = w[0]
		}
		if elseAt >= 0 {
			break
		}
	}
	if ifAt <= 0 || strings.TrimSpace(el[:ifAt]) == "" {
		return el, false
	}
	a, b, c := el[:ifAt], el[ifAt+2:], "none"
	if elseAt >= 0 {
		b, c = el[ifAt+2:elseAt], el[elseAt+4:]
	}
	return ifElseName + "(" + b + "," + a + "," + c + ")", true
}

// topLevelWords returns the spans of the identifier-like words of s outside strings and
// brackets.
func topLevelWords(s string) [][2]int {
	var words [][2]int
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			i = skipString(s, i)
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth == 0 && isIdentByte(c):
			j := i
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			words = append(words, [2]int{i, j})
			i = j - 1
		}
	}
	return words
}

// splitTopLevel splits s at the sep bytes outside strings and brackets.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			i = skipString(s, i)
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// skipString returns the index of the quote closing the string literal that opens at i.
func skipString(s string, i int) int {
	q := s[i]
	for i++; i < len(s) && s[i] != q; i++ {
		if s[i] == '\\' {
			i++
		}
	}
	return i
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
