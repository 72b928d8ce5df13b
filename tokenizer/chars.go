package tokenizer

import (
	"sort"
	"sync"
	"unicode/utf8"
)

// Character classes used by the Split regexes: \p{L}, \p{N}, \p{M}, \p{P}, \p{S}, \s
// (Unicode White_Space, which is what the reference's regex engine takes \s to mean), and
// the letter cases \p{Ll} and \p{Lu}/\p{Lt}. They come from classRuns (Unicode 16.0, the
// reference's version), not from Go's unicode package, whose version may differ.
const (
	cL uint8 = 1 << iota
	cN
	cM
	cP
	cS
	cSpace
	cLl   // lowercase letter
	cLuLt // uppercase or titlecase letter
)

var (
	bmpOnce  sync.Once
	bmpClass []uint8  // class bits of every code point below U+10000
	bmpNewer []uint64 // bit set of the code points below U+10000 in newerThanNFC
)

func initClasses() {
	bmpOnce.Do(func() {
		t := make([]uint8, 0x10000)
		for i, run := range classRuns {
			start, end := run>>8, uint32(0x110000)
			if i+1 < len(classRuns) {
				end = classRuns[i+1] >> 8
			}
			for c := start; c < end && c < 0x10000; c++ {
				t[c] = uint8(run)
			}
		}
		bmpClass = t
		nw := make([]uint64, 0x10000/64)
		for i := 0; i < len(newerThanNFC); i += 2 {
			for c := newerThanNFC[i]; c < newerThanNFC[i+1] && c < 0x10000; c++ {
				nw[c/64] |= 1 << (c % 64)
			}
		}
		bmpNewer = nw
	})
}

// isNewerThanNFC reports whether r was assigned after the reference's NFC tables (Unicode 9.0).
func isNewerThanNFC(r rune) bool {
	if r < 0x10000 {
		return bmpNewer[r/64]&(1<<(r%64)) != 0
	}
	// The ranges alternate start, end: r is inside one when an odd number of bounds are <= r.
	n := sort.Search(len(newerThanNFC), func(i int) bool { return newerThanNFC[i] > uint32(r) })
	return n%2 == 1
}

// class returns the class bits of r.
func class(r rune) uint8 {
	if r < 0x10000 {
		return bmpClass[r]
	}
	i := sort.Search(len(classRuns), func(i int) bool { return classRuns[i]>>8 > uint32(r) })
	return uint8(classRuns[i-1])
}

// next decodes the rune at s[i] (i < len(s)) and returns it, its class and its width.
func next(s string, i int) (rune, uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), bmpClass[c], 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return r, class(r), w
}

// runOf returns the end of the run of runes starting at i whose class has a bit of want.
func runOf(s string, i int, want uint8) int {
	for i < len(s) {
		_, c, w := next(s, i)
		if c&want == 0 {
			break
		}
		i += w
	}
	return i
}

// Second-table classes (class2Runs): the regex crate's \w, BERT's sets (Unicode 8.0), the
// normalization crate's combining marks (Unicode 9.0), Extended_Pictographic, in bits 6–9 the
// Grapheme_Cluster_Break value (gcb constants), in bits 10–14 general categories.
const (
	c2Word    uint16 = 1 << iota // Alphabetic, M, Nd, Pc, Join_Control
	c2Punct8                     // P (Unicode 8.0)
	c2Ctl8                       // Cc, Cf, Co (Unicode 8.0)
	c2Mn8                        // Mn (Unicode 8.0)
	c2Mark9                      // M (Unicode 9.0)
	c2ExtPict                    // Extended_Pictographic
)

// General categories in bits 10–14 of class2 (the regex engine's \p{Lu} … \p{Nd}).
const (
	c2Lu uint16 = 1 << (10 + iota)
	c2Lt
	c2Lm
	c2Lo
	c2Nd
)

// gcbOf is the Grapheme_Cluster_Break value of class2 bits c.
func gcbOf(c uint16) uint16 { return c >> 6 & 15 }

// Grapheme_Cluster_Break values, gcbOf(class2).
const (
	gcbOther uint16 = iota
	gcbCR
	gcbLF
	gcbControl
	gcbExtend
	gcbZWJ
	gcbRI
	gcbPrepend
	gcbSpacingMark
	gcbL
	gcbV
	gcbT
	gcbLV
	gcbLVT
)

var (
	bmp2Once  sync.Once
	bmp2Class []uint16
)

// class2 returns the second-table bits of r.
func class2(r rune) uint16 {
	bmp2Once.Do(func() {
		t := make([]uint16, 0x10000)
		for i, run := range class2Runs {
			start, end := run>>16, uint64(0x110000)
			if i+1 < len(class2Runs) {
				end = class2Runs[i+1] >> 16
			}
			for c := start; c < end && c < 0x10000; c++ {
				t[c] = uint16(run)
			}
		}
		bmp2Class = t
	})
	if r >= 0 && r < 0x10000 {
		return bmp2Class[r]
	}
	i := sort.Search(len(class2Runs), func(i int) bool { return class2Runs[i]>>16 > uint64(r) })
	return uint16(class2Runs[i-1])
}

// toLower appends Rust's char::to_lowercase of r (Unicode 16.0): its simple mapping, and
// İ (U+0130) as "i̇".
func toLower(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, byte(r))
	}
	if r == 0x130 {
		return append(dst, "i\u0307"...)
	}
	i := sort.Search(len(lowerPairs), func(i int) bool { return lowerPairs[i][0] >= r })
	if i < len(lowerPairs) && lowerPairs[i][0] == r {
		r = lowerPairs[i][1]
	}
	return utf8.AppendRune(dst, r)
}

// isWhitespace is Rust's char::is_whitespace (White_Space).
func isWhitespace(r rune) bool { return class(r)&cSpace != 0 }
