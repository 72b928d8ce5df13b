package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// decoderChain is the decoder of a SentencePiece-style tokenizer: steps that each turn the
// list of token strings into another, joined at the end, as the reference's decode_chain.
type decoderChain []decodeStep

// decodeStep is one decoder: Replace(from → to), ByteFallback, Fuse, Strip(content, start,
// stop) or Metaspace(replacement, scheme).
type decodeStep struct {
	kind        uint8
	from, to    string
	content     rune
	start, stop int
	scheme      uint8
}

const (
	decReplace uint8 = iota
	decByteFallback
	decFuse
	decStrip
	decMetaspace
)

// parseDecoders reads the decoder of a SentencePiece-style tokenizer.
func parseDecoders(c *component) (decoderChain, error) {
	if c == nil {
		return nil, unsupported("missing decoder")
	}
	switch c.Type {
	case "Sequence":
		var d decoderChain
		for _, c := range c.Decoders {
			one, err := parseDecoders(c)
			if err != nil {
				return nil, err
			}
			d = append(d, one...)
		}
		return d, nil
	case "Replace":
		if c.Pattern.String == nil || *c.Pattern.String == "" {
			return nil, unsupported("decoder Replace with a regex or empty pattern")
		}
		return decoderChain{{kind: decReplace, from: *c.Pattern.String, to: c.Content}}, nil
	case "ByteFallback":
		return decoderChain{{kind: decByteFallback}}, nil
	case "Fuse":
		return decoderChain{{kind: decFuse}}, nil
	case "Strip":
		r, n := utf8.DecodeRuneInString(c.Content)
		if n != len(c.Content) || n == 0 || c.Start < 0 || c.Stop < 0 {
			return nil, unsupported("decoder Strip of %q", c.Content)
		}
		return decoderChain{{kind: decStrip, content: r, start: c.Start, stop: c.Stop}}, nil
	case "Metaspace":
		m, err := parseMetaspace(c)
		if err != nil {
			return nil, err
		}
		return decoderChain{{kind: decMetaspace, from: m.replacement, scheme: m.scheme}}, nil
	}
	return nil, unsupported("decoder %s (only ByteLevel, or Replace, ByteFallback, Fuse, Strip and Metaspace)", c.name())
}

// decode runs the chain on toks (which it may change) and joins the result. With first
// false the tokens continue earlier output: the steps that treat the start of the output
// specially (Metaspace's first token, Strip after Fuse) leave it alone.
func (d decoderChain) decode(toks []string, first bool) string {
	fused := false
	for _, st := range d {
		switch st.kind {
		case decReplace:
			for i, t := range toks {
				toks[i] = strings.ReplaceAll(t, st.from, st.to)
			}
		case decByteFallback:
			toks = byteFallback(toks)
		case decFuse:
			toks = []string{strings.Join(toks, "")}
			fused = true
		case decStrip:
			for i, t := range toks {
				start := st.start
				if i == 0 && fused && !first {
					start = 0
				}
				toks[i] = strip(t, st.content, start, st.stop)
			}
		case decMetaspace:
			for i, t := range toks {
				if i == 0 && first && st.scheme != prependNever {
					toks[i] = strings.ReplaceAll(t, st.from, "")
				} else {
					toks[i] = strings.ReplaceAll(t, st.from, " ")
				}
			}
		}
	}
	return strings.Join(toks, "")
}

// byteOf returns the byte a "<0xNN>" token stands for, parsed as the reference does.
func byteOf(tok string) (byte, bool) {
	if len(tok) != 6 || !strings.HasPrefix(tok, "<0x") || tok[5] != '>' {
		return 0, false
	}
	h := tok[3:5]
	if h[0] == '+' { // Rust's from_str_radix takes a sign
		h = h[1:]
	}
	var b byte
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			c = c | 0x20 - 'a' + 10
		default:
			return 0, false
		}
		b = b<<4 | c
	}
	return b, true
}

// byteFallback turns each run of "<0xNN>" tokens into its UTF-8 text, or into one U+FFFD per
// byte when the run is not valid UTF-8.
func byteFallback(toks []string) []string {
	out := toks[:0:0]
	var run []byte
	flush := func() {
		if len(run) == 0 {
			return
		}
		if utf8.Valid(run) {
			out = append(out, string(run))
		} else {
			out = append(out, strings.Repeat("\uFFFD", len(run)))
		}
		run = run[:0]
	}
	for _, t := range toks {
		if b, ok := byteOf(t); ok {
			run = append(run, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// strip removes up to start leading and up to stop trailing content characters of s.
func strip(s string, content rune, start, stop int) string {
	for ; start > 0; start-- {
		r, n := utf8.DecodeRuneInString(s)
		if n == 0 || r != content {
			break
		}
		s = s[n:]
	}
	for ; stop > 0; stop-- {
		r, n := utf8.DecodeLastRuneInString(s)
		if n == 0 || r != content {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}
