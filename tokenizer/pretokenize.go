package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// preTokenizer cuts normalized text into the pieces the model encodes one by one: a chain of
// steps, each splitting every piece of the one before, as the reference's Sequence.
type preTokenizer struct {
	steps []preStep
	// byteLevel is true when a ByteLevel step maps the pieces to GPT-2's byte-level
	// characters: the pieces reaching the model are then raw bytes, each standing for its
	// character (the model looks bytes up directly).
	byteLevel bool
	// mapped is true when steps follow the ByteLevel one: they see the characters, and the
	// pieces are turned back into bytes before the model.
	mapped bool
}

// preStep is one pre-tokenizer. split emits the non-empty pieces of s; first is the length
// of the start of s that stands for the start of the input text (original offset 0, which
// Metaspace's prepend_scheme "first" asks for: more than the first character when the
// normalizer expanded the input's first character, as "℃" into "°C"; 0 for none), and is
// passed on, less the piece's start, for the pieces that start in it.
type preStep interface {
	split(s string, first int, emit func(string, int))
	name() string
}

// headAt returns first (see preStep) for the piece that starts at start.
func headAt(first, start int) int {
	if first > start {
		return first - start
	}
	return 0
}

// chain returns the function that runs every step on a stretch of text and hands the pieces
// to final. It is built once per encode state, so running it allocates nothing.
func (p *preTokenizer) chain(final func(string)) func(string, int) {
	last := func(s string, _ int) { final(s) }
	if p.mapped {
		var buf []byte
		last = func(s string, _ int) {
			buf = buf[:0]
			for _, r := range s {
				buf = append(buf, runeToByte[r-0]) // every character here is in the alphabet
			}
			final(string(buf))
		}
	}
	next := last
	for i := len(p.steps) - 1; i >= 0; i-- {
		st, n := p.steps[i], next
		next = func(s string, first int) { st.split(s, first, n) }
	}
	return func(s string, first int) {
		if s != "" {
			next(s, first)
		}
	}
}

func (p *preTokenizer) names() []string {
	var out []string
	for _, st := range p.steps {
		out = append(out, st.name())
	}
	return out
}

func parsePreTokenizer(c *component) (preTokenizer, error) {
	var p preTokenizer
	if err := p.add(c); err != nil {
		return p, err
	}
	for i, st := range p.steps {
		bl, ok := st.(*byteLevelStep)
		if !ok {
			continue
		}
		if p.byteLevel {
			return p, unsupported("pre-tokenizer with two ByteLevel steps")
		}
		p.byteLevel = true
		for _, after := range p.steps[i+1:] {
			switch after.(type) {
			case metaspace:
				return p, unsupported("pre-tokenizer Metaspace after ByteLevel")
			}
		}
		if i < len(p.steps)-1 {
			bl.mapOut, p.mapped = true, true
		}
	}
	return p, nil
}

func (p *preTokenizer) add(c *component) error {
	if c == nil {
		return nil
	}
	var st preStep
	var err error
	switch c.Type {
	case "Sequence":
		return c.each("pretokenizers", p.add)
	case "Split":
		st, err = parseSplit(c)
	case "ByteLevel":
		b := &byteLevelStep{useRegex: true}
		if err = c.required("add_prefix_space", &b.addPrefixSpace); err == nil {
			var trim bool
			if err = c.required("trim_offsets", &trim); err == nil {
				err = c.optional("use_regex", &b.useRegex)
			}
		}
		st = b
	case "Metaspace":
		st, err = parseMetaspace(c)
	case "Whitespace":
		st = whitespaceStep{}
	case "WhitespaceSplit":
		st = charSplit{n: "WhitespaceSplit", is: isWhitespace, behavior: splitRemoved}
	case "BertPreTokenizer":
		st = bertPreStep{}
	case "Punctuation":
		var b uint8
		b, err = c.behavior("behavior", splitIsolated, false)
		st = charSplit{n: "Punctuation", is: isBertPunct, behavior: b}
	case "Digits":
		var individual bool
		err = c.required("individual_digits", &individual)
		b := splitContiguous
		if individual {
			b = splitIsolated
		}
		st = charSplit{n: fmt.Sprintf("Digits(individual %v)", individual), is: isNumeric, behavior: b}
	case "UnicodeScripts":
		st = unicodeScriptsStep{}
	case "FixedLength":
		n := uint(5)
		if err = c.optional("length", &n); err == nil && n == 0 {
			err = c.errorf("length must be at least 1")
		}
		st = fixedLengthStep{int(n)}
	case "CharDelimiterSplit":
		var d rune
		d, err = c.char("delimiter", -1)
		st = charSplit{n: fmt.Sprintf("CharDelimiterSplit(%q)", d), is: func(r rune) bool { return r == d }, behavior: splitRemoved}
	default:
		return unsupported("pre-tokenizer %s", c.name())
	}
	if err != nil {
		return err
	}
	p.steps = append(p.steps, st)
	return nil
}

