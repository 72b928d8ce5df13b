package tokenizer

import "strconv"

// pow10 holds 1e0 … 1e308, each the nearest float64 (as the reference's table of literals).
var pow10 = func() (t [309]float64) {
	for i := range t {
		t[i], _ = strconv.ParseFloat("1e"+strconv.Itoa(i), 64)
	}
	return t
}()

// serdeFloat parses a JSON number exactly as the reference's JSON parser (serde_json without
// its float_roundtrip feature) does, which is not always the nearest float64: the digits are
// gathered into a u64 (later digits dropped once it would overflow), converted to float64,
// then multiplied or divided by a power of ten. Unigram scores go through it, and a score one
// ulp away can tip a Viterbi tie. ok is false for text that is not a JSON number.
func serdeFloat(s string) (float64, bool) {
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg, i = true, i+1
	}
	digit := func() bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	if !digit() || s[i] == '0' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
		return 0, false
	}
	var sig uint64
	exp := 0
	overflow := false
	add := func(after bool) {
		d := uint64(s[i] - '0')
		switch {
		case overflow:
			if !after {
				exp++
			}
		case sig > (1<<64-1)/10 || sig == (1<<64-1)/10 && d > (1<<64-1)%10:
			overflow = true
			if !after {
				exp++
			}
		default:
			sig = sig*10 + d
			if after {
				exp--
			}
		}
		i++
	}
	for digit() {
		add(false)
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digit() {
			return 0, false
		}
		for digit() {
			add(true)
		}
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		i++
		expNeg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg, i = s[i] == '-', i+1
		}
		if !digit() {
			return 0, false
		}
		e := 0
		for digit() {
			if e < 1e6 {
				e = e*10 + int(s[i]-'0')
			}
			i++
		}
		if expNeg {
			e = -e
		}
		exp += e
	}
	if i != len(s) {
		return 0, false
	}
	f := float64(sig)
	for {
		a := exp
		if a < 0 {
			a = -a
		}
		if a < len(pow10) {
			if exp >= 0 {
				f *= pow10[a]
			} else {
				f /= pow10[a]
			}
			break
		}
		if f == 0 || exp >= 0 {
			break // the reference refuses a positive overflow; a score never has one
		}
		f /= 1e308
		exp += 308
	}
	if neg {
		f = -f
	}
	return f, true
}
