package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// decoder is tokenizer.json's decoder: steps that each turn the list of token strings into
// another, joined at the end, as the reference's decode_chain. Without one the tokens are
// joined with spaces.
type decoder struct {
	steps []decodeStep
	none  bool
	// byteLevelOnly: the decoder is ByteLevel alone, decoded from a byte table.
	byteLevelOnly bool
}

// decodeStep is one decoder.
type decodeStep struct {
	kind        uint8
	from, to    string   // Replace
	re          *pattern // Replace with a regex
	content     rune     // Strip
	start, stop int      // Strip
	scheme      uint8    // Metaspace
	prefix      string   // WordPiece; BPEDecoder's suffix; CTC's pad token
	delim       string   // CTC's word delimiter
	cleanup     bool     // WordPiece, CTC
}

const (
	decReplace uint8 = iota
	decByteFallback
	decFuse
	decStrip
	decMetaspace
	decByteLevel
	decWordPiece
	decBPE
	decCTC
)

var decoderNames = [...]string{"Replace", "ByteFallback", "Fuse", "Strip", "Metaspace", "ByteLevel", "WordPiece", "BPEDecoder", "CTC"}

func parseDecoder(c *component) (decoder, error) {
	if c == nil {
		return decoder{none: true}, nil
	}
	steps, err := parseDecodeSteps(c)
	d := decoder{steps: steps}
	d.byteLevelOnly = len(steps) == 1 && steps[0].kind == decByteLevel
	return d, err
}

func parseDecodeSteps(c *component) ([]decodeStep, error) {
	switch c.Type {
	case "Sequence":
		var d []decodeStep
		err := c.each("decoders", func(sub *component) error {
			one, err := parseDecodeSteps(sub)
			d = append(d, one...)
			return err
		})
		return d, err
	case "Replace":
		r, err := parseReplace(c)
		if err != nil {
			return nil, err
		}
		return []decodeStep{{kind: decReplace, from: r.literal, re: r.re, to: r.content}}, nil
	case "ByteFallback":
		return []decodeStep{{kind: decByteFallback}}, nil
	case "Fuse":
		return []decodeStep{{kind: decFuse}}, nil
	case "Strip":
		st := decodeStep{kind: decStrip}
		var err error
		if st.content, err = c.char("content", -1); err != nil {
			return nil, err
		}
		if err := c.required("start", &st.start); err != nil {
			return nil, err
		}
		if err := c.required("stop", &st.stop); err != nil {
			return nil, err
		}
		return []decodeStep{st}, nil
	case "Metaspace":
		m, err := parseMetaspace(c)
		if err != nil {
			return nil, err
		}
		return []decodeStep{{kind: decMetaspace, from: m.replacement, scheme: m.scheme}}, nil
	case "ByteLevel":
		var b bool
		for _, f := range []string{"add_prefix_space", "trim_offsets"} {
			if err := c.required(f, &b); err != nil {
				return nil, err
			}
		}
		return []decodeStep{{kind: decByteLevel}}, nil
	case "WordPiece":
		st := decodeStep{kind: decWordPiece}
		if err := c.required("prefix", &st.prefix); err != nil {
			return nil, err
		}
		if err := c.required("cleanup", &st.cleanup); err != nil {
			return nil, err
		}
		return []decodeStep{st}, nil
	case "BPEDecoder":
		st := decodeStep{kind: decBPE}
		if err := c.required("suffix", &st.prefix); err != nil {
			return nil, err
		}
		return []decodeStep{st}, nil
	case "CTC":
		st := decodeStep{kind: decCTC}
		for _, f := range []struct {
			name string
			v    any
		}{{"pad_token", &st.prefix}, {"word_delimiter_token", &st.delim}, {"cleanup", &st.cleanup}} {
			if err := c.required(f.name, f.v); err != nil {
				return nil, err
			}
		}
		return []decodeStep{st}, nil
	}
	return nil, unsupported("decoder %s", c.name())
}

func (d decoder) names() []string {
	if d.none {
		return nil
	}
	var out []string
	for _, st := range d.steps {
		out = append(out, decoderNames[st.kind])
	}
	return out
}

// streamable reports whether every step works token by token or on runs of byte tokens, so a
// stream can decode a window of ids at a time (see StreamDecoder).
func (d decoder) streamable() bool {
	if d.none {
		return false
	}
	for _, st := range d.steps {
		switch st.kind {
		case decReplace, decByteFallback, decFuse, decStrip, decMetaspace:
		default:
			return false
		}
	}
	return true
}

// decode runs the chain on toks (which it may change) and joins the result. With first
// false the tokens continue earlier output: the steps that treat the start of the output
// specially (Metaspace's first token, Strip after Fuse) leave it alone.
func (d decoder) decode(toks []string, first bool) string {
	if d.none {
		return strings.Join(toks, " ")
	}
	fused := false
	for _, st := range d.steps {
		switch st.kind {
		case decReplace:
			for i, t := range toks {
				if st.re != nil {
					toks[i], _ = replaceStep{re: st.re, content: st.to}.apply(t)
				} else {
					toks[i] = strings.ReplaceAll(t, st.from, st.to)
				}
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
		case decByteLevel:
			var b []byte
			for _, t := range toks {
				b, _ = appendByteLevelDecode(b, t)
			}
			toks = []string{string(appendLossy(nil, b))}
		case decWordPiece:
			for i, t := range toks {
				if i != 0 {
					if rest, ok := strings.CutPrefix(t, st.prefix); ok {
						t = rest
					} else {
						t = " " + t
					}
				}
				if st.cleanup {
					t = wordPieceCleanup(t)
				}
				toks[i] = t
			}
		case decBPE:
			for i, t := range toks {
				repl := " "
				if i == len(toks)-1 {
					repl = ""
				}
				toks[i] = strings.ReplaceAll(t, st.prefix, repl)
			}
		case decCTC:
			var out []string
			for i, t := range toks {
				if i > 0 && t == toks[i-1] {
					continue
				}
				t = strings.ReplaceAll(t, st.prefix, "")
				if st.cleanup {
					t = strings.ReplaceAll(wordPieceCleanup(t), st.delim, " ")
				}
				if t != "" {
					out = append(out, t)
				}
			}
			toks = out
		}
	}
	return strings.Join(toks, "")
}

// wordPieceCleanup undoes the spaces WordPiece decoding puts before punctuation and
// contractions, as the reference's cleanup.
// The replacements run one after another, as there.
func wordPieceCleanup(s string) string {
	for _, r := range [...][2]string{{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
		{" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
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
