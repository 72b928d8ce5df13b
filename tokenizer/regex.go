package tokenizer

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// pattern is a regex of a Split pre-tokenizer or Replace normalizer: a hand-written matcher
// for the regexes real files use (split.go), else the small backtracking engine below, which
// follows the reference's engine (Oniguruma: leftmost match, alternatives in order, greedy
// quantifiers that backtrack, look-ahead) over the subset tokenizer files write.
type pattern struct {
	src      string
	match    matcher
	nonEmpty bool // a hand-written matcher: never matches empty, needs i < len(s)
}

// compilePattern compiles a regex as written in tokenizer.json.
func compilePattern(src string) (*pattern, error) {
	if m, ok := splitPatterns[src]; ok {
		return &pattern{src: src, match: m, nonEmpty: true}, nil
	}
	p := &reParser{src: src}
	n, err := p.alternation()
	if err == nil && p.pos < len(src) {
		err = fmt.Errorf("unexpected %q", src[p.pos:])
	}
	if err != nil {
		return nil, fmt.Errorf("regex %q: %v", src, err)
	}
	return &pattern{src: src, match: func(s string, i int) int {
		end := -1
		n(s, i, func(j int) bool { end = j; return true })
		return end
	}}, nil
}

// findAll calls f for each match, as the reference's find_iter: leftmost matches, searching
// on after each one; an empty match right where the previous match ended is passed over.
func (p *pattern) findAll(s string, f func(start, end int)) {
	lastEnd := -1
	limit := len(s)
	if p.nonEmpty {
		limit--
	}
	for from := 0; from <= len(s); {
		start, end := -1, -1
		for i := from; i <= limit; {
			if e := p.match(s, i); e >= 0 {
				start, end = i, e
				break
			}
			if i == len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
		if start < 0 {
			return
		}
		if start == end && end == lastEnd {
			if from == len(s) {
				return
			}
			_, w := utf8.DecodeRuneInString(s[from:])
			from += w
			continue
		}
		f(start, end)
		from, lastEnd = end, end
	}
}

// reNode matches at i and calls k with each end it can reach, best first, until k accepts.
type reNode func(s string, i int, k func(int) bool) bool

type reParser struct {
	src    string
	pos    int
	fold   bool // inside (?i:…), or after (?i)
	dotAll bool // (?m): in Oniguruma's Ruby syntax, "." matches a newline too
}

func (p *reParser) more() bool { return p.pos < len(p.src) }

func (p *reParser) alternation() (reNode, error) {
	var alts []reNode
	for {
		n, err := p.concat()
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
		if !p.more() || p.src[p.pos] != '|' {
			break
		}
		p.pos++
	}
	return anyOf(alts), nil
}

// anyOf matches the first of alts that matches (an alternation: Oniguruma tries them in
// order and takes the first whose continuation k succeeds).
func anyOf(alts []reNode) reNode {
	if len(alts) == 1 {
		return alts[0]
	}
	return func(s string, i int, k func(int) bool) bool {
		for _, a := range alts {
			if a(s, i, k) {
				return true
			}
		}
		return false
	}
}

func (p *reParser) concat() (reNode, error) {
	var seq []reNode
	for p.more() && p.src[p.pos] != '|' && p.src[p.pos] != ')' {
		if p.fold {
			if run := p.literalRun(); len(run) > 0 {
				seq = append(seq, foldString(run))
				continue
			}
		}
		n, err := p.quantified()
		if err != nil {
			return nil, err
		}
		seq = append(seq, n)
	}
	return seqNode(seq), nil
}

// literalRun reads the plain characters ahead that no quantifier follows: under (?i) they
// are one string, which Oniguruma matches with multi-character case folding ((?i:ss) matches
// "ß", (?i:ß) "SS").
func (p *reParser) literalRun() []rune {
	var run []rune
	for p.more() {
		start := p.pos
		r, w := utf8.DecodeRuneInString(p.src[p.pos:])
		if r == '\\' { // an escaped character (\u00df) belongs to the string too
			if p.pos+1 < len(p.src) && strings.IndexByte("AzZbB", p.src[p.pos+1]) >= 0 {
				break
			}
			set, lit, err := p.escape(false)
			w, p.pos = p.pos-start, start
			if err != nil || set != nil {
				break
			}
			r = lit
		} else if r < utf8.RuneSelf && strings.IndexByte(`()[]{}.^$|*+?`, byte(r)) >= 0 {
			break
		}
		if next := p.pos + w; next < len(p.src) && strings.IndexByte("*+?{", p.src[next]) >= 0 {
			break
		}
		run = append(run, r)
		p.pos += w
	}
	return run
}

// caseFold is the case folding of r: its full folding when that is more than one character,
// else its simple one.
func caseFold(dst []rune, r rune) []rune {
	if f, ok := fullFolds[r]; ok {
		return append(dst, f...)
	}
	return append(dst, simpleFold(r))
}

// foldString matches text whose characters' case foldings, end to end, are the run's.
func foldString(run []rune) reNode {
	var want []rune
	for _, r := range run {
		want = caseFold(want, r)
	}
	return func(s string, i int, k func(int) bool) bool {
		var buf [4]rune
		for q := 0; q < len(want); {
			if i >= len(s) {
				return false
			}
			r, w := utf8.DecodeRuneInString(s[i:])
			f := caseFold(buf[:0], r)
			if len(f) > len(want)-q || !slices.Equal(f, want[q:q+len(f)]) {
				return false
			}
			q, i = q+len(f), i+w
		}
		return k(i)
	}
}

func seqNode(seq []reNode) reNode {
	switch len(seq) {
	case 0:
		return func(s string, i int, k func(int) bool) bool { return k(i) }
	case 1:
		return seq[0]
	}
	first, rest := seq[0], seqNode(seq[1:])
	return func(s string, i int, k func(int) bool) bool {
		return first(s, i, func(j int) bool { return rest(s, j, k) })
	}
}

func (p *reParser) quantified() (reNode, error) {
	atom, err := p.atom()
	if err != nil {
		return nil, err
	}
	if !p.more() {
		return atom, nil
	}
	lo, hi := -1, -1
	interval, fixed := false, false
	switch p.src[p.pos] {
	case '*':
		lo, hi = 0, -1
		p.pos++
	case '+':
		lo, hi = 1, -1
		p.pos++
	case '?':
		lo, hi = 0, 1
		p.pos++
	case '{':
		end := strings.IndexByte(p.src[p.pos:], '}')
		if end < 0 {
			return atom, nil // a literal brace
		}
		body := p.src[p.pos+1 : p.pos+end]
		a, b, comma := strings.Cut(body, ",")
		if a == "" && comma && b != "" {
			a = "0" // {,n} is {0,n} in Oniguruma's Ruby syntax
		}
		x, err1 := strconv.Atoi(a)
		if err1 != nil {
			return atom, nil
		}
		interval, fixed = true, !comma
		lo, hi = x, x
		if comma {
			hi = -1
			if b != "" {
				if hi, err1 = strconv.Atoi(b); err1 != nil {
					return nil, fmt.Errorf("bad repetition {%s}", body)
				}
				if hi < lo { // Oniguruma reads it as a possessive {m,n}
					return nil, fmt.Errorf("unsupported repetition {%s} (upper bound below the lower)", body)
				}
			}
		}
		p.pos += end + 1
	default:
		return atom, nil
	}
	lazy := false
	if p.more() && p.src[p.pos] == '?' {
		if fixed { // Oniguruma's Ruby syntax: a{n}? is (?:a{n})?, not lazy
			p.pos++
			return repeatNode(repeatNode(atom, lo, hi, false), 0, 1, false), nil
		}
		lazy = true
		p.pos++
	} else if p.more() && p.src[p.pos] == '+' {
		if interval { // and a{n,m}+ is (?:a{n,m})+, not possessive
			p.pos++
			return repeatNode(repeatNode(atom, lo, hi, false), 1, -1, false), nil
		}
		return nil, fmt.Errorf("possessive quantifiers are not supported")
	}
	return repeatNode(atom, lo, hi, lazy), nil
}

func repeatNode(atom reNode, lo, hi int, lazy bool) reNode {
	var rep func(s string, i, n int, k func(int) bool) bool
	rep = func(s string, i, n int, k func(int) bool) bool {
		if n < lo {
			return atom(s, i, func(j int) bool { return rep(s, j, n+1, k) })
		}
		more := func() bool {
			if hi >= 0 && n >= hi {
				return false
			}
			return atom(s, i, func(j int) bool { return j > i && rep(s, j, n+1, k) })
		}
		if lazy {
			return k(i) || more()
		}
		return more() || k(i)
	}
	return func(s string, i int, k func(int) bool) bool { return rep(s, i, 0, k) }
}

func (p *reParser) atom() (reNode, error) {
	c := p.src[p.pos]
	switch c {
	case '(':
		return p.group()
	case '[':
		set, multi, err := p.class()
		if err != nil {
			return nil, err
		}
		if len(multi) == 0 {
			return charNode(set), nil
		}
		alts := []reNode{charNode(set)}
		for _, m := range multi {
			alts = append(alts, foldString(m))
		}
		return anyOf(alts), nil
	case '.':
		p.pos++
		if p.dotAll {
			return charNode(func(r rune) bool { return true }), nil
		}
		return charNode(func(r rune) bool { return r != '\n' }), nil
	case '^':
		p.pos++
		return func(s string, i int, k func(int) bool) bool {
			return (i == 0 || s[i-1] == '\n') && k(i)
		}, nil
	case '$':
		p.pos++
		return func(s string, i int, k func(int) bool) bool {
			return (i == len(s) || s[i] == '\n') && k(i)
		}, nil
	case '\\':
		if a := p.anchor(); a != nil {
			return a, nil
		}
		set, lit, err := p.escape(false)
		if err != nil {
			return nil, err
		}
		if set != nil {
			return charNode(set), nil
		}
		return p.literal(lit), nil
	case '*', '+', '?', ')':
		return nil, fmt.Errorf("unexpected %q", c)
	}
	r, w := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += w
	return p.literal(r), nil
}

func (p *reParser) literal(want rune) reNode {
	if p.fold { // a whole character's folding: (?i)ß+ matches "ssss"
		return foldString([]rune{want})
	}
	return charNode(func(r rune) bool { return r == want })
}

// simpleFold is r's simple case folding (CaseFolding C and S, Unicode 16.0): K and k fold to
// k, ſ to s, ẞ to ß.
func simpleFold(r rune) rune {
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	i := sort.Search(len(simpleFolds), func(i int) bool { return simpleFolds[i][0] >= r })
	if i < len(simpleFolds) && simpleFolds[i][0] == r {
		return simpleFolds[i][1]
	}
	return r
}

var (
	orbitsOnce sync.Once
	orbits     map[rune][]rune // a simple folding → the characters that fold to it, itself first
)

// foldOrbit returns the characters whose simple case folding is r's, r among them.
func foldOrbit(r rune) []rune {
	orbitsOnce.Do(func() {
		orbits = map[rune][]rune{}
		for _, p := range simpleFolds {
			if orbits[p[1]] == nil {
				orbits[p[1]] = []rune{p[1]}
			}
			orbits[p[1]] = append(orbits[p[1]], p[0])
		}
	})
	if o, ok := orbits[simpleFold(r)]; ok {
		return o
	}
	return nil
}

func charNode(set func(rune) bool) reNode {
	return func(s string, i int, k func(int) bool) bool {
		if i >= len(s) {
			return false
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		return set(r) && k(i+w)
	}
}

func (p *reParser) group() (reNode, error) {
	p.pos++ // (
	kind, fold, dotAll := "", p.fold, p.dotAll
	defer func() { p.fold, p.dotAll = fold, dotAll }()
	if strings.HasPrefix(p.src[p.pos:], "?") {
		switch {
		case strings.HasPrefix(p.src[p.pos:], "?:"):
			kind, p.pos = ":", p.pos+2
		case strings.HasPrefix(p.src[p.pos:], "?="):
			kind, p.pos = "=", p.pos+2
		case strings.HasPrefix(p.src[p.pos:], "?!"):
			kind, p.pos = "!", p.pos+2
		default:
			k, err := p.options()
			if err != nil {
				return nil, err
			}
			if k == ")" {
				// (?i) applies to the rest of the enclosing group, alternatives included, as
				// Oniguruma reads it: a(?i)b|c is a(?i:b|c).
				return p.alternation()
			}
			kind = k
		}
	}
	n, err := p.alternation()
	if err != nil {
		return nil, err
	}
	if !p.more() || p.src[p.pos] != ')' {
		return nil, fmt.Errorf("missing )")
	}
	p.pos++
	switch kind {
	case "=":
		return func(s string, i int, k func(int) bool) bool {
			return n(s, i, func(int) bool { return true }) && k(i)
		}, nil
	case "!":
		return func(s string, i int, k func(int) bool) bool {
			return !n(s, i, func(int) bool { return true }) && k(i)
		}, nil
	}
	return n, nil
}

// options reads the options of a group after its "(": ?i, ?m, ?-i and so on, then ":" (a
// group with them: returns ":") or ")" (they hold to the end of the enclosing group: returns
// ")"). Options other than i (ignore case) and m (Ruby's: "." matches a newline) are refused.
func (p *reParser) options() (string, error) {
	start := p.pos - 1
	on := true
	for p.pos++; p.more(); p.pos++ {
		switch c := p.src[p.pos]; c {
		case 'i':
			p.fold = on
		case 'm':
			p.dotAll = on
		case '-':
			if !on {
				return "", fmt.Errorf("unsupported group %q", p.src[start:p.pos+1])
			}
			on = false
		case ':', ')':
			if p.pos == start+2 {
				return "", fmt.Errorf("unsupported group %q", p.src[start:p.pos+1])
			}
			p.pos++
			if c == ')' {
				return ")", nil
			}
			return ":", nil
		default:
			return "", fmt.Errorf("unsupported group %q", p.src[start:min(len(p.src), max(start+4, p.pos+1))])
		}
	}
	return "", fmt.Errorf("missing )")
}

// anchor reads \A (start of the text), \z (its end), \Z (its end or before a final
// newline), \b and \B (at and not at a boundary of \w characters), as Oniguruma reads them
// outside a bracket expression; nil if the escape is none of them.
func (p *reParser) anchor() reNode {
	if p.pos+1 >= len(p.src) {
		return nil
	}
	var at func(s string, i int) bool
	switch p.src[p.pos+1] {
	case 'A':
		at = func(s string, i int) bool { return i == 0 }
	case 'z':
		at = func(s string, i int) bool { return i == len(s) }
	case 'Z':
		at = func(s string, i int) bool { return i == len(s) || i == len(s)-1 && s[i] == '\n' }
	case 'b':
		at = wordBoundary
	case 'B':
		at = func(s string, i int) bool { return !wordBoundary(s, i) }
	default:
		return nil
	}
	p.pos += 2
	return func(s string, i int, k func(int) bool) bool { return at(s, i) && k(i) }
}

// wordBoundary reports whether exactly one of the characters either side of i is a \w.
func wordBoundary(s string, i int) bool {
	before, after := false, false
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		before = isRegexWord(r)
	}
	if i < len(s) {
		r, _ := utf8.DecodeRuneInString(s[i:])
		after = isRegexWord(r)
	}
	return before != after
}

// escape reads a backslash escape: a class (set) or a literal character. bracket says whether
// it stands in a bracket expression, where Oniguruma reads \b as a backspace and \w and the
// POSIX \p{…} names from their Unicode sets alone (outside, from its Latin-1 table below U+0100).
func (p *reParser) escape(bracket bool) (func(rune) bool, rune, error) {
	p.pos++
	if !p.more() {
		return nil, 0, fmt.Errorf("trailing backslash")
	}
	c := p.src[p.pos]
	p.pos++
	not := func(f func(rune) bool) func(rune) bool { return func(r rune) bool { return !f(r) } }
	switch c {
	case 's':
		return isWhitespace, 0, nil
	case 'S':
		return not(isWhitespace), 0, nil
	case 'h': // Ruby syntax: a hexadecimal digit
		return isHexDigit, 0, nil
	case 'H':
		return not(isHexDigit), 0, nil
	case 'd':
		return isDecimal, 0, nil
	case 'D':
		return not(isDecimal), 0, nil
	case 'w':
		if bracket {
			return isUnicodeWord, 0, nil
		}
		return isRegexWord, 0, nil
	case 'W':
		if bracket {
			return not(isUnicodeWord), 0, nil
		}
		return not(isRegexWord), 0, nil
	case 'p', 'P':
		name := ""
		if p.more() && p.src[p.pos] == '{' {
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return nil, 0, fmt.Errorf("unterminated \\p{")
			}
			name, p.pos = p.src[p.pos+1:p.pos+end], p.pos+end+1
		} else if p.more() {
			name, p.pos = p.src[p.pos:p.pos+1], p.pos+1
		}
		f, ok := propertyClass(name, bracket)
		if !ok {
			return nil, 0, fmt.Errorf("unsupported class \\p{%s}", name)
		}
		if c == 'P' {
			f = not(f)
		}
		return f, 0, nil
	case 'b':
		if bracket {
			return nil, '\b', nil
		}
	case 'n':
		return nil, '\n', nil
	case 'r':
		return nil, '\r', nil
	case 't':
		return nil, '\t', nil
	case 'f':
		return nil, '\f', nil
	case 'v':
		return nil, '\v', nil
	case 'x', 'u':
		n := 2
		if c == 'u' {
			n = 4
		}
		hex := p.src[p.pos:min(len(p.src), p.pos+n)]
		if strings.HasPrefix(hex, "{") {
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return nil, 0, fmt.Errorf("bad \\%c escape", c)
			}
			hex, n = p.src[p.pos+1:p.pos+end], end+1
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return nil, 0, fmt.Errorf("bad \\%c escape", c)
		}
		p.pos += n
		return nil, rune(v), nil
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return nil, 0, fmt.Errorf("unsupported escape \\%c", c)
	}
	r, w := utf8.DecodeRuneInString(p.src[p.pos-1:])
	p.pos += w - 1
	return nil, r, nil
}

