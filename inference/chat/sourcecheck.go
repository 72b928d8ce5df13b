package chat

import (
	"errors"
	"fmt"
	"strings"
)

// errReserved refuses a template that names the sandbox's own globals.
var errReserved = fmt.Errorf("it uses the reserved name prefix %s", reservedPrefix)

// Source limits: gonja parses nested brackets, tags and unary operators by recursion, so a
// source nested a hundred thousand deep overflows the Go stack while parsing. Real templates
// nest a few levels and run to some kilobytes.
const (
	maxSourceBytes = 256 << 10
	maxNesting     = 100
)

// checkSource refuses, before parsing, a source too long or nested too deep to parse safely.
func checkSource(src string) error {
	if len(src) > maxSourceBytes {
		return fmt.Errorf("it is %d KB long, more than %d KB", len(src)>>10, maxSourceBytes>>10)
	}
	if strings.Contains(src, reservedPrefix) {
		return errReserved
	}
	depth, blocks, unary := 0, 0, 0
	inTag := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !inTag {
			if c == '{' && i+1 < len(src) && (src[i+1] == '{' || src[i+1] == '%') {
				inTag, i = true, i+1
				if src[i] == '%' {
					if word := tagWord(src[i+1:]); withoutTags[word] {
						return fmt.Errorf("it uses {%% %s %%}, which chat templates may not (it loads templates or renders blocks)", word)
					}
					blocks = blockDepth(src[i+1:], blocks)
				}
			}
			continue
		}
		switch c {
		case '\'', '"':
			i = skipString(src, i)
			unary = 0
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if c == '}' && i+1 < len(src) && src[i+1] == '}' && depth < 0 {
				depth, inTag = 0, false
			}
		case '%':
			if i+1 < len(src) && src[i+1] == '}' {
				inTag = false
			}
		case '-', '+':
			unary++
		case ' ', '\t', '\n', '\r':
			continue
		default:
			if strings.HasPrefix(src[i:], "not") && (i+3 == len(src) || !isIdentByte(src[i+3])) {
				unary++
				i += 2
				continue
			}
			unary = 0
		}
		if depth > maxNesting || blocks > maxNesting || unary > maxNesting {
			return fmt.Errorf("it nests brackets, tags or operators more than %d deep", maxNesting)
		}
	}
	if blocks > maxNesting {
		return errors.New("it nests tags more than 100 deep")
	}
	return nil
}

// openingTags are the tags that open a block closed by an end tag.
var openingTags = []string{"for", "if", "macro", "call", "filter", "with", "block", "raw", "autoescape", "trans"}

// tagWord is the name of the tag whose text (after "{%") is tag.
func tagWord(tag string) string {
	tag = strings.TrimLeft(tag, "-+ \t\r\n")
	if i := strings.IndexFunc(tag, func(r rune) bool { return r > 127 || !isIdentByte(byte(r)) }); i >= 0 {
		return tag[:i]
	}
	return tag
}

// blockDepth returns depth after the tag whose text (after "{%") is tag.
func blockDepth(tag string, depth int) int {
	word := tagWord(tag)
	tag = strings.TrimLeft(tag, "-+ \t\r\n")
	if strings.HasPrefix(word, "end") {
		return max(depth-1, 0)
	}
	for _, t := range openingTags {
		if word == t {
			return depth + 1
		}
	}
	if word == "set" { // {% set x %}…{% endset %} opens a block; {% set x = … %} does not
		end := strings.Index(tag, "%}")
		if end >= 0 && !strings.Contains(tag[:end], "=") {
			return depth + 1
		}
	}
	return depth
}
