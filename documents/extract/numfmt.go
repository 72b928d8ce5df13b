package extract

import (
	"math"
	"strconv"
	"strings"
)

// numFormat is a spreadsheet number format code (ECMA-376 Part 1, 18.8.31) parsed for
// writing a cell's number as Excel shows it: up to three sections for numbers (positive;
// negative; zero, or the sections two conditions such as [>=100] choose) and one for text
// ("@"). Colours ([Red]) and locale tags ([$-409]) are dropped, a currency tag ([$€-407])
// writes its symbol, and _x (the width of x) and *x (x repeated to fill the column) write
// one space.
type numFormat struct {
	sections []numSection
	text     *numSection // the text section, nil for none
	cond     bool        // a number section has a condition
}

// numSection is one section of a format code: its condition, its tokens, and what they
// show.
type numSection struct {
	op   string // the condition's operator ("" none, "<", "<=", "=", "<>", ">=", ">")
	val  float64
	toks []numToken
	// date is what of a date the section shows (xlsxNumber: a number); general that it
	// holds General; percent, scale and grouping its %s, trailing commas and thousands
	// separator; sci and frac whether it is scientific or a fraction.
	date     xlsxDateKind
	clock    clockStyle
	general  bool
	percent  int
	scale    int
	grouping bool
	sci      bool
	frac     bool
	// before and after are a date section's text before its first and after its last
	// code (`"It was "[h]" hours"`); between says text stands between two codes.
	before, after string
	between       bool
	// order is a date section's codes (code: the letter, 'h' for [h]) and text in the
	// order they stand, for writing text between codes ("27 hours 05 minutes").
	order []dateRun
}

// dateRun is one code of a date section (its letter) or a run of its text (code 0).
type dateRun struct {
	code byte
	text string
}

// numToken is a literal (kind 'L'), a digit placeholder ('0', '#', '?') of the integer
// part (part 'i'), the decimals ('d'), the exponent ('e'), a fraction's numerator ('n') or
// denominator ('m'), the decimal point ('.'), the exponent's letter and sign ('E': text
// "E+", "e-"…),
// General ('G') or the text ('@').
type numToken struct {
	kind byte
	part byte
	text string
}

// clockStyle is how a date section writes its time: zero-padded hours (hh, [hh]), no hours
// at all (mm:ss), hours alone (`[h]" hours"`, no minutes nor seconds), the unit elapsed time counts in ('h', 'm', 's' for [h], [m], [s]) and
// the decimals of its seconds (ss.00).
type clockStyle struct {
	hourPad, noHours, hoursOnly bool
	unit                        byte
	frac                        int
}

// hourWidth is the width hours are padded to.
func (c clockStyle) hourWidth() int {
	if c.hourPad {
		return 2
	}
	return 1
}

// xlsxAMPM marks a time shown on the 12-hour clock (AM/PM, A/P).
const xlsxAMPM xlsxDateKind = 1 << 5

// builtinCodes are the format codes of the built-in number formats ECMA-376 lists (ids
// 0–49, as Excel shows them in the United States), and the East Asian ones' dates and
// times (27–36, 50–58), which show the same date or time.
var builtinCodes = map[int]string{
	0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
	5: `"$"#,##0_);\("$"#,##0\)`, 6: `"$"#,##0_);[Red]\("$"#,##0\)`,
	7: `"$"#,##0.00_);\("$"#,##0.00\)`, 8: `"$"#,##0.00_);[Red]\("$"#,##0.00\)`,
	9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
	14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy", 18: "h:mm AM/PM",
	19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss", 22: "m/d/yy h:mm",
	37: "#,##0 ;(#,##0)", 38: "#,##0 ;[Red](#,##0)", 39: "#,##0.00;(#,##0.00)", 40: "#,##0.00;[Red](#,##0.00)",
	41: `_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`,
	42: `_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)`,
	43: `_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)`,
	44: `_("$"* #,##0.00_);_("$"* \(#,##0.00\);_("$"* "-"??_);_(@_)`,
	45: "mm:ss", 46: "[h]:mm:ss", 47: "mmss.0", 48: "##0.0E+0", 49: "@",
	27: "yyyy-mm-dd", 28: "yyyy-mm-dd", 29: "yyyy-mm-dd", 30: "yyyy-mm-dd", 31: "yyyy-mm-dd",
	32: "h:mm", 33: "h:mm:ss", 34: "h:mm", 35: "h:mm:ss", 36: "yyyy-mm-dd",
	50: "yyyy-mm-dd", 51: "yyyy-mm-dd", 52: "yyyy-mm-dd", 53: "yyyy-mm-dd", 54: "yyyy-mm-dd",
	55: "yyyy-mm-dd", 56: "yyyy-mm-dd", 57: "yyyy-mm-dd", 58: "yyyy-mm-dd",
}

