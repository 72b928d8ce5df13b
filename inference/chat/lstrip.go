package chat

import (
	"regexp"
	"strings"
)

// With lstrip_blocks, Jinja2 strips the spaces and tabs before a {% or {# tag only when nothing
// else precedes them on their line. gonja v2.9.1 also strips them when they follow another tag
// on the same line ("{{ x }} {% if y %}" loses its space). protectMidLineBlocks rewrites such
// tags to "{%+" ("{#+"), gonja's "do not strip here", so that gonja renders what Jinja2
// renders; it also writes line breaks inside string literals as escapes, which gonja's lexer
// needs and Jinja2 reads the same. Only gonja sees the rewritten source. It scans tags the way Jinja2's lexer does: string literals inside a tag may hold
// "%}", and {% raw %} bodies are left alone.

var endRaw = regexp.MustCompile(`\{%[-+]?\s*endraw\s*[-+]?%\}`)

var rawBegin = regexp.MustCompile(`^\{%[-+]?\s*raw\s*[-+]?%\}`)

func protectMidLineBlocks(src string) string {
	var b strings.Builder
	b.Grow(len(src) + 16)
	lineStart := true // the text being scanned begins a line
	i := 0
	for i < len(src) {
		j := nextTag(src, i)
		if j < 0 {
			break
		}
		data := src[i:j]
		b.WriteString(data)
		opener := src[j : j+2]
		control := byte(0)
		if j+2 < len(src) {
			control = src[j+2]
		}
		if opener != "{{" && control != '-' && control != '+' &&
			data != "" && !lineStart && !strings.Contains(data, "\n") && strings.Trim(data, " \t") == "" {
			b.WriteString(opener + "+")
			i = j + 2
		} else {
			b.WriteString(opener)
			i = j + 2
		}
		end := tagEnd(src, i, opener)
		if end < 0 { // unclosed: let the parser report it
			b.WriteString(src[i:])
			return b.String()
		}
		switch {
		case opener == "{%" && rawBegin.MatchString(src[j:end]):
			if loc := endRaw.FindStringIndex(src[end:]); loc != nil {
				end += loc[1]
			}
			b.WriteString(src[i:end])
		case opener == "{#":
			b.WriteString(src[i:end])
		default:
			writeEscapingLiteralBreaks(&b, rewriteInlineIfs(src[i:end]))
		}
		i = end
		lineStart = false
		switch {
		case src[end-3] == '-': // "-%}" or "-}}" eats the whitespace after it
			ws := len(src[end:]) - len(strings.TrimLeft(src[end:], " \t\r\n"))
			lineStart = ws > 0 && src[end+ws-1] == '\n'
		case opener != "{{" && src[end-3] != '+' && end < len(src) && src[end] == '\n': // trim_blocks
			lineStart = true
		}
	}
	b.WriteString(src[i:])
	return b.String()
}

// writeEscapingLiteralBreaks writes the inside of a tag with the line breaks of its string
// literals written as escapes: Jinja2 takes a literal that spans lines (Gemma 3's template has
// '<start_of_turn>' + role + '⏎'), gonja's lexer does not.
func writeEscapingLiteralBreaks(b *strings.Builder, tag string) {
	quote := byte(0)
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		switch {
		case quote == 0:
			if c == '\'' || c == '"' {
				quote = c
			}
		case c == '\\' && i+1 < len(tag):
			b.WriteByte(c)
			i++
			c = tag[i]
		case c == quote:
			quote = 0
		case c == '\n':
			b.WriteString(`\n`)
			continue
		case c == '\r':
			b.WriteString(`\r`)
			continue
		}
		b.WriteByte(c)
	}
}

// nextTag returns the index of the next "{{", "{%" or "{#" at or after i, or -1.
func nextTag(src string, i int) int {
	for {
		k := strings.IndexByte(src[i:], '{')
		if k < 0 || i+k+1 >= len(src) {
			return -1
		}
		switch src[i+k+1] {
		case '{', '%', '#':
			return i + k
		}
		i += k + 1
	}
}

// tagEnd returns the index just past the tag that opened before i, or -1 if it never closes.
func tagEnd(src string, i int, opener string) int {
	if opener == "{#" {
		k := strings.Index(src[i:], "#}")
		if k < 0 {
			return -1
		}
		return i + k + 2
	}
	closer := "}}"
	if opener == "{%" {
		closer = "%}"
	}
	for i < len(src) {
		switch c := src[i]; c {
		case '\'', '"':
			i++
			for i < len(src) && src[i] != c {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
		default:
			if strings.HasPrefix(src[i:], closer) {
				return i + 2
			}
			i++
		}
	}
	return -1
}