// class reads a bracket expression: the characters it matches, and under (?i) the strings
// it matches too (multi).
func (p *reParser) class() (set func(rune) bool, multi [][]rune, err error) {
	p.pos++ // [
	neg := false
	if p.more() && p.src[p.pos] == '^' {
		neg = true
		p.pos++
	}
	var sets []func(rune) bool
	var ranges [][2]rune
	first := true
	for {
		if !p.more() {
			return nil, nil, fmt.Errorf("missing ]")
		}
		c := p.src[p.pos]
		if c == ']' && !first {
			p.pos++
			break
		}
		first = false
		var lo rune
		switch c {
		case '[':
			// Oniguruma reads [:alpha:] in a bracket expression as a POSIX class (its own
			// Unicode sets) and && as an intersection; read as plain characters they would
			// match other text, so they are refused.
			if rest := p.src[p.pos:]; strings.HasPrefix(rest, "[:") {
				if end := strings.Index(rest[2:], ":]"); end >= 0 {
					return nil, nil, fmt.Errorf("unsupported POSIX class %s", rest[:end+4])
				}
			}
			sub, _, err := p.class()
			if err != nil {
				return nil, nil, err
			}
			sets = append(sets, sub)
			continue
		case '\\':
			set, lit, err := p.escape(true)
			if err != nil {
				return nil, nil, err
			}
			if set != nil {
				sets = append(sets, set)
				continue
			}
			lo = lit
		default:
			if strings.HasPrefix(p.src[p.pos:], "&&") {
				return nil, nil, fmt.Errorf("unsupported class intersection &&")
			}
			r, w := utf8.DecodeRuneInString(p.src[p.pos:])
			p.pos += w
			lo = r
		}
		hi := lo
		if p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] != ']' {
			p.pos++
			if p.src[p.pos] == '\\' {
				set, lit, err := p.escape(true)
				if err != nil || set != nil {
					return nil, nil, fmt.Errorf("bad range")
				}
				hi = lit
			} else {
				r, w := utf8.DecodeRuneInString(p.src[p.pos:])
				p.pos += w
				hi = r
			}
		}
		ranges = append(ranges, [2]rune{lo, hi})
	}
	in := func(r rune) bool {
		for _, rg := range ranges {
			if r >= rg[0] && r <= rg[1] {
				return true
			}
		}
		for _, f := range sets {
			if f(r) {
				return true
			}
		}
		return false
	}
	if !p.fold {
		return func(r rune) bool { return in(r) != neg }, nil, nil
	}
	// Under (?i) the class holds the case variants of what it holds (K and k for [k]), and,
	// unless negated, also matches the full foldings of the characters it holds as strings
	// (after a character of its own: (?i)[ß] matches "ss", (?i)[ßs] "s" first).
	folded := func(r rune) bool {
		if in(r) {
			return true
		}
		for _, o := range foldOrbit(r) {
			if o != r && in(o) {
				return true
			}
		}
		return false
	}
	multi = nil
	if !neg {
		for _, c := range fullFoldChars() {
			if folded(c) {
				f := fullFolds[c]
				if !slices.ContainsFunc(multi, func(m []rune) bool { return slices.Equal(m, f) }) {
					multi = append(multi, f)
				}
			}
		}
	}
	return func(r rune) bool { return folded(r) != neg }, multi, nil
}