// parseNumFormat parses a format code. It never fails: what it does not know it writes as
// it stands.
func parseNumFormat(code string) *numFormat {
	f := &numFormat{}
	var secs []*numSection
	for _, s := range splitSections(code) {
		secs = append(secs, parseSection(s))
	}
	if n := len(secs); n == 4 || n > 1 && hasText(secs[n-1]) || n == 1 && hasText(secs[0]) {
		f.text = secs[n-1]
		secs = secs[:n-1]
	}
	for _, s := range secs {
		f.sections = append(f.sections, *s)
		f.cond = f.cond || s.op != ""
	}
	return f
}

func hasText(s *numSection) bool {
	for _, t := range s.toks {
		if t.kind == '@' {
			return true
		}
	}
	return false
}

// splitSections splits a code at its semicolons outside quotes, brackets and escapes,
// into four sections at most.
func splitSections(code string) []string {
	var out []string
	start := 0
	for i := 0; i < len(code); i++ {
		switch code[i] {
		case '"':
			if j := strings.IndexByte(code[i+1:], '"'); j >= 0 {
				i += j + 1
			} else {
				i = len(code)
			}
		case '\\', '_', '*':
			i++
		case '[':
			if j := strings.IndexByte(code[i:], ']'); j >= 0 {
				i += j
			}
		case ';':
			if len(out) < 3 {
				out = append(out, code[start:i])
				start = i + 1
			}
		}
	}
	return append(out, code[start:])
}