func isNumeric(r rune) bool { return class(r)&cN != 0 }

// isBertPunct is BERT's punctuation: ASCII punctuation or Unicode 8.0's P.
func isBertPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '!' && r <= '/' || r >= ':' && r <= '@' || r >= '[' && r <= '`' || r >= '{' && r <= '~'
	}
	return class2(r)&c2Punct8 != 0
}

// Split behaviors of the reference (SplitDelimiterBehavior).
const (
	splitRemoved uint8 = iota
	splitIsolated
	splitMergedWithPrevious
	splitMergedWithNext
	splitContiguous
)

var splitBehaviors = map[string]uint8{
	"Removed": splitRemoved, "Isolated": splitIsolated, "MergedWithPrevious": splitMergedWithPrevious,
	"MergedWithNext": splitMergedWithNext, "Contiguous": splitContiguous,
}

var behaviorNames = [...]string{"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"}

// spanSink applies a split behavior to the spans of a string (matches and the text between
// them, in order, covering it) and emits the resulting pieces, as NormalizedString::split.
type spanSink struct {
	s        string
	behavior uint8
	invert   bool
	first    int
	emit     func(string, int)

	pend      [2]int
	hasPend   bool
	prevMatch bool
}

func (k *spanSink) out(start, end int) {
	if end > start {
		k.emit(k.s[start:end], headAt(k.first, start))
	}
}

func (k *spanSink) add(start, end int, match bool) {
	match = match != k.invert
	switch k.behavior {
	case splitIsolated:
		k.out(start, end)
	case splitRemoved:
		if !match {
			k.out(start, end)
		}
	case splitContiguous:
		if k.hasPend && match == k.prevMatch {
			k.pend[1] = end
		} else {
			k.flush()
			k.pend, k.hasPend = [2]int{start, end}, true
		}
	case splitMergedWithPrevious:
		if k.hasPend && match && !k.prevMatch {
			k.pend[1] = end
		} else {
			k.flush()
			k.pend, k.hasPend = [2]int{start, end}, true
		}
	case splitMergedWithNext:
		if k.hasPend && k.prevMatch && !match {
			k.pend[1] = end
			k.flush()
		} else {
			k.flush()
			k.pend, k.hasPend = [2]int{start, end}, true
		}
	}
	k.prevMatch = match
}

func (k *spanSink) flush() {
	if k.hasPend {
		k.out(k.pend[0], k.pend[1])
		k.hasPend = false
	}
}

// splitStep is the Split pre-tokenizer: a regex or a literal string, any behavior, invert.
type splitStep struct {
	re       *pattern
	literal  string
	behavior uint8
	invert   bool
}

func parseSplit(c *component) (*splitStep, error) {
	st := &splitStep{}
	pat, isRegex, err := c.pattern()
	if err != nil {
		return nil, err
	}
	if st.behavior, err = c.behavior("behavior", 0, true); err != nil {
		return nil, err
	}
	if err := c.required("invert", &st.invert); err != nil {
		return nil, err
	}
	if !isRegex {
		if pat == "" {
			return nil, unsupported("pre-tokenizer Split on an empty string")
		}
		st.literal = pat
		return st, nil
	}
	if st.re, err = compilePattern(pat); err != nil {
		return nil, unsupported("pre-tokenizer Split: %v", err)
	}
	return st, nil
}

