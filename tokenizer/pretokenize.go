package tokenizer

import (
	"strings"
)

// preTokenizer cuts a normalized stretch of text into the pieces BPE merges within. first
// tells whether the stretch starts the input text (Metaspace's prepend_scheme "first").
type preTokenizer interface {
	split(s string, first bool, emit func(string))
}

// wholePiece is the absent pre-tokenizer: the stretch is one piece.
type wholePiece struct{}

func (wholePiece) split(s string, _ bool, emit func(string)) {
	if s != "" {
		emit(s)
	}
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

// literalSplit is a Split pre-tokenizer on a literal string (Gemma's Split(" ")).
type literalSplit struct {
	pattern  string
	behavior uint8
}

func (l literalSplit) split(s string, _ bool, emit func(string)) {
	splitOn(s, l.pattern, l.behavior, emit)
}

// splitOn cuts s at the occurrences of pat and emits the non-empty pieces as the reference's
// NormalizedString::split does with the given behavior.
func splitOn(s, pat string, behavior uint8, emit func(string)) {
	type span struct {
		start, end int
		match      bool
	}
	var spans []span
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], pat)
		if j < 0 {
			spans = append(spans, span{i, len(s), false})
			break
		}
		if j > 0 {
			spans = append(spans, span{i, i + j, false})
		}
		spans = append(spans, span{i + j, i + j + len(pat), true})
		i += j + len(pat)
	}
	var out []span
	switch behavior {
	case splitRemoved:
		for _, sp := range spans {
			if !sp.match {
				out = append(out, sp)
			}
		}
	case splitIsolated:
		out = spans
	case splitMergedWithPrevious:
		prevMatch := false
		for _, sp := range spans {
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
	case splitMergedWithNext:
		prevMatch := false // the span to the right was a match
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].start = sp.start
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	case splitContiguous:
		prevMatch := false
		for _, sp := range spans {
			if sp.match == prevMatch && len(out) > 0 {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
	}
	for _, sp := range out {
		if sp.end > sp.start {
			emit(s[sp.start:sp.end])
		}
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

func (m metaspace) split(s string, first bool, emit func(string)) {
	s = strings.ReplaceAll(s, " ", m.replacement)
	if s != "" && !strings.HasPrefix(s, m.replacement) &&
		(m.scheme == prependAlways || m.scheme == prependFirst && first) {
		s = m.replacement + s
	}
	if !m.splits {
		wholePiece{}.split(s, first, emit)
		return
	}
	splitOn(s, m.replacement, splitMergedWithNext, emit)
}

// parseMetaspace reads a Metaspace pre-tokenizer or decoder: prepend_scheme defaults to
// "always" (older files say add_prefix_space instead), split to true.
func parseMetaspace(c *component) (metaspace, error) {
	m := metaspace{replacement: c.Replacement, scheme: prependAlways, splits: true}
	if c.Split != nil {
		m.splits = *c.Split
	}
	if c.PrependScheme != nil {
		switch *c.PrependScheme {
		case "always":
		case "first":
			m.scheme = prependFirst
		case "never":
			m.scheme = prependNever
		default:
			return m, unsupported("Metaspace prepend_scheme %q", *c.PrependScheme)
		}
	} else if c.AddPrefixSpace != nil && !*c.AddPrefixSpace {
		m.scheme = prependNever
	}
	if len([]rune(m.replacement)) != 1 {
		return m, unsupported("Metaspace replacement %q (one character)", m.replacement)
	}
	return m, nil
}

// parseSPPreTokenizer accepts what SentencePiece-style files use: none (Llama 2, Phi-3),
// Metaspace, or a Split on a literal string (Gemma).
func parseSPPreTokenizer(c *component) (preTokenizer, error) {
	if c == nil {
		return wholePiece{}, nil
	}
	switch c.Type {
	case "Metaspace":
		return parseMetaspace(c)
	case "Split":
		if c.Pattern.String == nil || *c.Pattern.String == "" {
			return nil, unsupported("Split pre-tokenizer with a regex in a SentencePiece-style tokenizer")
		}
		b, ok := splitBehaviors[c.Behavior]
		if !ok || c.Invert {
			return nil, unsupported("Split pre-tokenizer behavior %s (invert %v)", c.Behavior, c.Invert)
		}
		return literalSplit{pattern: *c.Pattern.String, behavior: b}, nil
	}
	return nil, unsupported("pre-tokenizer %s in a SentencePiece-style tokenizer (only none, Metaspace and Split on a string)", c.name())
}