// parseSection parses one section of a format code.
func parseSection(code string) *numSection {
	s := &numSection{}
	var elapsed, ampm bool
	dateCodes := ""
	// a date section's text since its last code (from its first word on: the date's own
	// separators, "h:mm", are not text) and the separators before that word
	pending, seps := "", ""
	code1 := func(c byte, bracket bool) { // a date code: the text before it is the section's before or between
		if n := len(s.order); bracket || n == 0 || s.order[n-1].code != c {
			s.order = append(s.order, dateRun{code: c})
		}
		if dateCodes == "" && !elapsed {
			s.before = pending
		} else if pending != "" {
			s.between = true
		}
		pending, seps = "", ""
	}
	lit := func(t string) {
		s.toks = append(s.toks, numToken{kind: 'L', text: t})
		if n := len(s.order); n > 0 && s.order[n-1].code == 0 {
			s.order[n-1].text += t
		} else {
			s.order = append(s.order, dateRun{text: t})
		}
		switch {
		case pending != "":
			pending += t
		case strings.Trim(t, ":/-., ") == "":
			seps += t
		default:
			pending = seps + t
		}
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case c == '"':
			j := strings.IndexByte(code[i+1:], '"')
			if j < 0 {
				j = len(code) - i - 1
			}
			lit(code[i+1 : i+1+j])
			i += j + 1
		case c == '\\':
			if i+1 < len(code) {
				_, n := decodeRuneAt(code, i+1)
				lit(code[i+1 : i+1+n])
				i += n
			}
		case c == '_':
			if i+1 < len(code) {
				_, n := decodeRuneAt(code, i+1)
				lit(" ")
				i += n
			}
		case c == '*': // a fill to the column's width: a space marks where it stands
			if i+1 < len(code) {
				_, n := decodeRuneAt(code, i+1)
				lit(" ")
				i += n
			}
		case c == '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				i = len(code)
				continue
			}
			in := code[i+1 : i+j]
			i += j
			switch low := strings.ToLower(in); {
			case low != "" && strings.Trim(low, "hms") == "":
				code1(low[0], true)
				if !elapsed {
					s.clock.unit = low[0]
				}
				elapsed = true
				dateCodes += low
			case strings.HasPrefix(in, "$"):
				sym, _, _ := strings.Cut(in[1:], "-")
				if sym != "" {
					lit(sym)
				}
			case strings.HasPrefix(in, "<") || strings.HasPrefix(in, ">") || strings.HasPrefix(in, "="):
				op := strings.TrimRight(in[:min(2, len(in))], "0123456789.-+ ")
				if v, err := strconv.ParseFloat(strings.TrimSpace(in[len(op):]), 64); err == nil {
					s.op, s.val = op, v
				}
			}
		case c == '0' || c == '#' || c == '?':
			s.toks = append(s.toks, numToken{kind: c})
		case c == '.':
			s.toks = append(s.toks, numToken{kind: '.', text: "."})
		case c == ',':
			s.toks = append(s.toks, numToken{kind: ',', text: ","})
		case c == '%':
			s.percent++
			lit("%")
		case c == '@':
			s.toks = append(s.toks, numToken{kind: '@'})
		case c == '/':
			s.toks = append(s.toks, numToken{kind: '/', text: "/"})
		case (c == 'E' || c == 'e') && i+1 < len(code) && (code[i+1] == '+' || code[i+1] == '-'):
			s.toks = append(s.toks, numToken{kind: 'E', text: code[i : i+2]})
			i++
		case len(code)-i >= 7 && strings.EqualFold(code[i:i+7], "general"):
			s.toks = append(s.toks, numToken{kind: 'G'})
			s.general = true
			i += 6
		case len(code)-i >= 5 && strings.EqualFold(code[i:i+5], "am/pm"):
			ampm = true
			i += 4
		case len(code)-i >= 3 && strings.EqualFold(code[i:i+3], "a/p"):
			ampm = true
			i += 2
		case strings.IndexByte("yYmMdDhHsS", c) >= 0:
			code1(c|0x20, false)
			dateCodes += strings.ToLower(string(c))
		default:
			_, n := decodeRuneAt(code, i)
			lit(code[i : i+n])
			i += n - 1
		}
	}
	if dateCodes != "" || elapsed {
		s.after = pending
		s.date = dateKindOf(dateCodes, elapsed)
		if ampm {
			s.date |= xlsxAMPM
		}
		s.clock.hourPad = strings.Contains(dateCodes, "hh")
		s.clock.noHours = !strings.Contains(dateCodes, "h") && !elapsed
		s.clock.hoursOnly = strings.Trim(dateCodes, "h") == "" && strings.Contains(dateCodes, "h")
		for i, t := range s.toks { // the decimals of seconds: 0s after a point
			if t.kind == '.' {
				for _, u := range s.toks[i+1:] {
					if u.kind != '0' {
						break
					}
					s.clock.frac++
				}
				break
			}
		}
		return s
	}
	s.layout()
	return s
}

// decodeRuneAt is the length of the UTF-8 character at s[i] (1 for a broken one).
func decodeRuneAt(s string, i int) (rune, int) {
	for n := 1; n <= 4 && i+n <= len(s); n++ {
		if r := []rune(s[i : i+n]); len(r) == 1 && r[0] != 0xFFFD {
			return r[0], n
		}
	}
	return 0xFFFD, 1
}