// isRegexWord is \w of the reference's regex engine (Oniguruma), not of its added-token
// matching (isWordChar): without Join_Control (U+200C, U+200D), and with the Latin-1 digits
// and fractions ², ³, ¹, ¼, ½, ¾ (No), which its table below U+0100 counts as word characters.
func isRegexWord(r rune) bool {
	switch r {
	case 0xB2, 0xB3, 0xB9, 0xBC, 0xBD, 0xBE:
		return true
	case 0x200C, 0x200D:
		return false
	}
	return isWordChar(r)
}

// isUnicodeWord is Oniguruma's Unicode \w set (Alphabetic, M, Nd, Pc), as a bracket
// expression reads it: without the Latin-1 No characters isRegexWord adds.
func isUnicodeWord(r rune) bool { return r != 0x200C && r != 0x200D && isWordChar(r) }

func isHexDigit(r rune) bool { return r >= '0' && r <= '9' || r|0x20 >= 'a' && r|0x20 <= 'f' }

func isDecimal(r rune) bool { return r >= '0' && r <= '9' || r >= utf8.RuneSelf && class2(r)&c2Nd != 0 }

// propertyClass is \p{name} (\p{^name} negated) for every name Oniguruma takes: general
// categories and their unions, scripts, binary properties, POSIX bracket names and blocks
// (In_…), compared as it compares names (without case, spaces, "_" and "-"), with the code
// points of Unicode 16.0, its version. bracket says whether the class stands in a bracket
// expression: outside one, \p{Word} is \w, with Latin-1 characters its Unicode set lacks.
func propertyClass(name string, bracket bool) (func(rune) bool, bool) {
	neg := strings.HasPrefix(name, "^")
	if neg {
		name = name[1:]
	}
	key := strings.ToLower(strings.NewReplacer(" ", "", "_", "", "-", "").Replace(name))
	f := tableClass(key)
	if f == nil {
		i, ok := slices.BinarySearch(propKeys[:], key)
		if !ok {
			return nil, false
		}
		set := int(propSetOf[i])
		f = rangesClass(decodePropSet(propSets[set]))
		if set == wordSet && !bracket { // ² ³ ¹ ¼ ½ ¾ from the Latin-1 table, as \w
			f = func(r rune) bool { return isRegexWord(r) }
		}
	}
	if neg {
		g := f
		f = func(r rune) bool { return !g(r) }
	}
	return f, true
}

