package tokenizer

import (
	"sort"
	"unicode/utf8"
)

// unicodeScriptsStep is the UnicodeScripts pre-tokenizer: it splits where the script changes,
// as the Rust library does. A character of no script (the space, and code points unassigned
// in Unicode 9.0, its table's version) never starts a piece and does not change the current
// script, so it stays in the piece before it; and the characters of no script at the very
// start are dropped, as the Rust library's split offsets begin at the first scripted one.
type unicodeScriptsStep struct{}

func (unicodeScriptsStep) name() string { return "UnicodeScripts" }

func (unicodeScriptsStep) split(s string, first int, emit func(string, int)) {
	start, last := -1, uint8(0)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if sc := scriptOf(r); sc != 0 {
			if sc != last {
				if start >= 0 {
					emit(s[start:i], headAt(first, start))
				}
				start = i
			}
			last = sc
		}
		i += w
	}
	if start >= 0 {
		emit(s[start:], headAt(first, start))
	}
}

// scriptOf returns the script of r in scriptRuns (0: none).
func scriptOf(r rune) uint8 {
	i := sort.Search(len(scriptRuns), func(i int) bool { return scriptRuns[i]>>8 > uint32(r) })
	return uint8(scriptRuns[i-1])
}
