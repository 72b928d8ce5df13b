package tokenizer

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalizer is the tokenizer's normalizer: steps applied in order (a Sequence flattened).
type normalizer []normStep

// normStep is one normalizer. apply returns the new text and whether its start still stands
// for the start of the input (false when the step dropped the first character), which
// Metaspace's prepend_scheme "first" depends on.
type normStep interface {
	apply(s string) (string, bool)
	name() string
}

func (n normalizer) apply(s string) string {
	s, _ = n.applyFirst(s)
	return s
}

func (n normalizer) applyFirst(s string) (string, bool) {
	keeps := true
	for _, st := range n {
		var k bool
		s, k = st.apply(s)
		keeps = keeps && k
	}
	return s, keeps
}

// names lists the steps for inspect.
func (n normalizer) names() []string {
	var out []string
	for _, st := range n {
		out = append(out, st.name())
	}
	return out
}

func parseNormalizer(c *component) (normalizer, error) {
	if c == nil {
		return nil, nil
	}
	switch c.Type {
	case "Sequence":
		var n normalizer
		err := c.each("normalizers", func(sub *component) error {
			one, err := parseNormalizer(sub)
			n = append(n, one...)
			return err
		})
		return n, err
	case "NFC":
		return normalizer{formStep{norm.NFC, "NFC"}}, nil
	case "NFD":
		return normalizer{formStep{norm.NFD, "NFD"}}, nil
	case "NFKC":
		return normalizer{formStep{norm.NFKC, "NFKC"}}, nil
	case "NFKD":
		return normalizer{formStep{norm.NFKD, "NFKD"}}, nil
	case "Lowercase":
		return normalizer{lowercaseStep{}}, nil
	case "StripAccents":
		return normalizer{filterStep{"StripAccents", func(r rune) bool { return class2(r)&c2Mark9 == 0 }}}, nil
	case "Nmt":
		return normalizer{nmtStep{}}, nil
	case "ByteLevel":
		return normalizer{byteLevelNormStep{}}, nil
	case "Strip":
		var st stripStep
		if err := c.required("strip_left", &st.left); err != nil {
			return nil, err
		}
		if err := c.required("strip_right", &st.right); err != nil {
			return nil, err
		}
		return normalizer{st}, nil
	case "Prepend":
		var st prependStep
		if err := c.required("prepend", &st.prefix); err != nil {
			return nil, err
		}
		return normalizer{st}, nil
	case "Replace":
		r, err := parseReplace(c)
		if err != nil {
			return nil, err
		}
		return normalizer{r}, nil
	case "BertNormalizer":
		var b bertStep
		for _, f := range []struct {
			name string
			v    *bool
		}{{"clean_text", &b.clean}, {"handle_chinese_chars", &b.chinese}, {"lowercase", &b.lower}} {
			if err := c.required(f.name, f.v); err != nil {
				return nil, err
			}
		}
		var strip *bool
		if _, err := c.nullable("strip_accents", &strip); err != nil {
			return nil, err
		}
		b.strip = b.lower
		if strip != nil {
			b.strip = *strip
		}
		return normalizer{b}, nil
	case "Precompiled":
		var enc *string
		if err := c.required("precompiled_charsmap", &enc); err != nil {
			return nil, err
		}
		if enc == nil { // the Rust library fails on it too
			return nil, c.errorf("precompiled_charsmap is null")
		}
		data, err := base64.StdEncoding.DecodeString(*enc)
		if err != nil {
			return nil, c.errorf("precompiled_charsmap is not base64: %v", err)
		}
		p, err := newCharsmap(data)
		if err != nil {
			return nil, c.errorf("%v", err)
		}
		return normalizer{p}, nil
	}
	return nil, unsupported("normalizer %s", c.name())
}

type formStep struct {
	form norm.Form
	n    string
}

func (f formStep) apply(s string) (string, bool) { return normalizeForm(s, f.form), true }
func (f formStep) name() string                  { return f.n }

type lowercaseStep struct{}

func (lowercaseStep) name() string { return "Lowercase" }

func (lowercaseStep) apply(s string) (string, bool) {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s, true
	}
	out := make([]byte, 0, len(s)+4)
	out = append(out, s[:i]...)
	for _, r := range s[i:] {
		out = toLower(out, r)
	}
	return string(out), true
}

// filterStep drops the characters keep refuses.
type filterStep struct {
	n    string
	keep func(rune) bool
}

func (f filterStep) name() string { return f.n }

func (f filterStep) apply(s string) (string, bool) {
	r, _ := utf8.DecodeRuneInString(s)
	keeps := s == "" || f.keep(r)
	return strings.Map(func(r rune) rune {
		if f.keep(r) {
			return r
		}
		return -1
	}, s), keeps
}

type stripStep struct{ left, right bool }

func (st stripStep) name() string { return fmt.Sprintf("Strip(left %v, right %v)", st.left, st.right) }

func (st stripStep) apply(s string) (string, bool) {
	keeps := true
	if st.left {
		t := strings.TrimLeftFunc(s, isWhitespace)
		keeps = len(t) == len(s)
		s = t
	}
	if st.right {
		s = strings.TrimRightFunc(s, isWhitespace)
	}
	return s, keeps
}

type prependStep struct{ prefix string }

func (p prependStep) name() string { return fmt.Sprintf("Prepend(%q)", p.prefix) }

func (p prependStep) apply(s string) (string, bool) {
	if s == "" { // the reference prepends to non-empty text only
		return s, true
	}
	return p.prefix + s, true
}

