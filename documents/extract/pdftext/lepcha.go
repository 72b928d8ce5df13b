package pdftext

import (
	"slices"
	"strings"
)

// Lepcha's dependent signs follow their consonant in one order in the text: the nukta, the
// subjoined ya or ra, a vowel sign, a final consonant sign, nyin-do or kang, ran ("ᰀᰫᰕᰧᰵᰶ",
// "ᰃ᰷ᰥᰧ"; every cluster of SIL's Mingzat type sample spells them so). A shaper draws them
// where they go on the page: the vowel signs i, o and oo left of the consonant, the signs
// above it without advance and in another order (a final m before the vowel aa, ran over
// the consonant's right edge past where its advance ends), and glyphs it made of two signs
// (oo and kang in one) read by the font's substitutions in their order there.

// lepchaRank is the place of a Lepcha dependent sign in its cluster (above), 0 for other
// characters.
func lepchaRank(r rune) int {
	switch {
	case r == 0x1C37:
		return 1
	case r == 0x1C24 || r == 0x1C25:
		return 2
	case r >= 0x1C26 && r <= 0x1C2C:
		return 3
	case r >= 0x1C2D && r <= 0x1C33:
		return 4
	case r == 0x1C34 || r == 0x1C35:
		return 5
	case r == 0x1C36:
		return 6
	}
	return 0
}

// hasLepcha says whether s may hold Lepcha (U+1C00–U+1C4F: UTF-8 E1 B0 80 – E1 B1 8F).
func hasLepcha(s string) bool {
	return strings.Contains(s, "\xe1\xb0") || strings.Contains(s, "\xe1\xb1")
}

// lepchaSigns says whether s is one or more Lepcha dependent signs only.
func lepchaSigns(s string) bool {
	for _, r := range s {
		if lepchaRank(r) == 0 {
			return false
		}
	}
	return s != ""
}

// lepchaLeftSign is lepchaNoVirama when s is a glyph of Lepcha signs holding a vowel sign
// drawn left of its consonant (i, o, oo), with other signs a substitution joined to it
// ("ᰩᰮ": oo and final m); 0 otherwise.
func lepchaLeftSign(s string) rune {
	if len(s) > 4*3 || !lepchaSigns(s) {
		return 0
	}
	for _, r := range s {
		if r >= 0x1C27 && r <= 0x1C29 {
			return lepchaNoVirama
		}
	}
	return 0
}

// lepchaMark says whether g is a Lepcha sign drawn without advance: it belongs to the
// letter before it and parts no word, however far past that letter's advance its origin
// stands (ran).
func lepchaMark(g glyph) bool {
	return g.w <= 0.01*g.size && len(g.text) <= 4*3 && lepchaSigns(g.text)
}

// lepchaOrder puts the dependent signs after each Lepcha consonant of s in their order in
// the text (lepchaRank); s is returned as it is when it has no Lepcha.
func lepchaOrder(s string) string {
	if !hasLepcha(s) {
		return s
	}
	rs := []rune(s)
	changed := false
	for i := 0; i < len(rs); i++ {
		if lepchaRank(rs[i]) == 0 {
			continue
		}
		j := i
		for j < len(rs) && lepchaRank(rs[j]) != 0 {
			j++
		}
		run := rs[i:j]
		if i > 0 && lepchaRank(rs[i-1]) == 0 && rs[i-1] >= 0x1C00 && rs[i-1] <= 0x1C4F && !slices.IsSortedFunc(run, byLepchaRank) {
			slices.SortStableFunc(run, byLepchaRank)
			changed = true
		}
		i = j - 1
	}
	if !changed {
		return s
	}
	return string(rs)
}

func byLepchaRank(a, b rune) int { return lepchaRank(a) - lepchaRank(b) }