func (st *splitStep) name() string {
	pat := fmt.Sprintf("%q", st.literal)
	if st.re != nil {
		pat = fmt.Sprintf("regex %q", st.re.src)
	}
	return fmt.Sprintf("Split(%s, %s, invert %v)", pat, behaviorNames[st.behavior], st.invert)
}

func (st *splitStep) split(s string, first int, emit func(string, int)) {
	if st.re != nil && st.behavior == splitIsolated {
		// The common case (every byte-level regex): no state between spans.
		gap := 0
		st.matches(s, func(start, end int) {
			if gap < start {
				emit(s[gap:start], headAt(first, gap))
			}
			if end > start {
				emit(s[start:end], headAt(first, start))
			}
			gap = end
		})
		if gap < len(s) {
			emit(s[gap:], headAt(first, gap))
		}
		return
	}
	k := &spanSink{s: s, behavior: st.behavior, invert: st.invert, first: first, emit: emit}
	gap := 0
	st.matches(s, func(start, end int) {
		if gap < start {
			k.add(gap, start, false)
		}
		k.add(start, end, true)
		gap = end
	})
	if gap < len(s) {
		k.add(gap, len(s), false)
	}
	k.flush()
}

func (st *splitStep) matches(s string, f func(start, end int)) {
	if st.re != nil {
		if st.re.match == nil {
			return
		}
		st.re.findAll(s, f)
		return
	}
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], st.literal)
		if j < 0 {
			return
		}
		f(i+j, i+j+len(st.literal))
		i += j + len(st.literal)
	}
}

// charSplit splits on every character is accepts, each one a match of its own (the
// reference's Pattern for a char predicate), with the given behavior.
type charSplit struct {
	n        string
	is       func(rune) bool
	behavior uint8
}

func (c charSplit) name() string { return c.n }

func (c charSplit) split(s string, first int, emit func(string, int)) {
	k := &spanSink{s: s, behavior: c.behavior, first: first, emit: emit}
	gap := 0
	for i := 0; i < len(s); {
		r, w := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		if c.is(r) {
			if gap < i {
				k.add(gap, i, false)
			}
			k.add(i, i+w, true)
			gap = i + w
		}
		i += w
	}
	if gap < len(s) {
		k.add(gap, len(s), false)
	}
	k.flush()
}

// whitespaceStep is the Whitespace pre-tokenizer, the regex \w+|[^\w\s]+ keeping its matches:
// runs of word characters and runs of other non-space characters.
type whitespaceStep struct{}

func (whitespaceStep) name() string { return "Whitespace" }

func (whitespaceStep) split(s string, first int, emit func(string, int)) {
	start, kind := -1, 0 // kind of the open run: 1 word, 2 other
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		k := 2
		if isWordChar(r) {
			k = 1
		} else if isWhitespace(r) {
			k = 0
		}
		if k != kind && start >= 0 {
			emit(s[start:i], headAt(first, start))
			start = -1
		}
		if k != 0 && start < 0 {
			start = i
		}
		kind = k
		i += w
	}
	if start >= 0 {
		emit(s[start:], headAt(first, start))
	}
}

// bertPreStep is BertPreTokenizer: split on whitespace (removed), then on each punctuation
// character (isolated).
type bertPreStep struct{}

func (bertPreStep) name() string { return "BertPreTokenizer" }

func (bertPreStep) split(s string, first int, emit func(string, int)) {
	start := -1
	for i := 0; i <= len(s); {
		r, w := rune(' '), 1
		if i < len(s) {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case isWhitespace(r) || i == len(s):
			if start >= 0 {
				emit(s[start:i], headAt(first, start))
				start = -1
			}
		case isBertPunct(r):
			if start >= 0 {
				emit(s[start:i], headAt(first, start))
				start = -1
			}
			emit(s[i:i+w], headAt(first, i))
		default:
			if start < 0 {
				start = i
			}
		}
		i += w
	}
}