// nmtStep is the Nmt normalizer: drops some controls and makes other spaces plain.
type nmtStep struct{}

func (nmtStep) name() string { return "Nmt" }

func (nmtStep) apply(s string) (string, bool) {
	r0, _ := utf8.DecodeRuneInString(s)
	keeps := s == "" || !nmtDrops(r0)
	return strings.Map(func(r rune) rune {
		switch {
		case nmtDrops(r):
			return -1
		case r == 0x09 || r == 0x0A || r == 0x0C || r == 0x0D || r == 0x1680 || r >= 0x200B && r <= 0x200F ||
			r == 0x2028 || r == 0x2029 || r == 0x2581 || r == 0xFEFF || r == 0xFFFD:
			return ' '
		}
		return r
	}, s), keeps
}

func nmtDrops(r rune) bool {
	return r >= 1 && r <= 8 || r == 0x0B || r >= 0x0E && r <= 0x1F || r == 0x7F || r == 0x8F || r == 0x9F
}

// byteLevelNormStep is the ByteLevel normalizer: every byte becomes its GPT-2 character.
type byteLevelNormStep struct{}

func (byteLevelNormStep) name() string { return "ByteLevel" }
func (byteLevelNormStep) apply(s string) (string, bool) {
	return string(byteLevelString(make([]byte, 0, len(s)*2), s)), true
}

// bertStep is BertNormalizer: clean_text drops NUL, U+FFFD and controls (Unicode 8.0 Cc, Cf,
// Co but tab and line breaks) and makes whitespace a space; handle_chinese_chars puts spaces
// around CJK ideographs; strip_accents (default: as lowercase) drops non-spacing marks after
// NFD; then lowercase.
type bertStep struct{ clean, chinese, strip, lower bool }

func (b bertStep) name() string {
	return fmt.Sprintf("BertNormalizer(clean_text %v, handle_chinese_chars %v, strip_accents %v, lowercase %v)", b.clean, b.chinese, b.strip, b.lower)
}

func (b bertStep) apply(s string) (string, bool) {
	keeps := true
	if b.clean {
		r, _ := utf8.DecodeRuneInString(s)
		keeps = s == "" || !bertDrops(r)
		s = strings.Map(func(r rune) rune {
			switch {
			case bertDrops(r):
				return -1
			case r == '\t' || r == '\n' || r == '\r' || isWhitespace(r):
				return ' '
			}
			return r
		}, s)
	}
	if b.chinese && strings.IndexFunc(s, isChineseChar) >= 0 {
		var sb strings.Builder
		for _, r := range s {
			if isChineseChar(r) {
				sb.WriteByte(' ')
				sb.WriteRune(r)
				sb.WriteByte(' ')
			} else {
				sb.WriteRune(r)
			}
		}
		s = sb.String()
	}
	if b.strip {
		s = normalizeForm(s, norm.NFD)
		if r, _ := utf8.DecodeRuneInString(s); s != "" && class2(r)&c2Mn8 != 0 {
			keeps = false // a leading mark is removed: the start moves on
		}
		s = strings.Map(func(r rune) rune {
			if class2(r)&c2Mn8 != 0 {
				return -1
			}
			return r
		}, s)
	}
	if b.lower {
		s, _ = lowercaseStep{}.apply(s)
	}
	return s, keeps
}

func bertDrops(r rune) bool {
	return r == 0 || r == 0xFFFD || r != '\t' && r != '\n' && r != '\r' && class2(r)&c2Ctl8 != 0
}

// isChineseChar is BERT's CJK test: the CJK Unified Ideograph blocks and their extensions.
func isChineseChar(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF || r >= 0x20000 && r <= 0x2A6DF ||
		r >= 0x2A700 && r <= 0x2B73F || r >= 0x2B740 && r <= 0x2B81F || r >= 0x2B920 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x2F800 && r <= 0x2FA1F
}

// replaceStep is the Replace normalizer: every match of a literal string or a regex becomes
// content. An empty pattern matches between every two characters, as the reference's does.
type replaceStep struct {
	literal string
	re      *pattern // nil for a literal
	content string
}

func (r replaceStep) name() string {
	if r.re != nil {
		return fmt.Sprintf("Replace(regex %q → %q)", r.re.src, r.content)
	}
	return fmt.Sprintf("Replace(%q → %q)", r.literal, r.content)
}

func parseReplace(c *component) (replaceStep, error) {
	var r replaceStep
	pat, isRegex, err := c.pattern()
	if err != nil {
		return r, err
	}
	if err := c.required("content", &r.content); err != nil {
		return r, err
	}
	if !isRegex {
		r.literal = pat
		return r, nil
	}
	if r.re, err = compilePattern(pat); err != nil {
		return r, unsupported("%s Replace: %v", c.kind, err)
	}
	return r, nil
}

func (r replaceStep) apply(s string) (string, bool) {
	if r.re == nil {
		keeps := r.literal == "" || !strings.HasPrefix(s, r.literal) ||
			r.content != "" && utf8.RuneCountInString(r.literal) == 1
		return strings.ReplaceAll(s, r.literal, r.content), keeps
	}
	var b strings.Builder
	last, keeps := 0, true
	r.re.findAll(s, func(start, end int) {
		if start == 0 && end > 0 && (r.content == "" || utf8.RuneCountInString(s[:end]) > 1) {
			keeps = false
		}
		b.WriteString(s[last:start])
		b.WriteString(r.content)
		last = end
	})
	if last == 0 && b.Len() == 0 {
		return s, true
	}
	b.WriteString(s[last:])
	return b.String(), keeps
}