// dateKindOf is what of a date the codes show: y and d are a date's, h and s a time's, m
// a month's unless it stands with h or s or elapsed time.
func dateKindOf(codes string, elapsed bool) xlsxDateKind {
	hasH, hasS, hasM := strings.ContainsRune(codes, 'h'), strings.ContainsRune(codes, 's'), strings.ContainsRune(codes, 'm')
	var k xlsxDateKind
	if strings.ContainsAny(codes, "yd") || hasM && !hasH && !hasS && !elapsed {
		k |= xlsxDate
	}
	if hasH || hasS || elapsed {
		k |= xlsxClock
	}
	if hasS {
		k |= xlsxSeconds
	}
	if elapsed {
		k |= xlsxElapsed
	}
	return k
}

// layout names the parts the digit placeholders of a number section fill (integer part,
// decimals, exponent, numerator, denominator) and reads its commas: one between integer
// placeholders groups thousands, one after the last placeholder of a number divides it by
// 1,000, anywhere else it is written.
func (s *numSection) layout() {
	slash := -1
	for i, t := range s.toks {
		if t.kind == '/' {
			slash = i
			break
		}
	}
	if slash >= 0 { // a fraction: numerator just before the slash, a whole part before it
		num := -1
		for i := slash - 1; i >= 0; i-- {
			if isDigitTok(s.toks[i].kind) {
				num = i
			} else if num >= 0 {
				break
			}
		}
		if num < 0 {
			s.toks[slash].kind = 'L'
		} else {
			s.frac = true
			for i := range s.toks {
				switch {
				case !isDigitTok(s.toks[i].kind):
				case i < num:
					s.toks[i].part = 'i'
				case i < slash:
					s.toks[i].part = 'n'
				default:
					s.toks[i].part = 'm'
				}
			}
			// a denominator written in digits ("?/8") is fixed
			for i := slash + 1; i < len(s.toks); i++ {
				if t := s.toks[i]; t.kind == 'L' && t.text != "" && strings.Trim(t.text, "0123456789") == "" && (i == slash+1 || s.toks[i-1].part == 'm') {
					s.toks[i].part = 'm'
				} else if !isDigitTok(t.kind) {
					break
				}
			}
		}
	}
	part := byte('i')
	for i := range s.toks {
		t := &s.toks[i]
		switch t.kind {
		case '.':
			if part == 'i' && !s.frac {
				part = 'd'
			} else {
				t.kind = 'L'
			}
		case 'E':
			if !s.frac {
				s.sci = true
				part = 'e'
			} else {
				t.kind = 'L'
			}
		case '0', '#', '?':
			if !s.frac {
				t.part = part
			}
		case ',':
			prev, next := s.neighbours(i)
			switch {
			case isDigitTok(prev) && isDigitTok(next) && part == 'i':
				s.grouping = true
				t.kind, t.text = 'S', ""
			case isDigitTok(prev) || prev == ',' && s.scale > 0:
				s.scale++
				t.kind, t.text = 'S', ""
			default:
				t.kind = 'L'
			}
		}
	}
}

// neighbours are the kinds of the tokens before and after toks[i], skipping commas after.
func (s *numSection) neighbours(i int) (byte, byte) {
	var prev, next byte
	if i > 0 {
		prev = s.toks[i-1].kind
		if prev == 'S' {
			prev = ','
		}
	}
	for j := i + 1; j < len(s.toks); j++ {
		if s.toks[j].kind != ',' {
			next = s.toks[j].kind
			break
		}
	}
	return prev, next
}

func isDigitTok(k byte) bool { return k == '0' || k == '#' || k == '?' }

// section chooses the section that writes v, and whether it writes v's magnitude (the
// negative section, whose code writes any sign itself); nil for none (the number shows as
// General).
func (f *numFormat) section(v float64) (*numSection, bool) {
	s := f.sections
	if len(s) == 0 {
		return nil, false
	}
	if f.cond {
		switch {
		case s[0].op != "" && s[0].holds(v):
			return &s[0], false
		case len(s) > 1 && s[1].op != "" && s[1].holds(v):
			return &s[1], true
		case len(s) > 2:
			return &s[2], false
		case len(s) > 1 && s[1].op == "":
			return &s[1], false
		case s[0].op == "":
			return &s[0], false
		}
		return nil, false
	}
	switch {
	case len(s) == 1 || v > 0 || v == 0 && len(s) == 2:
		return &s[0], false
	case v < 0:
		return &s[1], true
	}
	return &s[2], false
}

