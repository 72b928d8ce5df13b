package pdftext

import (
	"slices"
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"
)

// maxBracketDepth is the bidirectional algorithm's bound on open brackets (BD16).
const maxBracketDepth = 63

// bracketPairs finds the bracket pairs among a line's items (glyph texts in drawing order)
// as the bidirectional algorithm's BD16 does with Unicode's BidiBrackets data (from
// golang.org/x/text/unicode/bidi), each as the indexes of its left and right member, by
// left member. Drawn, a pair always shows its opening shape on the left: a pair read right
// to left is drawn mirrored ("[٢٠٠٩a]" is drawn "[", the number, "]" whichever way it
// reads), so pairs are matched on the drawn shapes.
func bracketPairs(items []string) [][2]int {
	type open struct {
		at    int
		close rune
	}
	var stack []open
	var out [][2]int
	for i, t := range items {
		r, n := utf8.DecodeRuneInString(t)
		if n != len(t) || r < '(' {
			continue
		}
		p, _ := bidi.LookupRune(r)
		if !p.IsBracket() {
			continue
		}
		if p.IsOpeningBracket() {
			if len(stack) == maxBracketDepth {
				break // BD16: stop looking for pairs
			}
			stack = append(stack, open{i, closingBracket(r)})
			continue
		}
		for k := len(stack) - 1; k >= 0; k-- {
			if stack[k].close == r {
				out = append(out, [2]int{stack[k].at, i})
				stack = stack[:k]
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	return out
}

// closingBracket is the Bidi_Paired_Bracket of an opening bracket: in BidiBrackets.txt
// every one is closed by the first closing bracket of the two code points after it ("(" by
// ")", "[" by "]"; TestClosingBracket checks all 64).
func closingBracket(r rune) rune {
	if p, _ := bidi.LookupRune(r + 1); p.IsBracket() && !p.IsOpeningBracket() {
		return r + 1
	}
	return r + 2
}

// resolveBrackets gives both members of each bracket pair one class, as the bidirectional
// algorithm's rule N0 does: the line's direction when the pair holds a strong letter of it
// (Arabic-Indic digits counting as right to left, other numbers too unless Latin letters
// stand before them: "f(x0)"), else the other direction when the pair holds letters of that
// one only. N0 would give such a pair the line's direction when the text before it reads
// the line's way; producers set a formula or a Latin term in a right-to-left line as a
// left-to-right run ("الآتیة: (z − 4)(z2 − 2z + 4) = 0", "المنحنى (C f)"), whose brackets
// are its own, and that a drawn line cannot tell apart from the other. Pairs without strong
// letters inside are left to the neutral rules. class and num are bidiLevels'.
func resolveBrackets(items []string, class []int, num []bool, rtl bool) {
	pairs := bracketPairs(items)
	if len(pairs) == 0 {
		return
	}
	line := bidiL
	if rtl {
		line = bidiR
	}
	strongAt := func(j int) int {
		switch c := class[j]; c {
		case bidiL, bidiR:
			return c
		case bidiNum:
			// N0 takes numbers as right to left: Arabic-Indic digits (AN) always, others
			// unless left-to-right letters stand before them (W7 made them L: "f(x0)")
			if num[j] || arabicDigits(items[j]) {
				return bidiR
			}
			return bidiL
		}
		return bidiNeutral
	}
	for _, p := range pairs {
		inside := bidiNeutral
		for j := p[0] + 1; j < p[1]; j++ {
			if c := strongAt(j); c == line {
				inside = line
				break
			} else if c != bidiNeutral {
				inside = c
			}
		}
		if inside == bidiNeutral {
			continue
		}
		pair := inside
		class[p[0]], class[p[1]] = pair, pair
	}
}

// arabicDigits says whether s holds Arabic-Indic digits (U+0660–0669, U+06F0–06F9), the
// bidirectional algorithm's AN.
func arabicDigits(s string) bool {
	for _, r := range s {
		if r >= 0x0660 && r <= 0x0669 || r >= 0x06F0 && r <= 0x06F9 {
			return true
		}
	}
	return false
}

// shapeBrackets names by their drawn shapes the brackets of a line whose producer named
// them by the characters they stand for: fpdf2 maps the glyph HarfBuzz drew mirrored in a
// right-to-left run to the text's character, so "אנגלית (באנגלית: English) ה" is drawn
// "ה )English :תילגנאב( תילגנא", its pairs drawn closing bracket first, which no drawing of
// shape-named glyphs shows. A closing bracket that no opening one before it pairs, whose
// mirror pairs with the mirror of an unpaired opening bracket after it, with a
// right-to-left letter between them or in a right-to-left line (rtl: "(Richard
// McClintock)" in Arabic), is such a pair: both members are turned to their mirrors, as
// other producers (TeX's, which name glyphs by their shapes) draw them, for the
// bidirectional reading to turn back.
func shapeBrackets(items []string, rtl bool) {
	paired := map[int]bool{}
	for _, p := range bracketPairs(items) {
		paired[p[0]], paired[p[1]] = true, true
	}
	var mirrored []string
	for i, t := range items {
		if m, ok := bidiMirror[t]; ok && !paired[i] {
			if mirrored == nil {
				mirrored = slices.Clone(items)
			}
			mirrored[i] = m
		}
	}
	if mirrored == nil {
		return
	}
	for _, p := range bracketPairs(mirrored) {
		if paired[p[0]] || paired[p[1]] || items[p[0]] == mirrored[p[0]] || items[p[1]] == mirrored[p[1]] {
			continue
		}
		for j := p[0] + 1; j < p[1]; j++ {
			if r, _ := utf8.DecodeRuneInString(items[j]); rtl || isRTLRune(r) {
				items[p[0]], items[p[1]] = mirrored[p[0]], mirrored[p[1]]
				break
			}
		}
	}
}
