package tokenizer

import (
	"fmt"
	"unicode/utf8"
)

// fixedLengthStep is the FixedLength pre-tokenizer: pieces of n characters (the last shorter).
type fixedLengthStep struct{ n int }

func (f fixedLengthStep) name() string { return fmt.Sprintf("FixedLength(%d)", f.n) }

func (f fixedLengthStep) split(s string, first int, emit func(string, int)) {
	start, count := 0, 0
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		if count++; count == f.n {
			emit(s[start:i], headAt(first, start))
			start, count = i, 0
		}
	}
	if start < len(s) {
		emit(s[start:], headAt(first, start))
	}
}