// tableClass is \p{key} for the general categories the class tables hold, nil for others.
func tableClass(key string) func(rune) bool {
	bits := map[string]uint8{"l": cL, "letter": cL, "n": cN, "number": cN, "m": cM, "mark": cM, "combiningmark": cM,
		"p": cP, "punct": cP, "punctuation": cP, "s": cS, "symbol": cS, "ll": cLl, "lowercaseletter": cLl}
	if b, ok := bits[key]; ok {
		return func(r rune) bool { return class(r)&b != 0 }
	}
	bits2 := map[string]uint16{"lu": c2Lu, "uppercaseletter": c2Lu, "lt": c2Lt, "titlecaseletter": c2Lt,
		"lm": c2Lm, "modifierletter": c2Lm, "lo": c2Lo, "otherletter": c2Lo, "nd": c2Nd, "decimalnumber": c2Nd}
	if b, ok := bits2[key]; ok {
		return func(r rune) bool { return class2(r)&b != 0 }
	}
	return nil
}

// decodePropSet reads a propSets entry: the gap before each run and its length, alternately,
// in setDigits.
func decodePropSet(enc string) [][2]int32 {
	var ranges [][2]int32
	var nums [2]int32
	last, n, v, shift := int32(0), 0, int32(0), 0
	for i := 0; i < len(enc); i++ {
		d := int32(strings.IndexByte(setDigits, enc[i]))
		v |= (d & 31) << shift
		if d >= 32 {
			shift += 5
			continue
		}
		nums[n], n, v, shift = v, n+1, 0, 0
		if n == 2 {
			start := last + nums[0]
			last = start + nums[1]
			ranges = append(ranges, [2]int32{start, last})
			n = 0
		}
	}
	return ranges
}

// setDigits are the digits of propSets' numbers (tools/tokref/unicode.js writes them).
const setDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// rangesClass reports whether r is in one of the sorted [start, end) ranges.
func rangesClass(ranges [][2]int32) func(rune) bool {
	return func(r rune) bool {
		i := sort.Search(len(ranges), func(i int) bool { return ranges[i][0] > r })
		return i > 0 && r < ranges[i-1][1]
	}
}

var (
	fullFoldOnce sync.Once
	fullFoldList []rune
)

// fullFoldChars lists the characters with a multi-character case folding, in order.
func fullFoldChars() []rune {
	fullFoldOnce.Do(func() {
		for c := range fullFolds {
			fullFoldList = append(fullFoldList, c)
		}
		slices.Sort(fullFoldList)
	})
	return fullFoldList
}