// holds says whether v meets the section's condition.
func (s *numSection) holds(v float64) bool {
	switch s.op {
	case "<":
		return v < s.val
	case "<=":
		return v <= s.val
	case "=":
		return v == s.val
	case "<>":
		return v != s.val
	case ">=":
		return v >= s.val
	case ">":
		return v > s.val
	}
	return true
}

// formatText writes a text cell by the format's text section ("@" the text), as it is
// where there is none.
func (f *numFormat) formatText(text string) string {
	if f == nil || f.text == nil {
		return text
	}
	var b strings.Builder
	for _, t := range f.text.toks {
		switch t.kind {
		case '@':
			b.WriteString(text)
		case 'L', '.', ',', '/':
			b.WriteString(t.text)
		}
	}
	return strings.TrimSpace(b.String())
}

// formatNumber writes v by its section of a number format: as Excel shows it, without the
// padding of _x and *x around it. A date section's v is written by date, and a General
// one's by general.
func (s *numSection) formatNumber(v float64, abs bool, general func(float64) string) string {
	neg := v < 0 && !abs && !s.signed()
	v = math.Abs(v)
	if s.percent > 0 || s.scale > 0 {
		v *= math.Pow(100, float64(s.percent))
		v /= math.Pow(1000, float64(s.scale))
		// to the 15 digits Excel keeps: 3.5E-4 as a percent is 0.035, not 0.034999999999999996
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	}
	count := func(part byte) (n int, codes []byte) {
		for _, t := range s.toks {
			if isDigitTok(t.kind) && t.part == part {
				n++
				codes = append(codes, t.kind)
			}
		}
		return
	}
	nInt, intCodes := count('i')
	nDec, decCodes := count('d')
	digits := map[byte]string{}
	var expSign string
	switch {
	case s.general:
	case s.sci:
		nExp, _ := count('e')
		mant, exp := scientific(v, max(nInt, 1), nDec)
		i, d, _ := strings.Cut(mant, ".")
		digits['i'], digits['d'] = strings.TrimLeft(i, "0"), d
		expSign = "+"
		if exp < 0 {
			expSign = "-"
		}
		digits['e'] = padLeft(strconv.Itoa(abs64(exp)), max(nExp, 1))
	case s.frac:
		whole, num, den := fraction(v, s, nInt > 0)
		digits['n'], digits['m'] = strconv.Itoa(num), strconv.Itoa(den)
		if num == 0 && nInt > 0 {
			digits['n'], digits['m'] = "", ""
		}
		digits['i'] = strconv.Itoa(whole)
		if whole == 0 && (num != 0 || nInt == 0) {
			digits['i'] = ""
		}
	default:
		n := roundHalfUp(v, nDec)
		i, d, _ := strings.Cut(n, ".")
		digits['i'], digits['d'] = strings.TrimLeft(i, "0"), d // a 0 placeholder writes a zero
	}
	if neg && strings.Trim(digits['i']+digits['d']+digits['n'], "0") == "" && !s.general && !s.sci {
		neg = false // -0.001 shown as 0.00
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	noFrac := s.frac && digits['n'] == "" // a whole number: spaces for the fraction
	seen := map[byte]int{}
	for _, t := range s.toks {
		switch t.kind {
		case 'G':
			b.WriteString(general(v))
		case 'L', '.', ',':
			if noFrac && t.part == 'm' && strings.Trim(t.text, "0123456789") == "" {
				// a fixed denominator ("# ?/4") of a whole number: spaces, as the slash's
				b.WriteString(strings.Repeat(" ", len(t.text)))
				continue
			}
			b.WriteString(t.text)
		case '/':
			if noFrac {
				b.WriteByte(' ')
			} else {
				b.WriteString(t.text)
			}
		case 'E': // E or e as the code writes it, + only where it asks for one
			b.WriteString(t.text[:1])
			if t.text[1] == '+' || expSign == "-" {
				b.WriteString(expSign)
			}
		case '0', '#', '?':
			k := seen[t.part]
			seen[t.part]++
			switch t.part {
			case 'd':
				b.WriteString(decimalDigit(digits['d'], k, decCodes))
			case 'i':
				b.WriteString(placeDigits(digits['i'], k, nInt, intCodes, s.grouping))
			case 'm': // a denominator stands left-aligned
				if k == 0 {
					b.WriteString(digits['m'])
				} else if t.kind == '0' && k >= len(digits['m']) {
					b.WriteByte('0')
				}
			default:
				_, codes := count(t.part)
				b.WriteString(placeDigits(digits[t.part], k, len(codes), codes, false))
			}
		}
	}
	return strings.TrimSpace(b.String())
}

// formatDate writes serial by a date section: the date or time (serialDate) with the
// section's text before and after it ("It was 27 hours"); a time's fields between its text
// where text stands between two codes (interleave; a date keeps its own layout).
func (s *numSection) formatDate(serial float64, date1904 bool) string {
	d := serialDate(serial, date1904, s.date, s.clock)
	if s.between {
		return s.interleave(d)
	}
	return strings.TrimSpace(s.before + d + s.after)
}

// interleave writes a time's fields (clock: "27:05:09", "-27:05", "6:00 PM") in place of
// a section's codes, between its text (`[h]" hours "mm" minutes"`: 27 hours 05 minutes). A
// section with a date, or whose codes do not match the fields one for one, keeps clock.
func (s *numSection) interleave(clock string) string {
	if s.date&xlsxDate != 0 {
		return clock
	}
	suffix := ""
	for _, m := range []string{" AM", " PM"} {
		if c, ok := strings.CutSuffix(clock, m); ok {
			clock, suffix = c, m
		}
	}
	fields := strings.Split(clock, ":")
	var b strings.Builder
	n := 0
	for _, r := range s.order {
		if r.code == 0 {
			b.WriteString(r.text)
			continue
		}
		if n == len(fields) {
			return clock + suffix
		}
		b.WriteString(fields[n])
		n++
	}
	if n != len(fields) {
		return clock + suffix
	}
	return strings.TrimSpace(b.String() + strings.TrimSpace(suffix)) // AM/PM where the code writes it
}

// signed says whether the section writes a minus sign of its own just before its first
// digit ("[<=-1000]-0,\"K\""): a negative number then shows its magnitude there.
func (s *numSection) signed() bool {
	for i, t := range s.toks {
		if isDigitTok(t.kind) || t.kind == 'G' {
			return i > 0 && s.toks[i-1].kind == 'L' && strings.HasSuffix(s.toks[i-1].text, "-")
		}
	}
	return false
}

// placeDigits is what the kth of n integer placeholders (codes) writes of digits, which
// fill them from the right; the first also takes the digits beyond them. With grouping,
// a comma follows every digit that has a multiple of three digits after it.
func placeDigits(digits string, k, n int, codes []byte, grouping bool) string {
	var out strings.Builder
	fromRight := n - 1 - k
	put := func(c byte, p int) {
		out.WriteByte(c)
		if grouping && p > 0 && p%3 == 0 {
			out.WriteByte(',')
		}
	}
	if k == 0 && len(digits) > n {
		for j := 0; j < len(digits)-n; j++ {
			put(digits[j], len(digits)-1-j)
		}
	}
	if fromRight < len(digits) {
		put(digits[len(digits)-1-fromRight], fromRight)
		return out.String()
	}
	switch codes[k] {
	case '0':
		// a zero placeholder beyond the digits: a leading zero (only where no digit
		// placeholder left of it would already write one)
		put('0', fromRight)
	case '?':
		out.WriteByte(' ')
	}
	return out.String()
}

// decimalDigit is what the kth decimal placeholder writes: its digit, except for the
// trailing zeros # leaves out and ? writes as spaces.
func decimalDigit(digits string, k int, codes []byte) string {
	if k >= len(digits) {
		return ""
	}
	if strings.Trim(digits[k:], "0") == "" {
		// trailing zeros: a 0 placeholder here or after keeps it
		for _, c := range codes[k:] {
			if c == '0' {
				return digits[k : k+1]
			}
		}
		if codes[k] == '?' {
			return " "
		}
		return ""
	}
	return digits[k : k+1]
}

// scientific writes v as a mantissa with nDec decimals and the exponent: the exponent a
// multiple of nInt (##0.0E+0 writes engineering notation), the mantissa below 10^nInt.
func scientific(v float64, nInt, nDec int) (string, int) {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(0, 'f', nDec, 64), 0
	}
	exp := int(math.Floor(math.Log10(v)))
	if nInt > 1 {
		exp = int(math.Floor(float64(exp)/float64(nInt))) * nInt
	}
	m := roundHalfUp(v/math.Pow(10, float64(exp)), nDec)
	if i, _, _ := strings.Cut(m, "."); len(i) > nInt { // rounded up to the next power of ten
		exp += nInt
		if nInt == 1 {
			exp = int(math.Floor(math.Log10(v))) + 1
		}
		m = roundHalfUp(v/math.Pow(10, float64(exp)), nDec)
	}
	return m, exp
}

