package pdftext

import "unicode"

// TeX hyphenates a word with an inner capital before it ("Post-" "Scriptiksi", Finnish's
// PostScript with a case ending, in lshort-finnish; "Post-" "Script-grafiikka"), where the
// document writes the word whole elsewhere only without the ending or the compound's rest
// ("PostScript"). A break before a capital loses its hyphen when the document writes whole
// a word that the joined word starts with and that goes minPrefixLetters letters or more
// past the break: a compound's parts ("Addison-" "Wesley", "CNF-" "SAT") make no word the
// document writes so.

// minPrefixLetters is how many letters of the word after the break a word written whole
// must take.
const minPrefixLetters = 3

// prefixKeys are the keys (wordKey) of the break's joined word cut after each of the next
// word's letters from the minPrefixLetters'th on, up to the first character that is no
// letter, short of the whole word (resolveHyphens counts that one itself).
func prefixKeys(stem, right string) []string {
	var out []string
	n := 0
	for i, r := range right {
		if n >= minPrefixLetters {
			out = append(out, wordKey(stem+right[:i]))
		}
		if !unicode.IsLetter(r) {
			break
		}
		n++
	}
	return out
}

// wholePrefix says whether the document writes whole (counts, as resolveHyphens counts)
// a word the break's joined word starts with, past the break by minPrefixLetters or more.
func wholePrefix(counts map[string]int, stem, right string) bool {
	for _, k := range prefixKeys(stem, right) {
		if counts[k] > 0 {
			return true
		}
	}
	return false
}

// lineBelow says whether next goes on under l, as a line broken after a hyphen does: it
// starts before l ends. A table's next cell, read after l, starts right of it, on l's
// row or a little under it, and is no word's rest (refcard-fr's "echo chaîne-de-" beside
// "Afficher une chaîne à", read "chaîne-de-Afficher"; the cell's "caractères" is under
// "chaîne-de-").
func lineBelow(l, next *line) bool {
	return next.x0 < l.x1
}