// byteLevelStep is the ByteLevel pre-tokenizer: with add_prefix_space a space goes before each
// piece not starting with one; with use_regex (the default) pieces are cut by GPT-2's regex;
// the characters become GPT-2's byte-level alphabet (done by the model, or here when mapOut).
type byteLevelStep struct {
	addPrefixSpace, useRegex bool
	mapOut                   bool
}

func (b *byteLevelStep) name() string {
	return fmt.Sprintf("ByteLevel(add_prefix_space %v, use_regex %v)", b.addPrefixSpace, b.useRegex)
}

func (b *byteLevelStep) split(s string, first int, emit func(string, int)) {
	if b.addPrefixSpace && !strings.HasPrefix(s, " ") {
		s = " " + s
		if first > 0 {
			first++ // the space takes the first character's offsets
		}
	}
	out := emit
	if b.mapOut {
		out = func(p string, f int) { emit(string(byteLevelString(nil, p)), f) }
	}
	if !b.useRegex {
		out(s, first)
		return
	}
	gap := 0
	for i := 0; i < len(s); {
		if e := matchGPT2(s, i); e > i {
			if gap < i {
				out(s[gap:i], headAt(first, gap))
			}
			out(s[i:e], headAt(first, i))
			i, gap = e, e
			continue
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	if gap < len(s) {
		out(s[gap:], headAt(first, gap))
	}
}

// Metaspace prepend schemes.
const (
	prependAlways uint8 = iota
	prependFirst
	prependNever
)

// metaspace is the Metaspace pre-tokenizer: spaces become the replacement character, which
// is prepended as the scheme says (unless the text already starts with it) and, with split,
// starts every piece.
type metaspace struct {
	replacement string
	scheme      uint8
	splits      bool
}

func (m metaspace) name() string {
	return fmt.Sprintf("Metaspace(%q, prepend %s, split %v)", m.replacement, [...]string{"always", "first", "never"}[m.scheme], m.splits)
}

func (m metaspace) split(s string, first int, emit func(string, int)) {
	if first > 0 {
		first += strings.Count(s[:min(first, len(s))], " ") * (len(m.replacement) - 1)
	}
	s = strings.ReplaceAll(s, " ", m.replacement)
	if s != "" && !strings.HasPrefix(s, m.replacement) &&
		(m.scheme == prependAlways || m.scheme == prependFirst && first > 0) {
		s = m.replacement + s
		if first > 0 {
			first += len(m.replacement) // it takes the first character's offsets
		}
	}
	if !m.splits {
		if s != "" {
			emit(s, first)
		}
		return
	}
	k := &spanSink{s: s, behavior: splitMergedWithNext, first: first, emit: emit}
	gap := 0
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], m.replacement)
		if j < 0 {
			break
		}
		if i+j > gap {
			k.add(gap, i+j, false)
		}
		k.add(i+j, i+j+len(m.replacement), true)
		i = i + j + len(m.replacement)
		gap = i
	}
	if gap < len(s) {
		k.add(gap, len(s), false)
	}
	k.flush()
}

// parseMetaspace reads a Metaspace pre-tokenizer or decoder: prepend_scheme defaults to
// "always", split to true; add_prefix_space false (older files) means "never", and refuses a
// scheme other than never.
func parseMetaspace(c *component) (metaspace, error) {
	m := metaspace{scheme: prependAlways, splits: true}
	r, err := c.char("replacement", -1)
	if err != nil {
		return m, err
	}
	m.replacement = string(r)
	if _, err := c.nullable("split", &m.splits); err != nil {
		return m, err
	}
	var scheme string
	if ok, err := c.get("prepend_scheme", &scheme, false); err != nil {
		return m, err
	} else if ok {
		switch scheme {
		case "always":
		case "first":
			m.scheme = prependFirst
		case "never":
			m.scheme = prependNever
		default:
			return m, c.errorf("unknown prepend_scheme %q", scheme)
		}
	}
	var aps *bool
	if _, err := c.nullable("add_prefix_space", &aps); err != nil {
		return m, err
	}
	if aps != nil && !*aps {
		if m.scheme != prependNever && scheme != "" {
			return m, c.errorf("add_prefix_space does not match declared prepend_scheme")
		}
		m.scheme = prependNever
	}
	return m, nil
}
