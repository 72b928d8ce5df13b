package tokenizer

import "unicode/utf8"

// A matcher is a hand-written equivalent of one Split regex: it returns the end of the match
// that the regex (a backtracking engine, alternatives tried in order) finds at byte i of s, or
// -1 when none starts there. None of the supported regexes looks behind or matches empty, so
// scanning for the leftmost match position by position gives the reference's matches.
type matcher func(s string, i int) int

// splitPatterns maps the supported Split regexes, as written in tokenizer.json, to matchers.
var splitPatterns = map[string]matcher{
	// Qwen2, Qwen2.5, Qwen3.
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`: matchQwen,
	// Llama 3 (cl100k style: digits in groups of up to three).
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`: matchLlama3,
	// DeepSeek-V3: digits, then CJK runs, then the rest.
	`\p{N}{1,3}`:   matchDigits3,
	`[一-龥぀-ゟ゠-ヿ]+`: matchCJK,
	"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+":       matchDeepSeek,
	"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": matchDeepSeek,
}

func matchQwen(s string, i int) int   { return matchGPT(s, i, 1) }
func matchLlama3(s string, i int) int { return matchGPT(s, i, 3) }

// matchGPT is (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,maxDigits}|
// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func matchGPT(s string, i, maxDigits int) int {
	r, c, w := next(s, i)
	if r == '\'' {
		if n := contraction(s, i+1); n > 0 {
			return i + 1 + n
		}
	}
	if c&cL != 0 {
		return runOf(s, i+w, cL)
	}
	if r != '\r' && r != '\n' && c&cN == 0 && i+w < len(s) {
		if _, c2, w2 := next(s, i+w); c2&cL != 0 {
			return runOf(s, i+w+w2, cL)
		}
	}
	if c&cN != 0 {
		return digits(s, i+w, maxDigits-1)
	}
	j := i
	if r == ' ' {
		j++
	}
	if j < len(s) {
		if _, c2, w2 := next(s, j); c2&(cSpace|cL|cN) == 0 {
			return runCRLF(s, runNot(s, j+w2, cSpace|cL|cN))
		}
	}
	return matchSpace(s, i)
}

// matchDeepSeek is [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|
// ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func matchDeepSeek(s string, i int) int {
	r, c, w := next(s, i)
	if r < utf8.RuneSelf && c&(cP|cS) != 0 && i+1 < len(s) && isASCIILetter(s[i+1]) {
		j := i + 2
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		return j
	}
	if c&(cL|cM) != 0 {
		return runOf(s, i+w, cL|cM)
	}
	if r != '\r' && r != '\n' && c&(cP|cS) == 0 && i+w < len(s) {
		if _, c2, w2 := next(s, i+w); c2&(cL|cM) != 0 {
			return runOf(s, i+w+w2, cL|cM)
		}
	}
	j := i
	if r == ' ' {
		j++
	}
	if j < len(s) {
		if _, c2, w2 := next(s, j); c2&(cP|cS) != 0 {
			return runCRLF(s, runOf(s, j+w2, cP|cS))
		}
	}
	return matchSpace(s, i)
}

// matchDigits3 is \p{N}{1,3}.
func matchDigits3(s string, i int) int {
	if _, c, w := next(s, i); c&cN != 0 {
		return digits(s, i+w, 2)
	}
	return -1
}

// matchCJK is [一-龥぀-ゟ゠-ヿ]+ (U+4E00–U+9FA5, U+3040–U+309F, U+30A0–U+30FF).
func matchCJK(s string, i int) int {
	j := i
	for j < len(s) {
		r, w := utf8.DecodeRuneInString(s[j:])
		if !(r >= 0x4E00 && r <= 0x9FA5 || r >= 0x3040 && r <= 0x30FF) {
			break
		}
		j += w
	}
	if j == i {
		return -1
	}
	return j
}

// matchGPT2 is GPT-2's regex, the ByteLevel pre-tokenizer's: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+|
// ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ (contractions in lower case only).
func matchGPT2(s string, i int) int {
	if s[i] == '\'' && i+1 < len(s) {
		switch s[i+1] {
		case 's', 't', 'm', 'd':
			return i + 2
		case 'r', 'v':
			if i+2 < len(s) && s[i+2] == 'e' {
				return i + 3
			}
		case 'l':
			if i+2 < len(s) && s[i+2] == 'l' {
				return i + 3
			}
		}
	}
	j := i
	if s[i] == ' ' {
		j++
	}
	if j < len(s) {
		_, c, w := next(s, j)
		switch {
		case c&cL != 0:
			return runOf(s, j+w, cL)
		case c&cN != 0:
			return runOf(s, j+w, cN)
		case c&cSpace == 0:
			return runNot(s, j+w, cSpace|cL|cN)
		}
	}
	j, last := i, i
	for j < len(s) {
		_, c, w := next(s, j)
		if c&cSpace == 0 {
			break
		}
		last = j
		j += w
	}
	if j == len(s) || last == i { // \s+(?!\S) at the end, or a single \s
		return j
	}
	return last // \s+(?!\S) leaves the last space to the next piece
}

// matchSpace is \s*[\r\n]+|\s+(?!\S)|\s+ at i.
func matchSpace(s string, i int) int {
	j, lastNL, last := i, -1, i
	for j < len(s) {
		r, c, w := next(s, j)
		if c&cSpace == 0 {
			break
		}
		if r == '\r' || r == '\n' {
			lastNL = j
		}
		last = j
		j += w
	}
	switch {
	case j == i:
		return -1
	case lastNL >= 0: // \s*[\r\n]+ backtracks to the last line break of the run
		return lastNL + 1
	case j == len(s) || last == i: // \s+(?!\S) at the end, or a single \s
		return j
	default: // \s+(?!\S) leaves the last space to the next piece
		return last
	}
}

// contraction returns the length of s's 's 't 're 've 'm 'll 'd (any case) at j, after the
// apostrophe, or 0. Case-insensitive 's' also matches U+017F LATIN SMALL LETTER LONG S.
func contraction(s string, j int) int {
	if j >= len(s) {
		return 0
	}
	switch s[j] | 0x20 {
	case 's', 't', 'm', 'd':
		return 1
	case 'r', 'v':
		if j+1 < len(s) && s[j+1]|0x20 == 'e' {
			return 2
		}
	case 'l':
		if j+1 < len(s) && s[j+1]|0x20 == 'l' {
			return 2
		}
	}
	if len(s)-j >= 2 && s[j] == 0xC5 && s[j+1] == 0xBF { // ſ
		return 2
	}
	return 0
}

// digits extends a \p{N} match at j by up to more further \p{N}.
func digits(s string, j, more int) int {
	for ; more > 0 && j < len(s); more-- {
		_, c, w := next(s, j)
		if c&cN == 0 {
			break
		}
		j += w
	}
	return j
}

// runNot returns the end of the run from i of runes whose class has no bit of not.
func runNot(s string, i int, not uint8) int {
	for i < len(s) {
		_, c, w := next(s, i)
		if c&not != 0 {
			break
		}
		i += w
	}
	return i
}

func runCRLF(s string, i int) int {
	for i < len(s) && (s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }
