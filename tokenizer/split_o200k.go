package tokenizer

import "unicode/utf8"

// o200kPattern is the Split regex of GPT-4o (o200k) style tokenizers, also used by Llama 4.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

func init() { splitPatterns[o200kPattern] = matchO200k }

// isUpperish is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], isLowerish [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isUpperish(c uint8) bool { return c&cM != 0 || c&cL != 0 && c&cLl == 0 }
func isLowerish(c uint8) bool { return c&cM != 0 || c&cL != 0 && c&cLuLt == 0 }

// matchO200k is o200kPattern at i.
func matchO200k(s string, i int) int {
	r, c, w := next(s, i)
	prefix := r != '\r' && r != '\n' && c&(cL|cN) == 0
	for _, lowerRequired := range []bool{true, false} {
		if prefix && i+w < len(s) {
			if e := matchCased(s, i+w, lowerRequired); e >= 0 {
				return e
			}
		}
		if e := matchCased(s, i, lowerRequired); e >= 0 {
			return e
		}
	}
	if c&cN != 0 {
		return digits(s, i+w, 2)
	}
	j := i
	if r == ' ' {
		j++
	}
	if j < len(s) {
		if _, c2, w2 := next(s, j); c2&(cSpace|cL|cN) == 0 {
			j = runNot(s, j+w2, cSpace|cL|cN)
			for j < len(s) && (s[j] == '\r' || s[j] == '\n' || s[j] == '/') {
				j++
			}
			return j
		}
	}
	return matchSpace(s, i)
}

// matchCased is Upper*Lower+Contraction? (lowerRequired) or Upper+Lower*Contraction? at i,
// with the backtracking of the greedy Upper run that the reference's engine does.
func matchCased(s string, i int, lowerRequired bool) int {
	q := i
	for q < len(s) {
		_, c, w := next(s, q)
		if !isUpperish(c) {
			break
		}
		q += w
	}
	var e int
	switch {
	case !lowerRequired:
		if q == i {
			return -1
		}
		e = runLowerish(s, q)
	case q < len(s) && isLowerish(classAt(s, q)):
		e = runLowerish(s, q)
	default:
		// Give back Upper characters until one of them is also Lower (Lm, Lo, M).
		e = -1
		for k := q; k > i; {
			r, w := utf8.DecodeLastRuneInString(s[:k])
			if isLowerish(class(r)) {
				e = k
				break
			}
			k -= w
		}
		if e < 0 {
			return -1
		}
	}
	if e < len(s) && s[e] == '\'' {
		if n := contraction(s, e+1); n > 0 {
			e += 1 + n
		}
	}
	return e
}

func runLowerish(s string, i int) int {
	for i < len(s) {
		_, c, w := next(s, i)
		if !isLowerish(c) {
			break
		}
		i += w
	}
	return i
}

func classAt(s string, i int) uint8 {
	_, c, _ := next(s, i)
	return c
}
