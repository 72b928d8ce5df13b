package tokenizer

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	src  string
	pos  int
	fold bool // inside (?i:…)
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
	if len(alts) == 1 {
		return alts[0], nil
	}
	return func(s string, i int, k func(int) bool) bool {
		for _, a := range alts {
			if a(s, i, k) {
				return true
			}
		}
		return false
	}, nil
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
			set, lit, err := p.escape()
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
// else foldRune's.
func caseFold(dst []rune, r rune) []rune {
	if f, ok := fullFolds[r]; ok {
		return append(dst, f...)
	}
	return append(dst, foldRune(r))
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
		set, err := p.class()
		if err != nil {
			return nil, err
		}
		return charNode(set), nil
	case '.':
		p.pos++
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
		set, lit, err := p.escape()
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
	if p.fold {
		return charNode(func(r rune) bool { return foldEq(r, want) })
	}
	return charNode(func(r rune) bool { return r == want })
}

// foldEq is the case-insensitive comparison of (?i:…): simple case folding, with ſ folding
// to s as the reference's does.
func foldEq(a, b rune) bool {
	if a == b {
		return true
	}
	fa, fb := foldRune(a), foldRune(b)
	return fa == fb
}

func foldRune(r rune) rune {
	if r == 0x17F {
		return 's'
	}
	var b [8]byte
	l := toLower(b[:0], r)
	if x, n := utf8.DecodeRune(l); n == len(l) {
		return x
	}
	return r
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
	kind, fold := "", p.fold
	if strings.HasPrefix(p.src[p.pos:], "?") {
		switch {
		case strings.HasPrefix(p.src[p.pos:], "?:"):
			kind, p.pos = ":", p.pos+2
		case strings.HasPrefix(p.src[p.pos:], "?i:"):
			kind, p.pos, p.fold = ":", p.pos+3, true
		case strings.HasPrefix(p.src[p.pos:], "?="):
			kind, p.pos = "=", p.pos+2
		case strings.HasPrefix(p.src[p.pos:], "?!"):
			kind, p.pos = "!", p.pos+2
		default:
			return nil, fmt.Errorf("unsupported group %q", p.src[p.pos-1:min(len(p.src), p.pos+3)])
		}
	}
	n, err := p.alternation()
	p.fold = fold
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

// escape reads a backslash escape: a class (set) or a literal character.
func (p *reParser) escape() (func(rune) bool, rune, error) {
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
	case 'd':
		return isDecimal, 0, nil
	case 'D':
		return not(isDecimal), 0, nil
	case 'w':
		return isRegexWord, 0, nil
	case 'W':
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
		f, ok := propertyClass(name)
		if !ok {
			return nil, 0, fmt.Errorf("unsupported class \\p{%s}", name)
		}
		if c == 'P' {
			f = not(f)
		}
		return f, 0, nil
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

// class reads a bracket expression.
func (p *reParser) class() (func(rune) bool, error) {
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
			return nil, fmt.Errorf("missing ]")
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
					return nil, fmt.Errorf("unsupported POSIX class %s", rest[:end+4])
				}
			}
			sub, err := p.class()
			if err != nil {
				return nil, err
			}
			sets = append(sets, sub)
			continue
		case '\\':
			set, lit, err := p.escape()
			if err != nil {
				return nil, err
			}
			if set != nil {
				sets = append(sets, set)
				continue
			}
			lo = lit
		default:
			if strings.HasPrefix(p.src[p.pos:], "&&") {
				return nil, fmt.Errorf("unsupported class intersection &&")
			}
			r, w := utf8.DecodeRuneInString(p.src[p.pos:])
			p.pos += w
			lo = r
		}
		hi := lo
		if p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] != ']' {
			p.pos++
			if p.src[p.pos] == '\\' {
				set, lit, err := p.escape()
				if err != nil || set != nil {
					return nil, fmt.Errorf("bad range")
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
	fold := p.fold
	return func(r rune) bool {
		in := false
		for _, rg := range ranges {
			if r >= rg[0] && r <= rg[1] || fold && foldRune(r) >= foldRune(rg[0]) && foldRune(r) <= foldRune(rg[1]) {
				in = true
				break
			}
		}
		for _, f := range sets {
			if in {
				break
			}
			in = f(r)
		}
		return in != neg
	}, nil
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

func isDecimal(r rune) bool { return r >= '0' && r <= '9' || r >= utf8.RuneSelf && class2(r)&c2Nd != 0 }

// propertyClass is \p{name} for the classes the tables hold.
func propertyClass(name string) (func(rune) bool, bool) {
	bits := map[string]uint8{"L": cL, "Letter": cL, "N": cN, "Number": cN, "M": cM, "Mark": cM, "P": cP,
		"Punctuation": cP, "S": cS, "Symbol": cS, "Ll": cLl, "Lowercase_Letter": cLl}
	if b, ok := bits[name]; ok {
		return func(r rune) bool { return class(r)&b != 0 }, true
	}
	bits2 := map[string]uint16{"Lu": c2Lu, "Uppercase_Letter": c2Lu, "Lt": c2Lt, "Titlecase_Letter": c2Lt,
		"Lm": c2Lm, "Modifier_Letter": c2Lm, "Lo": c2Lo, "Other_Letter": c2Lo, "Nd": c2Nd, "Decimal_Number": c2Nd}
	if b, ok := bits2[name]; ok {
		return func(r rune) bool { return class2(r)&b != 0 }, true
	}
	return propRangesClass(name)
}

// gcAliases maps the short names of general categories, and the unions of categories, to the
// long names propRanges holds (Oniguruma's names, compared without case, spaces, "_" and "-").
var gcAliases = map[string][]string{
	"cc": {"control"}, "cf": {"format"}, "cn": {"unassigned"}, "co": {"privateuse"}, "cs": {"surrogate"},
	"lu": {"uppercaseletter"}, "ll": {"lowercaseletter"}, "lt": {"titlecaseletter"}, "lm": {"modifierletter"}, "lo": {"otherletter"},
	"mn": {"nonspacingmark"}, "mc": {"spacingmark"}, "me": {"enclosingmark"},
	"nd": {"decimalnumber"}, "nl": {"letternumber"}, "no": {"othernumber"},
	"pc": {"connectorpunctuation"}, "pd": {"dashpunctuation"}, "ps": {"openpunctuation"}, "pe": {"closepunctuation"},
	"pi": {"initialpunctuation"}, "pf": {"finalpunctuation"}, "po": {"otherpunctuation"},
	"sm": {"mathsymbol"}, "sc": {"currencysymbol"}, "sk": {"modifiersymbol"}, "so": {"othersymbol"},
	"zs": {"spaceseparator"}, "zl": {"lineseparator"}, "zp": {"paragraphseparator"},
	"c":  {"control", "format", "unassigned", "privateuse", "surrogate"},
	"l":  {"uppercaseletter", "lowercaseletter", "titlecaseletter", "modifierletter", "otherletter"},
	"lc": {"uppercaseletter", "lowercaseletter", "titlecaseletter"},
	"m":  {"nonspacingmark", "spacingmark", "enclosingmark"},
	"n":  {"decimalnumber", "letternumber", "othernumber"},
	"p":  {"connectorpunctuation", "dashpunctuation", "openpunctuation", "closepunctuation", "initialpunctuation", "finalpunctuation", "otherpunctuation"},
	"s":  {"mathsymbol", "currencysymbol", "modifiersymbol", "othersymbol"},
	"z":  {"spaceseparator", "lineseparator", "paragraphseparator"},
}

func init() {
	for short, long := range map[string]string{"other": "c", "letter": "l", "casedletter": "lc", "mark": "m", "combiningmark": "m",
		"number": "n", "punctuation": "p", "symbol": "s", "separator": "z"} {
		gcAliases[short] = gcAliases[long]
	}
}

// propRangesClass is \p{name} for a script, a general category or Alphabetic, from the
// Unicode 16.0 ranges of propRanges: the Unicode version of the reference's regex engine,
// which Go's unicode tables (15.0) are not.
func propRangesClass(name string) (func(rune) bool, bool) {
	key := strings.ToLower(strings.NewReplacer(" ", "", "_", "", "-", "").Replace(name))
	names := []string{key}
	if long, ok := gcAliases[key]; ok {
		names = long
	}
	var ranges [][2]int32
	for _, n := range names {
		flat, ok := propRanges[n]
		if !ok {
			return nil, false
		}
		for i := 0; i+1 < len(flat); i += 2 {
			ranges = append(ranges, [2]int32{flat[i], flat[i+1]})
		}
	}
	sort.Slice(ranges, func(i, j int) bool { return ranges[i][0] < ranges[j][0] })
	return func(r rune) bool {
		i := sort.Search(len(ranges), func(i int) bool { return ranges[i][0] > r })
		return i > 0 && r < ranges[i-1][1]
	}, true
}