// fraction splits v into a whole part (when the section shows one) and the fraction
// closest to the rest whose denominator is the section's fixed one or has at most as many
// digits as its denominator placeholders.
func fraction(v float64, s *numSection, whole bool) (int, int, int) {
	w := 0.0
	if whole {
		w = math.Floor(v)
		v -= w
	}
	fixed, places := "", 0
	for _, t := range s.toks {
		if t.part == 'm' {
			if t.kind == 'L' {
				fixed += t.text
			} else {
				places++
			}
		}
	}
	if d, err := strconv.Atoi(fixed); err == nil && d > 0 && places == 0 {
		n := int(math.Round(v * float64(d)))
		if whole && n == d {
			return int(w) + 1, 0, d
		}
		return int(w), n, d
	}
	maxDen := int(math.Pow(10, float64(min(max(places, 1), 4)))) - 1 // Excel's longest is ????/????
	bestN, bestD, bestErr := 0, 1, math.Inf(1)
	for d := 1; d <= maxDen; d++ {
		n := int(math.Round(v * float64(d)))
		if e := math.Abs(v - float64(n)/float64(d)); e < bestErr-1e-12 {
			bestN, bestD, bestErr = n, d, e
		}
	}
	if whole && bestN == bestD {
		return int(w) + 1, 0, 1
	}
	return int(w), bestN, bestD
}

// roundHalfUp writes v ≥ 0 with n decimals, rounding its shortest decimal form half away
// from zero as Excel does (2.5 with no decimals is 3, 1.005 with two is 1.01), where
// strconv rounds the binary value to even (2, 1.00).
func roundHalfUp(v float64, n int) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if strings.ContainsAny(s, "eEIN") {
		return strconv.FormatFloat(v, 'f', n, 64)
	}
	i, d, _ := strings.Cut(s, ".")
	if len(d) <= n {
		d += strings.Repeat("0", n-len(d))
	} else {
		up := d[n] >= '5'
		digits := []byte(i + d[:n])
		for j := len(digits) - 1; up && j >= 0; j-- {
			if digits[j] == '9' {
				digits[j] = '0'
			} else {
				digits[j]++
				up = false
			}
		}
		if up {
			digits = append([]byte{'1'}, digits...)
		}
		i, d = string(digits[:len(digits)-n]), string(digits[len(digits)-n:])
	}
	if n == 0 {
		return i
	}
	return i + "." + d
}

func padLeft(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

func abs64(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
