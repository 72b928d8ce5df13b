package pdftext

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"
)

// joinNumbers gives the signs that the bidirectional algorithm makes part of a number the
// class of its digits (bidiNum), so that they run forwards with them in right-to-left text:
// a single common separator between two digits ("31/12/1999", "3.5", "12:30", rule W4),
// and, unless the number stands among Arabic letters (which make its digits Arabic numbers,
// rule W2, that these signs do not join), a single European separator between two digits
// ("1-2", W4) and terminators next to digits ("50%", "45°", W5). Taken as neutrals, the
// signs between digits were read right to left and turned the number's parts around: a
// Hebrew form's date drawn "31/12/1999" read "1999/12/31". class is bidiLevels'.
func joinNumbers(items []string, class []int) {
	// arabic says whether the nearest letter on either side of item i is an Arabic one.
	arabic := func(i int) bool {
		for _, step := range []int{-1, 1} {
			for j := i + step; j >= 0 && j < len(class); j += step {
				if class[j] == bidiL || class[j] == bidiR {
					if r, _ := utf8.DecodeRuneInString(items[j]); bidiOf(r) == bidi.AL {
						return true
					}
					break
				}
			}
		}
		return false
	}
	digit := func(i int) bool { return i >= 0 && i < len(class) && class[i] == bidiNum }
	for i, c := range class { // W4
		if c != bidiNeutral || !digit(i-1) || !digit(i+1) {
			continue
		}
		if k := numberSign(items[i]); k == bidi.CS || k == bidi.ES && !arabic(i) {
			class[i] = bidiNum
		}
	}
	for i := 0; i < len(class); { // W5: a run of terminators next to a number
		j := i
		for j < len(class) && class[j] == bidiNeutral && numberSign(items[j]) == bidi.ET {
			j++
		}
		if j > i && (digit(i-1) || digit(j)) && !arabic(i) {
			for k := i; k < j; k++ {
				class[k] = bidiNum
			}
		}
		i = max(j, i+1)
	}
}

// numberSign is the bidirectional class of a sign's text when all its characters have one:
// CS, ES or ET for the signs that may join a number, else ON.
func numberSign(s string) bidi.Class {
	k := bidi.ON
	for i, r := range s {
		c := bidiOf(r)
		if c != bidi.CS && c != bidi.ES && c != bidi.ET || i > 0 && c != k {
			return bidi.ON
		}
		k = c
	}
	return k
}

// bidiOf is a character's bidirectional class.
func bidiOf(r rune) bidi.Class {
	p, _ := bidi.LookupRune(r)
	return p.Class()
}
